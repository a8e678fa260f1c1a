// statistics_test — hand-computed checks of allocstamp::stats: summary, the
// Student t table, MAD outliers, the delta-method ratio of means and the
// Mann-Whitney U-test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "model/statistics.h"

namespace allocstamp::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(Summarize, TextbookSample) {
  // {2,4,4,4,5,5,7,9}: sum 40 -> mean 5; sorted middle pair (4,5) -> median
  // 4.5; squared deviations 9+1+1+1+0+0+4+16 = 32 -> s = sqrt(32/7) =
  // 2.1380899; half width = t(7) * s / sqrt(8) = 2.3646243 * 0.7559289 = 1.7874879.
  const std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
  const Summary s = summarize(v);
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(32.0 / 7.0));
  EXPECT_NEAR(s.stddev, 2.13809, 1e-5);
  const double half = 2.3646242510102993 * std::sqrt(32.0 / 7.0) / std::sqrt(8.0);
  EXPECT_NEAR(half, 1.7874879, 1e-6);
  EXPECT_NEAR(s.ci_low, 5.0 - half, 1e-9);
  EXPECT_NEAR(s.ci_high, 5.0 + half, 1e-9);
}

TEST(Summarize, OddCountMedianIsMiddleValue) {
  // Sorted {1,3,8}: median 3; mean 12/3 = 4.
  const std::vector<double> v = {8, 1, 3};
  const Summary s = summarize(v);
  EXPECT_EQ(s.n, 3u);
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.mean, 4.0);
}

TEST(Summarize, LargeOffsetKeepsPrecision) {
  // {4,7,13,16}: mean 10, squared deviations 36+9+9+36 = 90 -> s = sqrt(30)
  // = 5.4772256. Shifted by 1e9 the squares are ~1e18 (ulp 128), so the
  // mean-of-squares formula would lose every digit; two passes do not.
  const std::vector<double> v = {1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16};
  const Summary s = summarize(v);
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 1e9 + 10);
  EXPECT_DOUBLE_EQ(s.median, 1e9 + 10);
  EXPECT_NEAR(s.stddev, std::sqrt(30.0), 1e-6);
  EXPECT_NEAR(s.stddev, 5.4772256, 1e-6);
}

TEST(Summarize, Empty) {
  const Summary s = summarize(std::span<const double>{});
  EXPECT_EQ(s.n, 0u);
  EXPECT_TRUE(std::isnan(s.mean));
  EXPECT_TRUE(std::isnan(s.median));
  EXPECT_TRUE(std::isnan(s.stddev));
  EXPECT_TRUE(std::isnan(s.ci_low));
  EXPECT_TRUE(std::isnan(s.ci_high));
}

TEST(Summarize, AllNaNIsEmpty) {
  const std::vector<double> v = {kNaN, kNaN};
  const Summary s = summarize(v);
  EXPECT_EQ(s.n, 0u);
  EXPECT_TRUE(std::isnan(s.mean));
}

TEST(Summarize, SingleValue) {
  const std::vector<double> v = {3.25};
  const Summary s = summarize(v);
  EXPECT_EQ(s.n, 1u);
  EXPECT_DOUBLE_EQ(s.mean, 3.25);
  EXPECT_DOUBLE_EQ(s.median, 3.25);
  EXPECT_DOUBLE_EQ(s.stddev, 0.0);
  EXPECT_TRUE(std::isnan(s.ci_low));
  EXPECT_TRUE(std::isnan(s.ci_high));
}

TEST(Summarize, NaNIgnored) {
  // Finite values {1,2,3,4}: n 4, mean 2.5, median 2.5, s = sqrt(5/3)
  // (squared deviations 2.25+0.25+0.25+2.25 = 5).
  const std::vector<double> v = {1, kNaN, 2, 3, kNaN, 4};
  const Summary s = summarize(v);
  EXPECT_EQ(s.n, 4u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(5.0 / 3.0));
  const double half = 3.1824463052842638 * std::sqrt(5.0 / 3.0) / 2.0;  // t(3)
  EXPECT_NEAR(s.ci_low, 2.5 - half, 1e-9);
  EXPECT_NEAR(s.ci_high, 2.5 + half, 1e-9);
}

