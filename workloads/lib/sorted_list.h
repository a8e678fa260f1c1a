// sorted_list.h — a sorted singly linked set of keys, one heap block per node
// (16 bytes: a key and a next pointer, as STAMP's list), safe to call inside a
// transaction. Header-only: each TM build compiles its own instrumented copy.
// Included inside a build's namespace: it must not include standard headers.
#pragma once

template <typename Key>
class SortedList {
 public:
  struct Node {
    Key key;
    Node* next;
  };

  SortedList() = default;
  SortedList(const SortedList&) = delete;
  SortedList& operator=(const SortedList&) = delete;
  ~SortedList() { clear(); }

  bool contains(Key key) const {
    const Node* n = head_;
    while (n && n->key < key) n = n->next;
    return n && n->key == key;
  }
  bool insert(Key key) {
    Node** link = &head_;
    while (*link && (*link)->key < key) link = &(*link)->next;
    if (*link && (*link)->key == key) return false;
    *link = new Node{key, *link};
    return true;
  }
  bool remove(Key key) {
    Node** link = &head_;
    while (*link && (*link)->key < key) link = &(*link)->next;
    if (!*link || (*link)->key != key) return false;
    Node* gone = *link;
    *link = gone->next;
    delete gone;
    return true;
  }
  // Counted by walking: a shared counter would make every two updates conflict.
  long size() const {
    long n = 0;
    for (const Node* p = head_; p; p = p->next) ++n;
    return n;
  }
  // Strictly sorted.
  bool valid() const {
    for (const Node* p = head_; p; p = p->next)
      if (p->next && !(p->key < p->next->key)) return false;
    return true;
  }
  void clear() {
    while (head_) {
      Node* next = head_->next;
      delete head_;
      head_ = next;
    }
  }

 private:
  Node* head_ = nullptr;
};
