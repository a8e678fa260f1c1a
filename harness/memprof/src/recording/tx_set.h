// tx_set.h — one thread's set of blocks whose free belongs to a transaction:
// blocks the program freed inside a transaction (libitm releases them at
// commit) and blocks it allocated in one (released again if the attempt
// aborts). No bound: a transaction may free any number of blocks, and each
// free must be counted in its region. Open addressing with linear probing in
// memory mapped directly (never malloc: the set is used inside malloc), grown
// by doubling; a log of what was added since the last clear makes clearing
// cost what the transaction added, not the table's size.
#pragma once
#include <stdint.h>

namespace memprof {

struct TxSet {
  void** slots;        // capacity = mask + 1, a power of two; null: empty
  void** added;        // blocks added since the last clear, in order
  uint32_t mask;
  uint32_t count;      // blocks in the set
  uint32_t added_count;
  uint32_t added_capacity;
};

// False only if memory could not be mapped (then the block is not remembered).
// `logged`: remember it for tx_set_reset (a set never reset passes false).
bool tx_set_insert(TxSet& s, void* p, bool logged = true);
// Removes p; false when it was not there.
bool tx_set_remove(TxSet& s, void* p);
// Empties the set.
void tx_set_reset(TxSet& s);
// Returns the set's memory (thread exit).
void tx_set_release(TxSet& s);

}  // namespace memprof
