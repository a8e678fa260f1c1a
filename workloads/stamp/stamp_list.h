// stamp_list.h — STAMP's sorted singly linked list (lib/list.c) with its
// exact blocks: a 32-byte header (the head node, a compare slot, the size) and
// a 16-byte node per element; insert refuses a duplicate before allocating
// (LIST_NO_DUPLICATES), remove frees the node, free frees every node and the
// header. Elements are pointers, ordered by Compare::compare(a, b) (<0, 0,
// >0). Header-only with plain malloc/free and no library calls, so it is
// safe inside a transaction; include it inside a TM build's namespace.
#pragma once

template <typename T, typename Compare>
struct StampList {
  struct Node {
    T* data;
    Node* next;
  };
  Node head;
  void* compare_slot;  // STAMP keeps the compare function here
  long size;

  static StampList* create() {
    StampList* list = static_cast<StampList*>(malloc(sizeof(StampList)));
    list->head.data = nullptr;
    list->head.next = nullptr;
    list->compare_slot = nullptr;
    list->size = 0;
    return list;
  }
  // Frees the nodes and the header; not the elements.
  static void destroy(StampList* list) {
    free_nodes(list->head.next);
    free(list);
  }
  // Frees the nodes (STAMP's list_clear); the header stays.
  void clear() {
    free_nodes(head.next);
    head.next = nullptr;
    size = 0;
  }

  Node* previous(const T* item) {
    Node* prev = &head;
    for (Node* n = prev->next; n; n = n->next) {
      if (Compare::compare(n->data, item) >= 0) return prev;
      prev = n;
    }
    return prev;
  }
  T* find(const T* item) {
    Node* n = previous(item)->next;
    return n && Compare::compare(n->data, item) == 0 ? n->data : nullptr;
  }
  bool insert(T* item) {
    Node* prev = previous(item);
    Node* current = prev->next;
    if (current && Compare::compare(current->data, item) == 0) return false;
    Node* n = static_cast<Node*>(malloc(sizeof(Node)));
    n->data = item;
    n->next = current;
    prev->next = n;
    ++size;
    return true;
  }
  bool remove(const T* item) {
    Node* prev = previous(item);
    Node* n = prev->next;
    if (!n || Compare::compare(n->data, item) != 0) return false;
    prev->next = n->next;
    free(n);
    --size;
    return true;
  }

 private:
  static void free_nodes(Node* n) {
    while (n) {
      Node* next = n->next;
      free(n);
      n = next;
    }
  }
};