TEST(TQuantile, TableSpotChecks) {
  EXPECT_TRUE(std::isnan(t_quantile_975(0)));
  // Published to more places: t(1) = 12.7062047, t(10) = 2.2281389, t(30) = 2.0422725.
  EXPECT_NEAR(t_quantile_975(1), 12.7062047, 1e-6);
  EXPECT_NEAR(t_quantile_975(10), 2.2281389, 1e-6);
  EXPECT_NEAR(t_quantile_975(30), 2.0422725, 1e-6);
}

TEST(TQuantile, LargeDofApproximation) {
  // Published values: t(40) = 2.021, t(60) = 2.000, t(120) = 1.980,
  // t(1000) = 1.962, t(inf) = 1.959964.
  EXPECT_NEAR(t_quantile_975(40), 2.021, 1e-3);
  EXPECT_NEAR(t_quantile_975(60), 2.000, 1e-3);
  EXPECT_NEAR(t_quantile_975(120), 1.980, 1e-3);
  EXPECT_NEAR(t_quantile_975(1000), 1.962, 0.005);
  EXPECT_NEAR(t_quantile_975(std::size_t(1) << 40), 1.959964, 1e-6);
  // Continues the table without a jump and decreases monotonically.
  EXPECT_LT(t_quantile_975(31), t_quantile_975(30));
  EXPECT_NEAR(t_quantile_975(31), 2.0395, 1e-3);
  for (std::size_t dof = 1; dof < 500; ++dof)
    EXPECT_GT(t_quantile_975(dof), t_quantile_975(dof + 1)) << dof;
}

// Two modes (issue 58): runs alternating between 15-17 and 27-29 ms are found,
// with their groups; one spread of runs, four runs, or modes close together are not.
TEST(TwoModes, RunsInTwoGroupsFarApartAreFound) {
  const std::vector<double> alternating{27e6, 15e6, 28e6, 16e6, 17e6, 29e6};
  const TwoModes m = two_modes(alternating);
  ASSERT_TRUE(m.found);
  EXPECT_EQ(m.low_min, 15e6);
  EXPECT_EQ(m.low_max, 17e6);
  EXPECT_EQ(m.high_min, 27e6);
  EXPECT_EQ(m.high_max, 29e6);
  EXPECT_EQ(m.n_low, 3);
  EXPECT_EQ(m.n_high, 3);
  EXPECT_FALSE(two_modes(std::vector<double>{15e6, 16e6, 17e6, 18e6, 19e6}).found) << "one spread";
  EXPECT_FALSE(two_modes(std::vector<double>{15e6, 16e6, 27e6, 28e6}).found) << "four runs say too little";
  EXPECT_FALSE(two_modes(std::vector<double>{10e6, 10.1e6, 10.2e6, 11.5e6, 11.6e6}).found)
      << "a gap wide against the spread, but the modes 1.14 times apart: noise of a quiet machine";
  EXPECT_FALSE(two_modes(std::vector<double>{10e6, 13e6, 16e6, 21e6, 26e6}).found) << "the gap no wider than the spread";
  EXPECT_FALSE(two_modes(std::vector<double>{10e6, 10.1e6, 10.2e6, 10.3e6, 30e6}).found) << "one outlier is no mode";
}

TEST(MadOutliers, SingleFarValue) {
  // Sorted: 9.9 9.95 10 10.05 10.1 30 -> median 10.025. |x - median|:
  // .025 .075 .125 .025 .075 19.975 -> MAD = (.075 + .075)/2 = .075.
  // M(30) = 0.6745 * 19.975 / .075 = 179.6; the largest other |M| is
  // M(9.9) = 0.6745 * .125 / .075 = 1.12.
  const std::vector<double> v = {10, 10.1, 9.9, 10.05, 9.95, 30};
  EXPECT_EQ(mad_outliers(v), std::vector<std::size_t>{5});
}

