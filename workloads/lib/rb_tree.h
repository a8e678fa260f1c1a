// rb_tree.h — a red-black tree map (key -> value), one heap block per node as
// STAMP's rbtree, safe inside a transaction (no library calls but new/delete).
// Header-only, no standard headers (see sorted_list.h). Insert and erase
// follow CLRS (2nd edition) with null leaves: erase unlinks the successor's
// node and moves its key, as STAMP's rbtree does.
#pragma once

// GCC 12 crashes (internal compiler error in expand_call_tm) instrumenting
// erase_fixup for transactions at -O2; -O1 for that one function avoids it.
#if defined(ALLOCSTAMP_TM_STM)
#define ALLOCSTAMP_RB_ERASE_FIXUP_OPT __attribute__((optimize("O1")))
#else
#define ALLOCSTAMP_RB_ERASE_FIXUP_OPT
#endif

template <typename Key, typename Value>
class RbTree {
 public:
  RbTree() = default;
  RbTree(const RbTree&) = delete;
  RbTree& operator=(const RbTree&) = delete;
  ~RbTree() { clear(); }

  bool contains(Key key) const { return find(key) != nullptr; }
  // The value for key, or `missing`.
  Value get(Key key, Value missing) const {
    const Node* n = find(key);
    return n ? n->value : missing;
  }
  // Sets key's value; false when it was there already (then the value is updated).
  bool insert(Key key, Value value) {
    Node* parent = nullptr;
    Node** link = &root_;
    while (*link) {
      parent = *link;
      if (key < parent->key) link = &parent->left;
      else if (parent->key < key) link = &parent->right;
      else {
        parent->value = value;
        return false;
      }
    }
    Node* n = new Node{key, value, parent, nullptr, nullptr, kRed};
    *link = n;
    insert_fixup(n);
    return true;
  }
  bool remove(Key key) {
    Node* z = const_cast<Node*>(find(key));
    if (!z) return false;
    delete erase(z);
    return true;
  }
  long size() const { return count(root_); }
  // BST order, red nodes have black children, equal black height, parent links.
  bool valid() const {
    if (root_ && (root_->color != kBlack || root_->parent)) return false;
    return black_height(root_, nullptr, nullptr, false) >= 0;
  }
  void clear() {
    destroy(root_);
    root_ = nullptr;
  }

 private:
  enum Color : unsigned char { kRed, kBlack };
  struct Node {
    Key key;
    Value value;
    Node* parent;
    Node* left;
    Node* right;
    Color color;
  };

  const Node* find(Key key) const {
    const Node* n = root_;
    while (n && (key < n->key || n->key < key)) n = key < n->key ? n->left : n->right;
    return n;
  }
  static Color color_of(const Node* n) { return n ? n->color : kBlack; }

  void rotate_left(Node* x) {
    Node* y = x->right;
    x->right = y->left;
    if (y->left) y->left->parent = x;
    y->parent = x->parent;
    if (!x->parent) root_ = y;
    else if (x == x->parent->left) x->parent->left = y;
    else x->parent->right = y;
    y->left = x;
    x->parent = y;
  }
  void rotate_right(Node* x) {
    Node* y = x->left;
    x->left = y->right;
    if (y->right) y->right->parent = x;
    y->parent = x->parent;
    if (!x->parent) root_ = y;
    else if (x == x->parent->right) x->parent->right = y;
    else x->parent->left = y;
    y->right = x;
    x->parent = y;
  }

  void insert_fixup(Node* z) {
    while (z->parent && z->parent->color == kRed) {
      Node* grand = z->parent->parent;
      if (z->parent == grand->left) {
        Node* uncle = grand->right;
        if (color_of(uncle) == kRed) {
          z->parent->color = kBlack;
          uncle->color = kBlack;
          grand->color = kRed;
          z = grand;
        } else {
          if (z == z->parent->right) {
            z = z->parent;
            rotate_left(z);
          }
          z->parent->color = kBlack;
          z->parent->parent->color = kRed;
          rotate_right(z->parent->parent);
        }
      } else {
        Node* uncle = grand->left;
        if (color_of(uncle) == kRed) {
          z->parent->color = kBlack;
          uncle->color = kBlack;
          grand->color = kRed;
          z = grand;
        } else {
          if (z == z->parent->left) {
            z = z->parent;
            rotate_right(z);
          }
          z->parent->color = kBlack;
          z->parent->parent->color = kRed;
          rotate_left(z->parent->parent);
        }
      }
    }
    root_->color = kBlack;
  }

