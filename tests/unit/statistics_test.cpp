// statistics_test — hand-computed checks of allocstamp::stats: summary, the
// Student t table, MAD outliers and the delta-method ratio of means.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "statistics.h"

namespace allocstamp::stats {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(Summarize, TextbookSample) {
  // {2,4,4,4,5,5,7,9}: sum 40 -> mean 5; sorted middle pair (4,5) -> median
  // 4.5; squared deviations 9+1+1+1+0+0+4+16 = 32 -> s = sqrt(32/7) =
  // 2.1380899; half width = t(7) * s / sqrt(8) = 2.365 * 0.7559289 = 1.7877720.
  const std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
  const Summary s = summarize(v);
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(32.0 / 7.0));
  EXPECT_NEAR(s.stddev, 2.13809, 1e-5);
  const double half = 2.365 * std::sqrt(32.0 / 7.0) / std::sqrt(8.0);
  EXPECT_NEAR(half, 1.7877720, 1e-6);
  EXPECT_NEAR(s.ci_low, 5.0 - half, 1e-12);
  EXPECT_NEAR(s.ci_high, 5.0 + half, 1e-12);
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
  const double half = 3.182 * std::sqrt(5.0 / 3.0) / 2.0;
  EXPECT_NEAR(s.ci_low, 2.5 - half, 1e-12);
  EXPECT_NEAR(s.ci_high, 2.5 + half, 1e-12);
}

TEST(TQuantile, TableSpotChecks) {
  EXPECT_TRUE(std::isnan(t_quantile_975(0)));
  EXPECT_DOUBLE_EQ(t_quantile_975(1), 12.706);
  EXPECT_DOUBLE_EQ(t_quantile_975(10), 2.228);
  EXPECT_DOUBLE_EQ(t_quantile_975(30), 2.042);
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

TEST(RatioOfMeans, IdenticalSamples) {
  const std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
  const Summary s = summarize(v);
  const Ratio r = ratio_of_means(s, s);
  EXPECT_DOUBLE_EQ(r.value, 1.0);
  EXPECT_LT(r.ci_low, 1.0);
  EXPECT_GT(r.ci_high, 1.0);
  // se_rel = sqrt(2 * (s/5)^2 / 8) = (sqrt(32/7)/5) / 2 = 0.2138090;
  // t(7) = 2.365 -> half width 0.5056582.
  const double se_rel = std::sqrt(32.0 / 7.0) / 5.0 / 2.0;
  EXPECT_NEAR(r.ci_low, 1.0 - 2.365 * se_rel, 1e-12);
  EXPECT_NEAR(r.ci_high, 1.0 + 2.365 * se_rel, 1e-12);
}

TEST(RatioOfMeans, SingleValueGivesNaNInterval) {
  const std::vector<double> one = {4};
  const std::vector<double> many = {2, 4, 4, 4, 5, 5, 7, 9};
  const Ratio r = ratio_of_means(summarize(one), summarize(many));
  EXPECT_DOUBLE_EQ(r.value, 4.0 / 5.0);
  EXPECT_TRUE(std::isnan(r.ci_low));
  EXPECT_TRUE(std::isnan(r.ci_high));
}

TEST(RatioOfMeans, ZeroMeanGivesNaNInterval) {
  const std::vector<double> zero = {-1, 1};
  const std::vector<double> many = {2, 4, 4, 4, 5, 5, 7, 9};
  const Ratio r = ratio_of_means(summarize(zero), summarize(many));
  EXPECT_DOUBLE_EQ(r.value, 0.0);
  EXPECT_TRUE(std::isnan(r.ci_low));
  EXPECT_TRUE(std::isnan(r.ci_high));
}

}  // namespace
}  // namespace allocstamp::stats