TEST(MadOutliers, AllEqualHasNone) {
  const std::vector<double> v = {7, 7, 7, 7, 7};
  EXPECT_TRUE(mad_outliers(v).empty());
}

TEST(MadOutliers, NaNIgnoredAndIndicesKept) {
  // Same sample as above with NaNs interleaved: 30 sits at index 7.
  const std::vector<double> v = {kNaN, 10, 10.1, kNaN, 9.9, 10.05, 9.95, 30};
  EXPECT_EQ(mad_outliers(v), std::vector<std::size_t>{7});
  EXPECT_TRUE(mad_outliers(std::span<const double>{}).empty());
}

TEST(MadOutliers, ThresholdIsRespected) {
  // With threshold 1.0 the point 9.9 (|M| = 1.12) also counts.
  const std::vector<double> v = {10, 10.1, 9.9, 10.05, 9.95, 30};
  EXPECT_EQ(mad_outliers(v, 1.0), (std::vector<std::size_t>{2, 5}));
}

TEST(LogEstimate, GeometricMeanWithTheLogsInterval) {
  // Logs {0, 1, 2}: mean 1, s = 1; half width t(2) / sqrt(3) = 4.3026527 / 1.7320508 = 2.4841377.
  const std::vector<double> v = {1, std::exp(1.0), std::exp(2.0), kNaN, 0, -3};  // NaN and values <= 0 are left out
  const LogEstimate e = log_estimate(v);
  EXPECT_EQ(e.n, 3u);
  EXPECT_NEAR(e.log_mean, 1.0, 1e-12);
  EXPECT_NEAR(e.center, std::exp(1.0), 1e-12);
  EXPECT_NEAR(e.low, std::exp(1.0 - 2.4841377), 1e-6);
  EXPECT_NEAR(e.high, std::exp(1.0 + 2.4841377), 1e-6);
  const LogEstimate one = log_estimate(std::vector<double>{5});
  EXPECT_DOUBLE_EQ(one.center, 5);
  EXPECT_TRUE(std::isnan(one.low));
  EXPECT_EQ(log_estimate(std::vector<double>{}).n, 0u);
}

TEST(LogRatio, PairedByRepetition) {
  // a / b per repetition: 2, 4, 8; logs ln2 * {1, 2, 3}: mean 2 ln2 (ratio 4), s = ln2.
  const std::vector<Sample> a = {{1, 2}, {2, 4}, {3, 8}}, b = {{1, 1}, {2, 1}, {3, 1}};
  const Ratio r = log_ratio(a, b);
  const double half = 4.302652729911275 * std::log(2.0) / std::sqrt(3.0);
  EXPECT_NEAR(r.value, 4.0, 1e-12);
  EXPECT_NEAR(r.ci_low, 4.0 * std::exp(-half), 1e-9);
  EXPECT_NEAR(r.ci_high, 4.0 * std::exp(half), 1e-8);
  // The same shift in every repetition: no spread at all.
  const std::vector<Sample> twice = {{1, 2}, {2, 4}, {3, 8}}, base = {{1, 1}, {2, 2}, {3, 4}};
  const Ratio exact = log_ratio(twice, base);
  EXPECT_NEAR(exact.value, 2.0, 1e-12);
  EXPECT_NEAR(exact.ci_low, 2.0, 1e-12);
  EXPECT_NEAR(exact.ci_high, 2.0, 1e-12);
}

