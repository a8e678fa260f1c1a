// skip_list.h — a skip list set of keys: one heap block per node, sized by its
// level (malloc/free, so a transaction allocates through _ITM_malloc). The
// caller draws the level outside the transaction, so a re-run after an abort
// builds the same node. Header-only, no standard headers (see sorted_list.h).
#pragma once

template <typename Key>
class SkipList {
 public:
  static constexpr int kMaxLevel = 16;

  SkipList() : head_(make(Key(), kMaxLevel)) {}
  SkipList(const SkipList&) = delete;
  SkipList& operator=(const SkipList&) = delete;
  ~SkipList() {
    clear();
    ::free(head_);
  }

  // A level in 1..kMaxLevel with P(level > k) = 2^-k, from 64 random bits.
  static int level_from(unsigned long bits) {
    int level = 1;
    while (level < kMaxLevel && (bits & 1)) {
      ++level;
      bits >>= 1;
    }
    return level;
  }

  bool contains(Key key) const {
    const Node* n = head_;
    for (int l = kMaxLevel - 1; l >= 0; --l)
      while (n->next[l] && n->next[l]->key < key) n = n->next[l];
    n = n->next[0];
    return n && n->key == key;
  }
  bool insert(Key key, int level) {
    Node* update[kMaxLevel];
    Node* n = find(key, update);
    if (n && n->key == key) return false;
    Node* fresh = make(key, level);
    for (int l = 0; l < level; ++l) {
      fresh->next[l] = update[l]->next[l];
      update[l]->next[l] = fresh;
    }
    return true;
  }
  bool remove(Key key) {
    Node* update[kMaxLevel];
    Node* n = find(key, update);
    if (!n || n->key != key) return false;
    for (int l = 0; l < n->level; ++l) update[l]->next[l] = n->next[l];
    ::free(n);
    return true;
  }
  long size() const {
    long count = 0;
    for (const Node* n = head_->next[0]; n; n = n->next[0]) ++count;
    return count;
  }
  // Every level sorted, and each level a sub-list of the one below.
  bool valid() const {
    for (int l = 0; l < kMaxLevel; ++l)
      for (const Node* n = head_->next[l]; n; n = n->next[l]) {
        if (n->level <= l) return false;
        if (n->next[l] && !(n->key < n->next[l]->key)) return false;
      }
    return true;
  }
  void clear() {
    Node* n = head_->next[0];
    while (n) {
      Node* next = n->next[0];
      ::free(n);
      n = next;
    }
    for (int l = 0; l < kMaxLevel; ++l) head_->next[l] = nullptr;
  }

 private:
  struct Node {
    Key key;
    int level;
    Node* next[1];  // `level` entries
  };
  static Node* make(Key key, int level) {
    Node* n = static_cast<Node*>(::malloc(sizeof(Node) + sizeof(Node*) * (level - 1)));
    n->key = key;
    n->level = level;
    for (int l = 0; l < level; ++l) n->next[l] = nullptr;
    return n;
  }
  // The first node >= key; update[l] is its predecessor at level l.
  Node* find(Key key, Node** update) {
    Node* n = head_;
    for (int l = kMaxLevel - 1; l >= 0; --l) {
      while (n->next[l] && n->next[l]->key < key) n = n->next[l];
      update[l] = n;
    }
    return n->next[0];
  }
  Node* head_;
};
