// vacation_tm.cpp — STAMP's vacation, allocation for allocation: a manager
// (32 B) of four red-black-tree maps (a 16-byte header and a 48-byte node per
// entry): cars, rooms and flights map ids to 40-byte reservation records,
// customers map ids to a 16-byte customer holding a sorted list (32-byte
// header, 16-byte nodes) of 24-byte reservation infos. The manager is filled
// in STAMP's shuffled order from STAMP's generator (seeded 0); each client
// (56 B, with its own 5008-byte generator seeded with its id, and four
// per-transaction arrays it never frees) draws its actions as STAMP's does and
// runs each in one transaction: make reservations (queries, maybe a new
// customer and its list, an info and a list node per reservation, an info
// leaked when the customer holds that item already), delete a customer (frees
// its infos, nodes, list, record and tree node), or update tables (a new
// record and tree node, or a record and its node freed when its stock reaches
// zero). Then STAMP's checkTables removes every entry (freeing tree nodes,
// never the records), and its cleanup frees the clients and the maps' headers.
// What STAMP never frees is freed after the measured phase.
// Verified before the check: every record's counts add up (used + free =
// total, none negative) and the records' used counts sum to the infos the
// customers hold, each naming a record that exists.
// Compiled once per TM build (seq, lock, stm; see stamp_app in CMakeLists.txt),
// each into its own namespace, ALLOCSTAMP_TM_BUILD.
#include <chrono>
#include <cstdlib>
#include <new>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

#include "runtime.h"
#include "stamp_support.h"
#include "tm.h"
#include "vacation.h"

namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD {
#include "rb_tree.h"
#include "stamp_list.h"

namespace {

enum Kind : long { kCar = 0, kFlight = 1, kRoom = 2, kKinds = 3 };

struct Reservation {  // reservation_t: 40 B
  long id, used, free, total, price;
};

struct Info {  // reservation_info_t: 24 B
  int kind;
  long id;
  long price;
};

// STAMP's reservation_info_compare subtracts the two types as its enum's type,
// unsigned int: any two different types compare as "greater" both ways, so a
// customer's list is sorted by id within a run of one type only, and an insert
// can miss a duplicate held behind a node of another type (then STAMP keeps
// both). Kept so: the same lists, the same nodes and frees, in the same order
// (at large it is 4 more list nodes for vacation-low, 14 for vacation-high).
struct InfoOrder {
  static long compare(const Info* a, const Info* b) {
    long kind = long(unsigned(a->kind) - unsigned(b->kind));
    return kind != 0 ? kind : a->id - b->id;
  }
};
using InfoList = StampList<Info, InfoOrder>;

struct Customer {  // customer_t: 16 B
  long id;
  InfoList* infos;
};

template <typename Value>
struct Map {  // rbtree_t: a root and a compare slot, 16 B; 48-byte nodes
  RbTree<long, Value*> tree;
  void* compare_slot;
  static Map* create() {
    Map* m = static_cast<Map*>(malloc(sizeof(Map)));
    new (&m->tree) RbTree<long, Value*>();
    m->compare_slot = nullptr;
    return m;
  }
  static void destroy(Map* m) {  // rbtree_free: every node, then the header
    m->tree.~RbTree();
    free(m);
  }
  Value* find(long key) { return tree.get(key, nullptr); }
};

struct Manager {  // manager_t: 32 B: cars, rooms, flights (STAMP's allocation order), customers
  Map<Reservation>* tables[3];
  Map<Customer>* customers;
  Map<Reservation>* table(long kind) {
    static constexpr int kSlot[kKinds] = {0, 2, 1};  // car, flight, room -> their slots
    return tables[kSlot[kind]];
  }
};

struct Client {  // client_t: 56 B
  long id;
  Manager* manager;
  StampRandom* random;
  long operations, queries_per_transaction, query_range, percent_user;
};

// --- the manager's operations, as inside STAMP's transactions ---

bool add_reservation(Map<Reservation>* table, long id, long num, long price) {
  Reservation* r = table->find(id);
  if (!r) {
    if (num < 1 || price < 0) return false;
    r = static_cast<Reservation*>(malloc(sizeof(Reservation)));
    *r = Reservation{id, 0, num, num, price};
    table->tree.insert(id, r);
    return true;
  }
  if (r->free + num < 0) return false;
  r->free += num;
  r->total += num;
  if (r->total == 0) {
    table->tree.remove(id);
    free(r);
  } else if (price >= 0) {
    r->price = price;
  }
  return true;
}

bool delete_flight(Manager& m, long id) {
  Reservation* r = m.table(kFlight)->find(id);
  if (!r || r->used > 0) return false;
  return add_reservation(m.table(kFlight), id, -r->total, -1);
}

bool add_customer(Manager& m, long id) {
  if (m.customers->find(id)) return false;
  Customer* c = static_cast<Customer*>(malloc(sizeof(Customer)));
  c->id = id;
  c->infos = InfoList::create();
  m.customers->tree.insert(id, c);
  return true;
}

bool make(Reservation* r) {
  if (r->free < 1) return false;
  ++r->used;
  --r->free;
  return true;
}

bool cancel(Reservation* r) {
  if (r->used < 1) return false;
  --r->used;
  ++r->free;
  return true;
}

bool reserve(Manager& m, long customer_id, long id, int kind, NeverFreed& leaked) {
  Customer* c = m.customers->find(customer_id);
  if (!c) return false;
  Reservation* r = m.table(kind)->find(id);
  if (!r || !make(r)) return false;
  Info* info = static_cast<Info*>(malloc(sizeof(Info)));
  *info = Info{kind, id, r->price};
  if (!c->infos->insert(info)) {  // held already: STAMP leaks the info and undoes the reservation
    leaked.add(info);
    cancel(r);
    return false;
  }
  return true;
}

long customer_bill(Manager& m, long customer_id) {
  Customer* c = m.customers->find(customer_id);
  if (!c) return -1;
  long bill = 0;
  for (InfoList::Node* n = c->infos->head.next; n; n = n->next) bill += n->data->price;
  return bill;
}

bool delete_customer(Manager& m, long customer_id) {
  Customer* c = m.customers->find(customer_id);
  if (!c) return false;
  for (InfoList::Node* n = c->infos->head.next; n; n = n->next) {
    Info* info = n->data;
    // (STAMP restarts the transaction when the record is gone; it never is. The
    // test also keeps GCC 12 from crashing in expand_call_tm here.)
    if (Reservation* r = m.table(info->kind)->find(info->id)) cancel(r);
    free(info);
  }
  m.customers->tree.remove(customer_id);
  InfoList::destroy(c->infos);
  free(c);
  return true;
}

long query_free(Map<Reservation>* table, long id) {
  Reservation* r = table->find(id);
  return r ? r->free : -1;
}

long query_price(Map<Reservation>* table, long id) {
  Reservation* r = table->find(id);
  return r ? r->price : -1;
}

// --- the client: STAMP's client_run ---

struct Tally {
  uint64_t made = 0, deleted = 0, updates = 0;
};

__attribute__((noinline)) void tx_make_reservation(Manager& m, long customer_id, const long* kinds, const long* ids,
                                                   long n, NeverFreed& leaked, Tally& tally) {
  TM_BEGIN
  long max_price[kKinds] = {-1, -1, -1};
  long max_id[kKinds] = {-1, -1, -1};
  bool found = false;
  for (long q = 0; q < n; ++q) {
    long kind = kinds[q], id = ids[q], price = -1;
    Map<Reservation>* table = m.table(int(kind));
    if (query_free(table, id) >= 0) price = query_price(table, id);
    if (price > max_price[kind]) {
      max_price[kind] = price;
      max_id[kind] = id;
      found = true;
    }
  }
  if (found) add_customer(m, customer_id);
  bool any = false;
  for (int kind : {int(kCar), int(kFlight), int(kRoom)})
    if (max_id[kind] > 0 && reserve(m, customer_id, max_id[kind], kind, leaked)) any = true;
  if (any) ++tally.made;
  TM_END
}

__attribute__((noinline)) void tx_delete_customer(Manager& m, long customer_id, Tally& tally) {
  TM_BEGIN
  if (customer_bill(m, customer_id) >= 0 && delete_customer(m, customer_id)) ++tally.deleted;
  TM_END
}

__attribute__((noinline)) void tx_update_tables(Manager& m, const long* kinds, const long* ids, const long* ops,
                                                const long* prices, long n, Tally& tally) {
  TM_BEGIN
  for (long u = 0; u < n; ++u) {
    long kind = kinds[u], id = ids[u];
    if (ops[u]) add_reservation(m.table(int(kind)), id, 100, prices[u]);
    else if (kind == kFlight) delete_flight(m, id);
    else add_reservation(m.table(int(kind)), id, -100, -1);
  }
  ++tally.updates;
  TM_END
}

void client_run(Client* client, NeverFreed& leaked, Tally& tally) {
  memprof::scope scope("clients");  // the transactions, apart from the tables' setup (scopes.csv)
  Manager& m = *client->manager;
  StampRandom& random = *client->random;
  const long per_tx = client->queries_per_transaction, range = client->query_range;
  long* kinds = static_cast<long*>(malloc(std::size_t(per_tx) * sizeof(long)));
  long* ids = static_cast<long*>(malloc(std::size_t(per_tx) * sizeof(long)));
  long* ops = static_cast<long*>(malloc(std::size_t(per_tx) * sizeof(long)));
  long* prices = static_cast<long*>(malloc(std::size_t(per_tx) * sizeof(long)));
  for (void* block : {static_cast<void*>(kinds), static_cast<void*>(ids), static_cast<void*>(ops),
                      static_cast<void*>(prices)})
    leaked.add(block);
  for (long i = 0; i < client->operations; ++i) {
    long r = long(random() % 100);
    if (r < client->percent_user) {
      long n = long(random() % (unsigned long)per_tx) + 1;
      long customer_id = long(random() % (unsigned long)range) + 1;
      for (long q = 0; q < n; ++q) {
        kinds[q] = long(random() % kKinds);
        ids[q] = long(random() % (unsigned long)range) + 1;
      }
      tx_make_reservation(m, customer_id, kinds, ids, n, leaked, tally);
    } else if (r & 1) {
      long customer_id = long(random() % (unsigned long)range) + 1;
      tx_delete_customer(m, customer_id, tally);
    } else {
      long n = long(random() % (unsigned long)per_tx) + 1;
      for (long u = 0; u < n; ++u) {
        kinds[u] = long(random() % kKinds);
        ids[u] = long(random() % (unsigned long)range) + 1;
        ops[u] = long(random() % 2);
        if (ops[u]) prices[u] = long(random() % 5) * 10 + 50;
      }
      tx_update_tables(m, kinds, ids, ops, prices, n, tally);
    }
  }
}

// --- setup, check and cleanup: STAMP's vacation.c ---

Manager* initialize_manager(long relations, uint64_t seed) {
  StampRandom* random = stamp_random_new();
  random->mt.seed(static_cast<std::mt19937::result_type>(seed - 1));
  Manager* m = static_cast<Manager*>(malloc(sizeof(Manager)));
  for (Map<Reservation>*& table : m->tables) table = Map<Reservation>::create();
  m->customers = Map<Customer>::create();
  long* ids = static_cast<long*>(malloc(std::size_t(relations) * sizeof(long)));
  for (long i = 0; i < relations; ++i) ids[i] = i + 1;
  for (int t = 0; t < 4; ++t) {  // cars, flights, rooms, customers
    for (long i = 0; i < relations; ++i) {
      long x = long((*random)() % (unsigned long)relations), y = long((*random)() % (unsigned long)relations);
      long swap = ids[x];
      ids[x] = ids[y];
      ids[y] = swap;
    }
    for (long i = 0; i < relations; ++i) {
      long num = long((*random)() % 5 + 1) * 100;
      long price = long((*random)() % 5) * 10 + 50;
      if (t == 3) add_customer(*m, ids[i]);
      else add_reservation(m->table(t == 0 ? kCar : t == 1 ? kFlight : kRoom), ids[i], num, price);
    }
  }
  stamp_random_delete(random);
  free(ids);
  return m;
}

// Counts add up and the customers' infos match the records' used counts.
bool consistent(Manager& m, long relations, long query_range, long& held) {
  long used = 0;
  held = 0;
  for (int kind : {int(kCar), int(kFlight), int(kRoom)})
    for (long id = 1; id <= relations; ++id)
      if (Reservation* r = m.table(kind)->find(id)) {
        if (r->used < 0 || r->free < 0 || r->used + r->free != r->total || r->price < 0) return false;
        used += r->used;
      }
  for (long id = 1; id <= query_range + 1; ++id)
    if (Customer* c = m.customers->find(id))
      for (InfoList::Node* n = c->infos->head.next; n; n = n->next) {
        if (!m.table(n->data->kind)->find(n->data->id)) return false;
        ++held;
      }
  bool trees_valid = m.customers->tree.valid();
  for (Map<Reservation>* table : m.tables) trees_valid = trees_valid && table->tree.valid();
  return used == held && trees_valid;
}

// STAMP's checkTables: every entry leaves its map (the tree node is freed,
// the record is not: remembered in `leaked`, with a customer's list).
void check_tables(Manager& m, long relations, long query_range, NeverFreed& leaked_customers, NeverFreed& leaked) {
  for (long id = 1; id <= query_range + 1; ++id)
    if (Customer* c = m.customers->find(id)) {
      leaked_customers.add(c);
      m.customers->tree.remove(id);
    }
  for (int kind : {int(kCar), int(kFlight), int(kRoom)}) {
    Map<Reservation>* table = m.table(kind);
    for (long id = 1; id <= relations; ++id)
      if (Reservation* r = table->find(id)) {
        leaked.add(r);
        // STAMP adds it again with 0 stock and price 0 (validating it), then removes it.
        if (r->total == 0) table->tree.remove(id);
        else r->price = 0;
        table->tree.remove(id);
      }
  }
}

}  // namespace

VacationResult run(const VacationConfig& c) {
  constexpr long kMaxClients = 1024;  // --threads' bound
  VacationResult result;
  const long clients_count = c.threads;
  const long query_range = long(double(c.query_percent) / 100.0 * double(c.relations) + 0.5);
  // Bounds on what STAMP leaks: the records and customers, a client's arrays and
  // generator, and an info per reservation attempt.
  NeverFreed leaked(std::size_t(3 * c.relations + 3 * c.transactions + 5 * clients_count + 8));
  NeverFreed leaked_customers(std::size_t(c.relations + 2));

  Manager* m = nullptr;
  {
    memprof::scope scope("setup");
    m = initialize_manager(c.relations, c.seed);
  }
  leaked.add(m);  // manager_free frees the maps, not the manager

  // initializeClients: a generator drawn from nowhere, freed again; the clients.
  StampRandom* unused = stamp_random_new();
  Client** clients = static_cast<Client**>(malloc(std::size_t(clients_count) * sizeof(Client*)));
  leaked.add(clients);
  const long per_client = long(double(c.transactions) / double(clients_count) + 0.5);
  for (long i = 0; i < clients_count; ++i) {
    clients[i] = static_cast<Client*>(malloc(sizeof(Client)));
    StampRandom* random = stamp_random_new();
    random->mt.seed(static_cast<std::mt19937::result_type>(i + long(c.seed) - 1));  // STAMP: the client's id
    leaked.add(random);  // client_free frees the client only
    *clients[i] = Client{i, m, random, per_client, c.queries, query_range, c.user_percent};
  }
  stamp_random_delete(unused);
  StampThreadBlocks pool = stamp_thread_startup(clients_count);

  memprof::phase_begin();
  Tally tallies[kMaxClients];
  auto start = std::chrono::steady_clock::now();
  if (clients_count == 1) {
    client_run(clients[0], leaked, tallies[0]);
    ::allocstamp::tm::publish_thread_counts();
  } else {
    memprof::region parallel(MEMPROF_PAR);
    std::vector<std::thread> others;
    for (long i = 1; i < clients_count; ++i)
      others.emplace_back([&, i] {
        client_run(clients[i], leaked, tallies[std::size_t(i)]);
        ::allocstamp::tm::publish_thread_counts();
      });
    client_run(clients[0], leaked, tallies[0]);
    ::allocstamp::tm::publish_thread_counts();
    for (auto& t : others) t.join();
  }
  result.elapsed_ns = uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  for (const Tally& t : tallies) result.made += t.made, result.deleted += t.deleted, result.updates += t.updates;
  result.consistent = consistent(*m, c.relations, query_range, result.reservations);

  check_tables(*m, c.relations, query_range, leaked_customers, leaked);
  for (long id = query_range + 2; id <= c.relations; ++id)  // beyond the check's range: left in the map
    if (Customer* customer = m->customers->find(id)) leaked_customers.add(customer);
  for (long i = 0; i < clients_count; ++i) free(clients[i]);
  for (Map<Reservation>* table : m->tables) Map<Reservation>::destroy(table);
  Map<Customer>::destroy(m->customers);
  stamp_thread_shutdown(pool);
  memprof::phase_end();

  // What STAMP leaves live at exit.
  for (std::size_t i = 0; i < leaked_customers.size(); ++i) {
    Customer* customer = static_cast<Customer*>(leaked_customers[i]);
    for (InfoList::Node* n = customer->infos->head.next; n; n = n->next) free(n->data);
    InfoList::destroy(customer->infos);
  }
  leaked_customers.free_all();
  leaked.free_all();
  return result;
}

}  // namespace allocstamp::stamp::ALLOCSTAMP_TM_BUILD