TEST(LogRatio, UnpairedIsWelchOnTheLogsAndAlwaysTheQuotientOfTheCentres) {
  // Other repetitions: Welch. Logs of a ln2 * {1, 2, 3} (variance ln2^2), of b {0, ln2, 0} (variance ln2^2 / 3).
  const std::vector<Sample> a = {{1, 2}, {2, 4}, {3, 8}}, b = {{4, 1}, {5, 2}, {6, 1}};
  const Ratio r = log_ratio(a, b);
  const double la = std::log(2.0), va = la * la / 3, vb = la * la / 3 / 3, se2 = va + vb;
  const double dof = se2 * se2 / (va * va / 2 + vb * vb / 2);
  EXPECT_NEAR(r.value, log_estimate(std::vector<double>{2, 4, 8}).center / log_estimate(std::vector<double>{1, 2, 1}).center,
              1e-12);
  EXPECT_NEAR(dof, 3.2, 1e-12);
  // The half width on the log scale is Student's t at 3.2 degrees of freedom
  // (not rounded to 3) times the standard error: t(0.975, 3.2) =
  // 3.07282892971316 (mpmath, the t CDF through the regularized incomplete beta).
  EXPECT_NEAR(std::log(r.ci_high / r.value), 3.07282892971316357 * std::sqrt(se2), 1e-9);
  EXPECT_NEAR(std::log(r.ci_high / r.value), 1.41994847264914246, 1e-9);
  EXPECT_LT(r.ci_low, r.value);
  EXPECT_GT(r.ci_high, r.value);
  EXPECT_NEAR(std::log(r.ci_high / r.value), std::log(r.value / r.ci_low), 1e-12) << "symmetric on the log scale";
  const Ratio one = log_ratio(std::vector<Sample>{{1, 3}}, b);
  EXPECT_TRUE(std::isnan(one.ci_low));
  EXPECT_EQ(std::string(ratio_side(r)), r.ci_high < 1 ? "below" : r.ci_low > 1 ? "above" : "within");
  EXPECT_EQ(std::string(ratio_side(one)), "");
}

// Welch's test against values computed apart (mpmath): x {1, 2, 3}, y {0, 1, 0}:
// t = (1/3 - 2) / (2/3) = -2.5 at 3.2 degrees of freedom, two-sided p 0.08244.
TEST(Welch, TheStatisticDegreesOfFreedomAndPAreStudentsAtTheSatterthwaiteDof) {
  const std::vector<double> x = {1, 2, 3}, y = {0, 1, 0};
  const WelchTest w = welch(x, y);
  EXPECT_NEAR(w.t, -2.5, 1e-12);
  EXPECT_NEAR(w.dof, 3.2, 1e-12);
  EXPECT_NEAR(w.p, 0.0824417371617475, 1e-9);
  // What it detects at alpha 0.05, power 0.8: (t(0.975) + t(0.8)) at 3.2 dof times the error 2/3.
  EXPECT_NEAR(welch_detectable(x, y, 0.05), (3.07282892971316357 + 0.96887959264182641) * 2.0 / 3.0, 1e-9);
}

// A variance the samples do not show (the scatter between sweeps) adds to the
// standard error and joins the Satterthwaite sum. The same x and y with 5/9
// more at 4 degrees of freedom: error 1, t = -5/3, dof 1 / ((1/3)^2/2 +
// (1/9)^2/2 + (5/9)^2/4) = 7.2, two-sided p 0.13833 (mpmath).
TEST(Welch, AnExtraVarianceWidensTheErrorAndJoinsTheDegreesOfFreedom) {
  const std::vector<double> x = {1, 2, 3}, y = {0, 1, 0};
  const WelchTest w = welch(x, y, ExtraVariance{5.0 / 9.0, 4.0});
  EXPECT_NEAR(w.t, -5.0 / 3.0, 1e-12);
  EXPECT_NEAR(w.dof, 7.2, 1e-12);
  EXPECT_NEAR(w.p, 0.138327621958807, 1e-9);
  EXPECT_GT(welch_detectable(x, y, 0.05, 0.8, ExtraVariance{5.0 / 9.0, 4.0}), welch_detectable(x, y, 0.05));
  EXPECT_TRUE(std::isnan(welch(x, y, ExtraVariance{-1.0, 4.0}).p)) << "a negative variance is no estimate";
}

