// vacation_tm.cpp — STAMP's vacation, written from its description: a
// manager with three tables of reservable items (cars, flights, rooms) and a
// customer table, all red-black trees; clients make reservations (the most
// expensive of a few queried items of each kind), delete customers (cancelling
// what they hold) or update tables (add or remove stock), each in one
// transaction. Every customer reservation is a small heap block allocated
// inside the transaction.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <atomic>
#include <chrono>
#include <thread>
#include <utility>
#include <vector>

#include <memprof/memprof.h>

#include "random.h"
#include "runtime.h"
#include "tm.h"
#include "vacation.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {
#include "rb_tree.h"

struct Item {
  long id;
  long used, free, total, price;
};

struct Held {  // one reservation a customer holds
  long key;    // kind * relations-range + id
  long price;
  Held* next;
};

struct Customer {
  long id;
  Held* held;
};

constexpr int kKinds = 3;

struct Manager {
  RbTree<long, Item*> tables[kKinds];
  RbTree<long, Customer*> customers;
};

// --- operations (called inside transactions) ---

inline long query_price(Manager& m, int kind, long id) {
  Item* item = m.tables[kind].get(id, nullptr);
  return item && item->free > 0 ? item->price : -1;
}

inline void add_customer(Manager& m, long id) {
  if (!m.customers.contains(id)) m.customers.insert(id, new Customer{id, nullptr});
}

inline bool reserve(Manager& m, long customer_id, int kind, long id, long key_base) {
  Customer* c = m.customers.get(customer_id, nullptr);
  Item* item = m.tables[kind].get(id, nullptr);
  if (!c || !item || item->free <= 0) return false;
  long key = kind * key_base + id;
  for (Held* h = c->held; h; h = h->next)
    if (h->key == key) return false;  // one of each item per customer
  ++item->used;
  --item->free;
  c->held = new Held{key, item->price, c->held};
  return true;
}

inline bool delete_customer(Manager& m, long customer_id, long key_base) {
  Customer* c = m.customers.get(customer_id, nullptr);
  if (!c) return false;
  for (Held* h = c->held; h;) {
    Item* item = m.tables[h->key / key_base].get(h->key % key_base, nullptr);
    if (item) {
      --item->used;
      ++item->free;
    }
    Held* next = h->next;
    delete h;
    h = next;
  }
  m.customers.remove(customer_id);
  delete c;
  return true;
}

inline void add_stock(Manager& m, int kind, long id, long count, long price) {
  Item* item = m.tables[kind].get(id, nullptr);
  if (item) {
    item->free += count;
    item->total += count;
    if (price >= 0) item->price = price;
  } else {
    m.tables[kind].insert(id, new Item{id, 0, count, count, price});
  }
}

inline bool remove_stock(Manager& m, int kind, long id, long count) {
  Item* item = m.tables[kind].get(id, nullptr);
  if (!item || item->free < count) return false;
  item->free -= count;
  item->total -= count;
  if (item->total == 0) {  // nothing used either: the row goes
    m.tables[kind].remove(id);
    delete item;
  }
  return true;
}

// --- transactions (one frame each: _ITM_beginTransaction returns twice) ---

struct Pick {
  int kind;
  long id;
};

__attribute__((noinline)) bool tx_make_reservation(Manager& m, long customer_id, const Pick* picks, int n, long key_base) {
  bool made = false;
  TM_BEGIN
  long best_price[kKinds] = {-1, -1, -1};
  long best_id[kKinds] = {-1, -1, -1};
  bool found = false;
  for (int i = 0; i < n; ++i) {
    long price = query_price(m, picks[i].kind, picks[i].id);
    if (price > best_price[picks[i].kind]) {
      best_price[picks[i].kind] = price;
      best_id[picks[i].kind] = picks[i].id;
      found = true;
    }
  }
  if (found) add_customer(m, customer_id);
  bool any = false;
  for (int k = 0; k < kKinds; ++k)
    if (best_id[k] > 0 && reserve(m, customer_id, k, best_id[k], key_base)) any = true;
  made = any;
  TM_END
  return made;
}

__attribute__((noinline)) bool tx_delete_customer(Manager& m, long customer_id, long key_base) {
  bool deleted;
  TM_BEGIN
  deleted = delete_customer(m, customer_id, key_base);
  TM_END
  return deleted;
}

struct Update {
  int kind;
  long id;
  bool add;
  long price;
};

__attribute__((noinline)) void tx_update_tables(Manager& m, const Update* updates, int n) {
  TM_BEGIN
  for (int i = 0; i < n; ++i) {
    if (updates[i].add) add_stock(m, updates[i].kind, updates[i].id, 100, updates[i].price);
    else remove_stock(m, updates[i].kind, updates[i].id, 100);
  }
  TM_END
}

