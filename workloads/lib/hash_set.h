// hash_set.h — a fixed-size chained hash set of keys, one heap block per
// chain node (STAMP's hashtable), safe inside a transaction. Header-only and
// free of standard headers: included inside a TM build's namespace.
#pragma once

template <typename Key>
class HashSet {
 public:
  explicit HashSet(long buckets) : buckets_(buckets), heads_(new Node*[buckets]()) {}
  HashSet(const HashSet&) = delete;
  HashSet& operator=(const HashSet&) = delete;
  ~HashSet() {
    clear();
    delete[] heads_;
  }

  bool contains(Key key) const {
    for (const Node* n = heads_[bucket(key)]; n; n = n->next)
      if (n->key == key) return true;
    return false;
  }
  bool insert(Key key) {
    Node** head = &heads_[bucket(key)];
    for (const Node* n = *head; n; n = n->next)
      if (n->key == key) return false;
    *head = new Node{key, *head};
    return true;
  }
  bool remove(Key key) {
    for (Node** link = &heads_[bucket(key)]; *link; link = &(*link)->next)
      if ((*link)->key == key) {
        Node* gone = *link;
        *link = gone->next;
        delete gone;
            return true;
      }
    return false;
  }
  // Counted by walking: a shared counter would make every two updates conflict.
  long size() const {
    long n = 0;
    for (long b = 0; b < buckets_; ++b)
      for (const Node* p = heads_[b]; p; p = p->next) ++n;
    return n;
  }
  // Every key in its bucket, no key twice in a chain.
  bool valid() const {
    for (long b = 0; b < buckets_; ++b)
      for (const Node* p = heads_[b]; p; p = p->next) {
        if (bucket(p->key) != b) return false;
        for (const Node* q = p->next; q; q = q->next)
          if (q->key == p->key) return false;
      }
    return true;
  }
  void clear() {
    for (long b = 0; b < buckets_; ++b)
      while (heads_[b]) {
        Node* next = heads_[b]->next;
        delete heads_[b];
        heads_[b] = next;
      }
  }

 private:
  struct Node {
    Key key;
    Node* next;
  };
  long bucket(Key key) const {
    unsigned long h = (unsigned long)key * 0x9E3779B97F4A7C15ul;
    return long((h >> 17) % (unsigned long)buckets_);
  }
  long buckets_;
  Node** heads_;
};