// A scatter with heavy tails (bench check's between sweeps): the test's
// degrees of freedom are capped at tail_dof (7.2 above, 3 here), its p is
// Student's at 3 dof (computed apart with mpmath: 0.194171345612059), and what
// it can detect widens; a cap above the Satterthwaite dof changes nothing.
TEST(Welch, AHeavyTailCapsTheDegreesOfFreedom) {
  const std::vector<double> x = {1, 2, 3}, y = {0, 1, 0};
  const WelchTest w = welch(x, y, ExtraVariance{5.0 / 9.0, 4.0, 3.0});
  EXPECT_NEAR(w.t, -5.0 / 3.0, 1e-12);
  EXPECT_NEAR(w.dof, 3.0, 1e-12);
  EXPECT_NEAR(w.p, 0.194171345612059, 1e-9);
  EXPECT_GT(welch_detectable(x, y, 0.05, 0.8, ExtraVariance{5.0 / 9.0, 4.0, 3.0}),
            welch_detectable(x, y, 0.05, 0.8, ExtraVariance{5.0 / 9.0, 4.0}));
  EXPECT_NEAR(welch(x, y, ExtraVariance{5.0 / 9.0, 4.0, 100.0}).dof, 7.2, 1e-12);
}

// The sign test, two-sided and exact: 9 up, 1 down is 2 (1 + 10) / 1024; 45
// of 45 up is 2 / 2^45; an even split or no change at all is 1.
TEST(SignTest, ExactTwoSidedBinomialTail) {
  EXPECT_NEAR(sign_test_p(9, 1), 0.021484375, 1e-15);
  EXPECT_NEAR(sign_test_p(1, 9), 0.021484375, 1e-15);
  EXPECT_NEAR(sign_test_p(45, 0) / (2.0 / 35184372088832.0), 1.0, 1e-9);
  EXPECT_EQ(sign_test_p(5, 5), 1.0);
  EXPECT_EQ(sign_test_p(0, 0), 1.0);
}

TEST(MannWhitney, ExactForSmallSamplesWithoutTies) {
  // 3 vs 3 fully separated: U = 0, one arrangement of C(6, 3) = 20 on each
  // tail -> p = 2/20.
  const std::vector<double> low3 = {1, 2, 3}, high3 = {4, 5, 6};
  UTest t = mann_whitney(low3, high3);
  EXPECT_TRUE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 0.0);
  EXPECT_NEAR(t.p, 0.1, 1e-15);
  EXPECT_DOUBLE_EQ(mann_whitney(high3, low3).u, 9.0);
  EXPECT_NEAR(mann_whitney(high3, low3).p, 0.1, 1e-15);
  // 5 vs 5 fully separated: p = 2 / C(10, 5) = 2/252.
  const std::vector<double> low5 = {10, 11, 12, 13, 14}, high5 = {20, 21, 22, 23, 24};
  EXPECT_NEAR(mann_whitney(low5, high5).p, 2.0 / 252.0, 1e-15);
  // {1,2,4} vs {3,5,6}: U = 1 (4 > 3). U's counts for 3 vs 3 are
  // 1,1,2,3,3,3,3,2,1,1 -> P(U <= 1) = 2/20, p = 0.2.
  const std::vector<double> x = {1, 2, 4}, y = {3, 5, 6};
  t = mann_whitney(x, y);
  EXPECT_DOUBLE_EQ(t.u, 1.0);
  EXPECT_NEAR(t.p, 0.2, 1e-15);
  // U at the centre of the distribution: p = 1.
  const std::vector<double> a = {1, 4, 5, 8}, b = {2, 3, 6, 7};
  EXPECT_DOUBLE_EQ(mann_whitney(a, b).p, 1.0);
}