// --- the run ---

VacationResult run(const VacationConfig& c) {
  Manager m;
  const long key_base = c.relations + 1;
  Random setup(c.seed);
  // Rows in a shuffled order, as STAMP fills its tables.
  std::vector<long> ids(size_t(c.relations));
  for (long i = 0; i < c.relations; ++i) ids[size_t(i)] = i + 1;
  for (int k = 0; k < kKinds; ++k) {
    for (long i = c.relations - 1; i > 0; --i) std::swap(ids[size_t(i)], ids[size_t(setup.below(uint64_t(i + 1)))]);
    for (long id : ids) add_stock(m, k, id, long(setup.below(5) + 1) * 100, long(setup.below(5)) * 10 + 50);
  }
  for (long id : ids) add_customer(m, id);

  const long query_range = c.relations * c.query_percent / 100 > 0 ? c.relations * c.query_percent / 100 : 1;
  std::atomic<uint64_t> made{0}, deleted{0}, updates{0};
  VacationResult r;
  {
    memprof::region parallel(MEMPROF_PAR);
    memprof::phase_begin();
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> clients;
    for (int t = 0; t < c.threads; ++t)
      clients.emplace_back([&, t] {
        Random rng(c.seed * 104729 + uint64_t(t) + 1);
        long mine = c.transactions / c.threads + (t < c.transactions % c.threads ? 1 : 0);
        uint64_t my_made = 0, my_deleted = 0, my_updates = 0;
        Pick picks[64];
        Update changes[64];
        for (long i = 0; i < mine; ++i) {
          int action = int(rng.below(100));
          if (action < c.user_percent) {
            int n = int(rng.below(uint64_t(c.queries))) + 1;
            long customer = long(rng.below(uint64_t(query_range))) + 1;
            for (int q = 0; q < n; ++q) picks[q] = {int(rng.below(kKinds)), long(rng.below(uint64_t(query_range))) + 1};
            if (tx_make_reservation(m, customer, picks, n, key_base)) ++my_made;
          } else if (action & 1) {
            long customer = long(rng.below(uint64_t(query_range))) + 1;
            if (tx_delete_customer(m, customer, key_base)) ++my_deleted;
          } else {
            int n = int(rng.below(uint64_t(c.queries))) + 1;
            for (int q = 0; q < n; ++q)
              changes[q] = {int(rng.below(kKinds)), long(rng.below(uint64_t(query_range))) + 1, (rng.next() & 1) != 0,
                            long(rng.below(5)) * 10 + 50};
            tx_update_tables(m, changes, n);
            ++my_updates;
          }
        }
        made += my_made;
        deleted += my_deleted;
        updates += my_updates;
        ::allocstamp::tm::publish_thread_counts();
      });
    for (auto& client : clients) client.join();
    r.elapsed_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - start).count());
    memprof::phase_end();
  }
  r.made = made;
  r.deleted = deleted;
  r.updates = updates;

  // Verification: every item's counts add up, and its `used` is exactly the
  // number of customers holding it.
  std::vector<std::vector<long>> held(kKinds, std::vector<long>(size_t(key_base), 0));
  bool ok = m.customers.valid();
  for (long id = 1; id <= c.relations; ++id) {
    Customer* cust = m.customers.get(id, nullptr);
    if (!cust) continue;
    for (Held* h = cust->held; h; h = h->next) {
      ++held[size_t(h->key / key_base)][size_t(h->key % key_base)];
      ++r.reservations;
    }
  }
  for (int k = 0; k < kKinds; ++k) {
    ok = ok && m.tables[k].valid();
    for (long id = 1; id <= c.relations; ++id) {
      Item* item = m.tables[k].get(id, nullptr);
      long holders = held[size_t(k)][size_t(id)];
      if (!item) {
        ok = ok && holders == 0;
        continue;
      }
      ok = ok && item->used >= 0 && item->free >= 0 && item->used + item->free == item->total &&
           item->used == holders;
    }
  }
  r.consistent = ok;

  // Tear down (sequential region).
  for (long id = 1; id <= c.relations; ++id) {
    if (Customer* cust = m.customers.get(id, nullptr)) {
      for (Held* h = cust->held; h;) {
        Held* next = h->next;
        delete h;
        h = next;
      }
      delete cust;
    }
    for (int k = 0; k < kKinds; ++k) delete m.tables[k].get(id, nullptr);
  }
  return r;
}
}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
