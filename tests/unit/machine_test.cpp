// machine_test — the machine's state around a run (machine.h): the share of
// the machine other processes and the hypervisor took, from /proc/stat ticks
// against the run's own CPU time, and the one rule for a busy run.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "run/machine.h"

namespace allocstamp {
namespace {

CpuTicks ticks(uint64_t busy, uint64_t steal) {
  CpuTicks t;
  t.busy = busy;
  t.steal = steal;
  t.known = true;
  return t;
}

TEST(MachineShare, IsTheOthersBusyTimeAndTheStealOverWallTimesCores) {
  // 1 s on 2 cores at 100 ticks/s: 200 ticks of machine time. 130 busy ticks
  // (1.3 s), 0.8 s of them the run's own: 0.5 s others = 25%; 30 ticks stolen = 15%.
  MachineShare s = machine_share(ticks(1000, 50), ticks(1130, 80), 0.8, 1.0, 2, 100);
  EXPECT_NEAR(s.others_cpu_pct, 25.0, 1e-9);
  EXPECT_NEAR(s.steal_pct, 15.0, 1e-9);
}

TEST(MachineShare, StaysWithinTheMachine) {
  // The run's own time measured by wait4 to the nanosecond, the machine's in
  // ticks: the difference can fall below 0, never the share.
  EXPECT_EQ(machine_share(ticks(0, 0), ticks(50, 0), 0.7, 1.0, 2, 100).others_cpu_pct, 0.0);
  EXPECT_EQ(machine_share(ticks(0, 0), ticks(500, 0), 0.0, 1.0, 2, 100).others_cpu_pct, 100.0);
}

TEST(MachineShare, IsUnknownForAShortRunOrAnUnreadStat) {
  // 50 ms on 2 cores is 10 ticks of machine time: one tick would be 10%.
  EXPECT_TRUE(std::isnan(machine_share(ticks(0, 0), ticks(2, 0), 0.0, 0.05, 2, 100).others_cpu_pct));
  EXPECT_FALSE(std::isnan(machine_share(ticks(0, 0), ticks(2, 0), 0.0, 0.1, 2, 100).others_cpu_pct)) << "20 ticks";
  CpuTicks unread;
  EXPECT_TRUE(std::isnan(machine_share(unread, ticks(2, 0), 0.0, 1.0, 2, 100).steal_pct));
}

TEST(MachineShare, ReadsThisMachine) {
  const CpuTicks now = cpu_ticks();
  ASSERT_TRUE(now.known) << "/proc/stat has a cpu line";
  EXPECT_GT(now.busy, 0u);
  EXPECT_GE(load_average(), 0.0);
}

TEST(BusyRun, IsMoreThanAQuarterToOthersOrMoreThanATenthStolen) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(busy_run(25.0, 10.0)) << "the limits themselves are not busy";
  EXPECT_TRUE(busy_run(25.1, 0.0));
  EXPECT_TRUE(busy_run(0.0, 10.1));
  EXPECT_FALSE(busy_run(nan, nan)) << "unknown is not busy";
  EXPECT_TRUE(busy_run(nan, 50.0));
  EXPECT_TRUE(busy_run(50.0, nan));
}

}  // namespace
}  // namespace allocstamp