TEST(MannWhitney, ExactWithTiesForSmallSamples) {
  // x = {1.1 .. 6.6}, y = {3.3, 5.5, 7.7, 8.8, 9.9, 10, 11}: two tied pairs.
  // U = 3 + 4 + 0.5 + 0.5 (x's 4.4 beats 3.3; 5.5 beats 3.3 and ties 5.5;
  // 3.3 ties 3.3; 6.6 beats 3.3 and 5.5) = 5. Of the C(13, 6) = 1716 ways to
  // split the pooled mid-ranks, 34 are at least as far from the mean 21:
  // p = 34 / 1716 (the normal approximation would say 0.0264).
  const std::vector<double> x = {1.1, 2.2, 3.3, 4.4, 5.5, 6.6}, y = {3.3, 5.5, 7.7, 8.8, 9.9, 10.0, 11.0};
  const UTest t = mann_whitney(x, y);
  EXPECT_TRUE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 5.0);
  EXPECT_NEAR(t.p, 34.0 / 1716.0, 1e-12);
  // Three equal values against three other equal values: memory figures often
  // look like this. The smallest p 3 vs 3 can give is 2/20, tied or not.
  const std::vector<double> low = {10000, 10000, 10000}, high = {10600, 10600, 10600};
  EXPECT_NEAR(mann_whitney(low, high).p, 0.1, 1e-12);
  const std::vector<double> low4 = {10000, 10000, 10000, 10000}, high4 = {10600, 10600, 10600, 10600};
  EXPECT_NEAR(mann_whitney(low4, high4).p, 2.0 / 70.0, 1e-12);
  // All values equal: no evidence either way.
  const std::vector<double> same = {7, 7, 7};
  EXPECT_DOUBLE_EQ(mann_whitney(same, same).p, 1.0);
}

TEST(MannWhitney, NormalApproximationWithTiesForLargerSamples) {
  // 15 vs 15 (C(30, 15) splits: too many to count), values 0..6 and 2..8 with
  // ties: U = 59, mean 112.5, sum(t^3 - t) = 402, var = 225/12 * (31 - 402/870)
  // = 572.586207; z = (53.5 - 0.5) / sqrt(var) = 2.2149067 -> p = 0.0267665.
  std::vector<double> x, y;
  for (int i = 0; i < 15; ++i) x.push_back(i % 7), y.push_back(i % 7 + 2);
  const UTest t = mann_whitney(x, y);
  EXPECT_FALSE(t.exact);
  EXPECT_DOUBLE_EQ(t.u, 59.0);
  EXPECT_NEAR(t.p, 0.0267665, 1e-7);
}

TEST(MannWhitney, NormalApproximationForLargeSamples) {
  // 25 vs 25 fully separated: mean 312.5, var 25*25*51/12 = 2656.25,
  // z = 312 / 51.538822 = 6.0536892 -> p = 1.41566e-9.
  std::vector<double> low, high;
  for (int i = 0; i < 25; ++i) low.push_back(i), high.push_back(100 + i);
  UTest t = mann_whitney(low, high);
  EXPECT_FALSE(t.exact);
  EXPECT_NEAR(t.p / 1.4156562e-9, 1.0, 1e-6);
  // 21 vs 21 interleaved: U = 210, mean 220.5, var 21*21*43/12 = 1580.25,
  // z = 10 / 39.752 = 0.2515574 -> p = 0.8013832.
  std::vector<double> even, odd;
  for (int i = 0; i < 21; ++i) even.push_back(2 * i), odd.push_back(2 * i + 1);
  t = mann_whitney(even, odd);
  EXPECT_DOUBLE_EQ(t.u, 210.0);
  EXPECT_NEAR(t.p, 0.8013832, 1e-7);
}

TEST(MannWhitney, EmptySampleAndSmallestP) {
  const std::vector<double> none, some = {1, 2};
  EXPECT_TRUE(std::isnan(mann_whitney(none, some).p));
  const std::vector<double> with_nan = {1, kNaN, 2, 3}, high = {4, 5, 6};
  EXPECT_NEAR(mann_whitney(with_nan, high).p, 0.1, 1e-15) << "NaN values are ignored";
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(3, 3), 0.1);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(4, 4), 2.0 / 70.0);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(5, 5), 2.0 / 252.0);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(1, 1), 1.0);
  EXPECT_DOUBLE_EQ(mann_whitney_min_p(0, 5), 1.0);
}

