// trace_agreement_test — `bench trace record`'s judgement of a trace against
// memprof's record, on hand-made figures: equal passes; one past each bound
// (memprof's stated error on a peak, the load's slack per thread plus 1%, the
// threads' peak at most memprof's) differs; a figure memprof lacks is missing.
// The end-to-end tests only ever see agreement: these are the negative side.
#include <gtest/gtest.h>

#include "key_names.h"
#include "trace_agreement.h"

namespace allocstamp::trace {
namespace {

using How = FigureVerdict::How;

How verdict(const char* key, uint64_t trace, std::map<std::string, std::string> live) {
  const std::vector<FigureVerdict> v = judge_against_memprof(Figures{{key, trace}}, live);
  EXPECT_EQ(v.size(), 1u);
  return v.empty() ? How::missing : v[0].how;
}

TEST(TraceAgreement, AnExactFigureMustBeEqual) {
  EXPECT_EQ(verdict(keys::allocs_par_count, 4500, {{keys::allocs_par_count, "4500"}}), How::equal);
  EXPECT_EQ(verdict(keys::allocs_par_count, 4501, {{keys::allocs_par_count, "4500"}}), How::differs);
  EXPECT_EQ(verdict(keys::allocs_par_count, 4499, {{keys::allocs_par_count, "4500"}}), How::differs);
  EXPECT_EQ(verdict(keys::allocs_par_count, 4500, {}), How::missing);
}

TEST(TraceAgreement, APeakIsWithinMemprofsStatedErrorAndNoFurther) {
  const std::map<std::string, std::string> live = {{keys::heap_requested_peak_bytes, "10000"},
                                                   {keys::heap_peak_error_bytes, "100"}};
  EXPECT_EQ(verdict(keys::heap_requested_peak_bytes, 10100, live), How::within);
  EXPECT_EQ(verdict(keys::heap_requested_peak_bytes, 9900, live), How::within);
  EXPECT_EQ(verdict(keys::heap_requested_peak_bytes, 10101, live), How::differs);
  EXPECT_EQ(verdict(keys::heap_requested_peak_bytes, 9899, live), How::differs);
  // Without a stated error (one thread): exact.
  EXPECT_EQ(verdict(keys::heap_requested_peak_bytes, 10001, {{keys::heap_requested_peak_bytes, "10000"}}),
            How::differs);
  const auto v = judge_against_memprof(Figures{{keys::heap_requested_peak_bytes, 10050}}, live);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].bound, FigureVerdict::Bound::stated_error);
  EXPECT_DOUBLE_EQ(v[0].above, 100);
}

TEST(TraceAgreement, TheLoadIsWithinTheSlackPerThreadPlusOnePercent) {
  // Slack 1000 bytes x 2 threads + 1% of 10,000 + 1 = 2,101 either way.
  const std::map<std::string, std::string> live = {{keys::load_avg_bytes, "10000"},
                                                   {keys::peak_slack_bytes, "1000"},
                                                   {keys::threads_peak_count, "2"},
                                                   {keys::duration_ns, "50"}};
  EXPECT_EQ(verdict(keys::load_avg_bytes, 12101, live), How::within);
  EXPECT_EQ(verdict(keys::load_avg_bytes, 7899, live), How::within);
  EXPECT_EQ(verdict(keys::load_avg_bytes, 12102, live), How::differs);
  EXPECT_EQ(verdict(keys::load_avg_bytes, 7898, live), How::differs);
  // The total: the slack's 2,000 over the 50 ns, + 1% of 1,000,000 + 1 = 110,001.
  std::map<std::string, std::string> total = live;
  total[keys::load_total_byte_ns] = "1000000";
  EXPECT_EQ(verdict(keys::load_total_byte_ns, 1110001, total), How::within);
  EXPECT_EQ(verdict(keys::load_total_byte_ns, 1110002, total), How::differs);
}

TEST(TraceAgreement, TheTracesThreadPeakIsAtMostMemprofs) {
  const std::map<std::string, std::string> live = {{keys::threads_peak_count, "3"}};
  EXPECT_EQ(verdict(keys::threads_peak_count, 2, live), How::within);
  EXPECT_EQ(verdict(keys::threads_peak_count, 0, live), How::within);
  EXPECT_EQ(verdict(keys::threads_peak_count, 4, live), How::differs);
}

TEST(TraceAgreement, OneVerdictPerFigureInTheirOrder) {
  const Figures figures = {{keys::allocs_seq_count, 1}, {keys::frees_seq_count, 2}, {keys::reallocs_count, 3}};
  const auto v = judge_against_memprof(figures, {{keys::allocs_seq_count, "1"}, {keys::frees_seq_count, "3"}});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].how, How::equal);
  EXPECT_EQ(v[1].how, How::differs);
  EXPECT_EQ(v[2].how, How::missing);
  EXPECT_EQ(v[1].key, keys::frees_seq_count);
}

}  // namespace
}  // namespace allocstamp::trace