  // Puts v (maybe null) where u was.
  void transplant(Node* u, Node* v) {
    if (!u->parent) root_ = v;
    else if (u == u->parent->left) u->parent->left = v;
    else u->parent->right = v;
    if (v) v->parent = u->parent;
  }

  // Unlinks z's key and returns the node to free. As STAMP's rbtree does, a
  // node with two children takes its successor's key and value, and the
  // successor's node (which has no left child) is the one unlinked: the nodes
  // that stay keep their memory, as in the original.
  Node* erase(Node* z) {
    Node* y = z;
    if (z->left && z->right) {
      y = z->right;
      while (y->left) y = y->left;
      // Through locals: a node copied as one block inside a transaction is a
      // libitm block copy, which ml_wt can restart without end
      // (docs/stamp-fidelity.md, "Block copies inside transactions").
      Key key = y->key;
      Value value = y->value;
      z->key = key;
      z->value = value;
    }
    Node* x = y->left ? y->left : y->right;
    Node* x_parent = y->parent;
    transplant(y, x);
    if (y->color == kBlack) erase_fixup(x, x_parent);
    return y;
  }

  ALLOCSTAMP_RB_ERASE_FIXUP_OPT void erase_fixup(Node* x, Node* parent) {
    while (x != root_ && color_of(x) == kBlack) {
      if (x == parent->left) {
        Node* w = parent->right;
        if (color_of(w) == kRed) {
          w->color = kBlack;
          parent->color = kRed;
          rotate_left(parent);
          w = parent->right;
        }
        if (color_of(w->left) == kBlack && color_of(w->right) == kBlack) {
          w->color = kRed;
          x = parent;
          parent = x->parent;
        } else {
          if (color_of(w->right) == kBlack) {
            w->left->color = kBlack;
            w->color = kRed;
            rotate_right(w);
            w = parent->right;
          }
          w->color = parent->color;
          parent->color = kBlack;
          if (w->right) w->right->color = kBlack;
          rotate_left(parent);
          x = root_;
          parent = nullptr;
        }
      } else {
        Node* w = parent->left;
        if (color_of(w) == kRed) {
          w->color = kBlack;
          parent->color = kRed;
          rotate_right(parent);
          w = parent->left;
        }
        if (color_of(w->right) == kBlack && color_of(w->left) == kBlack) {
          w->color = kRed;
          x = parent;
          parent = x->parent;
        } else {
          if (color_of(w->left) == kBlack) {
            w->right->color = kBlack;
            w->color = kRed;
            rotate_left(w);
            w = parent->left;
          }
          w->color = parent->color;
          parent->color = kBlack;
          if (w->left) w->left->color = kBlack;
          rotate_right(parent);
          x = root_;
          parent = nullptr;
        }
      }
    }
    if (x) x->color = kBlack;
  }

  static long count(const Node* n) { return n ? 1 + count(n->left) + count(n->right) : 0; }
  // Black height of the subtree, or -1 when a rule is broken.
  static long black_height(const Node* n, const Key* low, const Key* high, bool parent_red) {
    if (!n) return 0;
    if ((low && !(*low < n->key)) || (high && !(n->key < *high))) return -1;
    if (n->color == kRed && parent_red) return -1;
    if ((n->left && n->left->parent != n) || (n->right && n->right->parent != n)) return -1;
    long l = black_height(n->left, low, &n->key, n->color == kRed);
    long r = black_height(n->right, &n->key, high, n->color == kRed);
    if (l < 0 || r < 0 || l != r) return -1;
    return l + (n->color == kBlack ? 1 : 0);
  }
  static void destroy(Node* n) {
    while (n) {
      destroy(n->right);
      Node* left = n->left;
      delete n;
      n = left;
    }
  }

  Node* root_ = nullptr;
};
