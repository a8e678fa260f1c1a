// intruder_lib.h — the blocks intruder allocates beside STAMP's vector and
// queue (stamp_containers.h), with the sizes of STAMP's intruder (x86_64):
// the packet (a 32-byte header and its bytes) and a list of packets ordered by
// fragment number (a 32-byte header with its head node inside, one 16-byte
// node per packet). Plain C-style blocks from malloc, so their sizes are
// exactly the structs'.
//
// Included inside a TM build's namespace (after rb_tree.h, <cstdlib> and
// <random>): what runs inside transactions is compiled for that build.
#pragma once

// ---- the packet: a 32-byte header followed by its bytes, one block each ----

struct Packet {
  long flow;
  long fragment;
  long fragments;
  long length;  // bytes after the header
};
static_assert(sizeof(Packet) == 32, "a packet header is four longs");

inline char* packet_data(Packet* p) { return reinterpret_cast<char*>(p + 1); }
inline const char* packet_data(const Packet* p) { return reinterpret_cast<const char*>(p + 1); }

#include "stamp_containers.h"

// ---- a flow's fragments, ordered by fragment number ----
// The header embeds the head node; its `order` word is the comparison the list
// sorts by (always fragment_order here).

using FragmentOrder = long (*)(const Packet*, const Packet*);

inline long fragment_order(const Packet* a, const Packet* b) { return a->fragment - b->fragment; }

struct FragmentNode {
  const Packet* packet;
  FragmentNode* next;
};
static_assert(sizeof(FragmentNode) == 16, "list node");

struct FragmentList {
  FragmentNode head;  // head.next is the first fragment
  FragmentOrder order;
  long size;
};
static_assert(sizeof(FragmentList) == 32, "list header");

// All three are called inside transactions.
inline FragmentList* fragment_list_new() {
  FragmentList* list = static_cast<FragmentList*>(malloc(sizeof(FragmentList)));
  list->head.packet = nullptr;
  list->head.next = nullptr;
  list->order = &fragment_order;
  list->size = 0;
  return list;
}

// Before the first fragment numbered at least p's, as a walk from the head.
inline void fragment_list_insert(FragmentList* list, const Packet* p) {
  FragmentNode* before = &list->head;
  for (FragmentNode* n = before->next; n && fragment_order(n->packet, p) < 0; n = n->next) before = n;
  FragmentNode* node = static_cast<FragmentNode*>(malloc(sizeof(FragmentNode)));
  node->packet = p;
  node->next = before->next;
  before->next = node;
  list->size = list->size + 1;
}

// The nodes last to first (as STAMP's recursive free), then the header.
inline void fragment_nodes_delete(FragmentNode* n) {
  if (!n) return;
  fragment_nodes_delete(n->next);
  free(n);
}

inline void fragment_list_delete(FragmentList* list) {
  fragment_nodes_delete(list->head.next);
  free(list);
}

// ---- a map keyed by flow number: a red-black tree, one 48-byte node per key ----
// The header is STAMP's {root, comparison}: RbTree is the root; the second word
// is the comparison slot, which RbTree does not need (it orders longs itself).

template <typename Value>
struct FlowMap {
  RbTree<long, Value> tree;
  void* comparison = nullptr;
};
static_assert(sizeof(FlowMap<void*>) == 16, "map header");