// Welch's t for x = {1,2,3,4,5} (mean 3, s^2 2.5) against y = {3,4,5,6,7,8}
// (mean 5.5, s^2 3.5): se^2 = 0.5 + 0.5833333 = 1.0833333, t = 2.5 / 1.0408330
// = 2.4019223, dof = 1.0833333^2 / (0.25/4 + 0.3402778/5) = 8.9894, p = 0.0398
// (the t density integrated numerically gives p = 0.039803).
TEST(Welch, KnownSample) {
  const std::vector<double> x = {1, 2, 3, 4, 5}, y = {3, 4, 5, 6, 7, 8};
  WelchTest w = welch(x, y);
  EXPECT_NEAR(w.t, 2.4019223, 1e-6);
  EXPECT_NEAR(w.dof, 8.9894, 1e-3);
  EXPECT_NEAR(w.p, 0.03981, 1e-4);
  const std::vector<double> one = {1};
  EXPECT_TRUE(std::isnan(welch(one, y).p));
  const std::vector<double> flat = {2, 2, 2};
  EXPECT_EQ(welch(flat, flat).p, 1.0);
  // Two flat samples that differ: certain, and t's sign is the direction of y
  // against x (a figure that fell is never read as one that rose).
  const std::vector<double> low = {3, 3, 3}, high = {5, 5};
  EXPECT_EQ(welch(high, low).t, -INFINITY);
  EXPECT_EQ(welch(low, high).t, INFINITY);
  EXPECT_EQ(welch(high, low).p, 0.0);
}

// By hand (R's p.adjust(p, "BH") rule): 0.005 * 4/1, 0.01 * 4/2, 0.03 * 4/3, 0.04 * 4/4, each the least from its rank up: 0.02 0.04 0.04 0.02.
TEST(BenjaminiHochberg, KnownPValues) {
  const std::vector<double> p = {0.01, 0.04, 0.03, 0.005, std::nan("")};
  std::vector<double> q = benjamini_hochberg(p);
  EXPECT_NEAR(q[0], 0.02, 1e-12);
  EXPECT_NEAR(q[1], 0.04, 1e-12);
  EXPECT_NEAR(q[2], 0.04, 1e-12);
  EXPECT_NEAR(q[3], 0.02, 1e-12);
  EXPECT_TRUE(std::isnan(q[4]));
}

// Nine values: the 2nd lowest and 2nd highest hold the median with probability
// 1 - 2 (1 + 9) / 512 = 0.9609; the 3rd would give 0.8203, below 0.95.
TEST(MedianInterval, OrderStatisticsWithTheirCoverage) {
  std::vector<double> nine = {9, 1, 8, 2, 7, 3, 6, 4, 5};
  MedianInterval m = median_interval(nine);
  EXPECT_EQ(m.low, 2);
  EXPECT_EQ(m.high, 8);
  EXPECT_NEAR(m.coverage, 1 - 2 * 10.0 / 512, 1e-12);
  // Too few values for 95%: the range, with what it covers (two values: a half).
  std::vector<double> two = {3, 1};
  MedianInterval r = median_interval(two);
  EXPECT_EQ(r.low, 1);
  EXPECT_EQ(r.high, 3);
  EXPECT_DOUBLE_EQ(r.coverage, 0.5);
  // 15 values: the 4th from each end, 1 - 2 P(X <= 3) = 0.9648.
  std::vector<double> fifteen;
  for (int i = 1; i <= 15; ++i) fifteen.push_back(i);
  MedianInterval f = median_interval(fifteen);
  EXPECT_EQ(f.low, 4);
  EXPECT_EQ(f.high, 12);
  EXPECT_NEAR(f.coverage, 1 - 2 * (1 + 15 + 105 + 455) / 32768.0, 1e-12);
  std::vector<double> none = {std::nan("")};
  EXPECT_TRUE(std::isnan(median_interval(none).low));
}

