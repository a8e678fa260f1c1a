// plan_test — the order runs are made in: every allocator once in a round,
// the rounds' orders a Williams design, so that none always runs first after
// a change of thread count or kind, nor always right after another.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "plan/plan.h"

namespace allocstamp {
namespace {

// Over 2n rounds of an odd n (n of an even one) each allocator runs first
// after each change of thread count equally often, and right after each other
// allocator equally often (a Williams design).
TEST(Plan, NoAllocatorIsAlwaysFirstOrAlwaysRightAfterAnother) {
  for (const auto& names : {std::vector<const char*>{"glibc", "jemalloc"},
                            std::vector<const char*>{"glibc", "jemalloc", "twin"},
                            std::vector<const char*>{"glibc", "jemalloc", "tcmalloc", "mimalloc"}}) {
    const std::size_t n = names.size();
    Options options;
    options.reps = int(n % 2 ? 2 * n : n);
    options.threads = {1, 2};
    options.profile_reps = 0;
    Workload w;
    w.name = "churn";
    std::vector<Allocator> allocators;
    for (const char* name : names) {
      Allocator a;
      a.name = name;
      allocators.push_back(a);
    }
    const std::vector<allocstamp::Run> plan = make_plan(options, {w}, allocators);
    ASSERT_EQ(plan.size(), n * 2 * std::size_t(options.reps));
    std::map<std::string, int> first;                          // per thread count's block
    std::map<std::pair<std::string, std::string>, int> after;  // (previous, next) within a block
    std::set<std::string> keys;
    for (std::size_t i = 0; i < plan.size(); ++i) {
      const bool starts_block = i == 0 || plan[i].threads != plan[i - 1].threads || plan[i].rep != plan[i - 1].rep;
      if (starts_block) ++first[plan[i].allocator.name];
      else ++after[{plan[i - 1].allocator.name, plan[i].allocator.name}];
      EXPECT_EQ(plan[i].id, int(i) + 1);
      keys.insert(plan[i].key());
    }
    EXPECT_EQ(keys.size(), plan.size()) << "every run once";
    ASSERT_EQ(first.size(), n) << "each allocator first in some round";
    for (const auto& [name, times] : first) EXPECT_EQ(times, first.begin()->second) << name << " of " << n;
    ASSERT_EQ(after.size(), n * (n - 1)) << "each allocator right after each other one";
    for (const auto& [pair, times] : after)
      EXPECT_EQ(times, after.begin()->second) << pair.first << " then " << pair.second << " of " << n;
  }
}

// A precision round's runs follow the design too.
TEST(Plan, ARoundAfterThePlanHasItsRepetitionsOrder) {
  std::vector<allocstamp::Run> first_round(3);
  const char* const names[] = {"glibc", "jemalloc", "twin"};
  for (int i = 0; i < 3; ++i) first_round[i].allocator.name = names[i];
  auto order_of = [](const std::vector<allocstamp::Run>& runs) {
    std::string text;
    for (const allocstamp::Run& run : runs) text += run.allocator.name + " ";
    return text;
  };
  EXPECT_EQ(order_of(in_round_order(first_round, 1)), "glibc jemalloc twin ");
  EXPECT_EQ(order_of(in_round_order(first_round, 2)), "jemalloc twin glibc ");
  EXPECT_EQ(order_of(in_round_order(first_round, 4)), "twin jemalloc glibc ") << "an odd n: then backwards";
}

}  // namespace
}  // namespace allocstamp