// Issue 49, the property: over 1,000 synthetic folders of 300 comparisons
// (paired by repetition, 5 repetitions, log-normal noise of sd 0.05 per run;
// a fifth of them true differences of 10% to 50% either way), the standings a
// corrected family claims are false in at most 5% of them (the false discovery
// rate, averaged over the folders, and pooled); without the correction
// (per_comparison) about a fifth of the standings are false, far above it.
struct FolderTally {
  double mean_false_share = 0;  // mean over folders of (false standings / standings), 0 where none
  double pooled_false_share = 0;
  std::size_t standings = 0;
};

FolderTally false_standings(bool per_comparison) {
  std::mt19937_64 random(20261129);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::uniform_real_distribution<double> effect(std::log(1.10), std::log(1.50));
  constexpr int kFolders = 1000, kComparisons = 300, kReps = 5;
  double share_sum = 0;
  std::size_t all_false = 0, all_standings = 0;
  for (int folder = 0; folder < kFolders; ++folder) {
    std::vector<Ratio> ratios(kComparisons);
    std::vector<bool> truly(kComparisons);
    for (int i = 0; i < kComparisons; ++i) {
      truly[i] = i % 5 == 0;
      const double shift = truly[i] ? (i % 2 ? 1 : -1) * effect(random) : 0.0;
      std::vector<Sample> a, b;
      for (long rep = 1; rep <= kReps; ++rep) {
        const double drift = noise(random);  // the round's drift, shared by both sides (interleaved)
        a.push_back({rep, std::exp(drift + shift + noise(random))});
        b.push_back({rep, std::exp(drift + noise(random))});
      }
      ratios[i] = log_ratio(a, b);
    }
    std::vector<Ratio*> family;
    for (Ratio& r : ratios) family.push_back(&r);
    const FamilyCorrection f = correct_family(family, 0.05, per_comparison);
    std::size_t standings = 0, wrong = 0;
    for (int i = 0; i < kComparisons; ++i) {
      const std::string side = ratio_side(ratios[i]);
      if (side != "below" && side != "above") continue;
      ++standings;
      wrong += truly[i] ? 0 : 1;
    }
    // A standing and its interval never disagree: the selected count is the standings'.
    EXPECT_EQ(standings, per_comparison ? standings : f.selected) << "folder " << folder;
    share_sum += standings ? double(wrong) / double(standings) : 0.0;
    all_false += wrong;
    all_standings += standings;
  }
  return {share_sum / kFolders, double(all_false) / double(all_standings), all_standings};
}

TEST(Multiplicity, CorrectedFoldersClaimAtMostFivePercentFalseStandings) {
  const FolderTally corrected = false_standings(false);
  EXPECT_LE(corrected.mean_false_share, 0.05);
  EXPECT_LE(corrected.pooled_false_share, 0.05);
  EXPECT_GT(corrected.standings, 1000u * 20u) << "the true differences are found (power)";
  const FolderTally uncorrected = false_standings(true);
  std::printf("false standings: corrected %.4f of standings (mean over folders; pooled %.4f, %zu standings); "
              "uncorrected %.4f (pooled %.4f, %zu standings)\n",
              corrected.mean_false_share, corrected.pooled_false_share, corrected.standings,
              uncorrected.mean_false_share, uncorrected.pooled_false_share, uncorrected.standings);
  EXPECT_GT(uncorrected.mean_false_share, 0.10) << "without the correction the same folders claim many false standings";
}

// One comparison reads as without the correction: its interval stays at 95%.
TEST(Multiplicity, OneComparisonKeepsItsNinetyFivePercentInterval) {
  const std::vector<Sample> a = {{1, 8}, {2, 9}, {3, 10}}, b = {{1, 10}, {2, 11}, {3, 12}};
  Ratio r = log_ratio(a, b);
  const Ratio before = r;
  Ratio* family[] = {&r};
  const FamilyCorrection f = correct_family(family);
  EXPECT_EQ(f.m, 1u);
  EXPECT_DOUBLE_EQ(f.level, 0.95);
  EXPECT_DOUBLE_EQ(r.ci_low, before.ci_low);
  EXPECT_DOUBLE_EQ(r.ci_high, before.ci_high);
}

}  // namespace
}  // namespace allocstamp::stats
