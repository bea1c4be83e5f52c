// Change-point detection, KS test and level clustering against cases with known answers.
#include <gtest/gtest.h>

#include <random>

#include "analysis/core/stats.hpp"

using namespace memhier::analysis;

TEST(Ks, IdenticalSamplesDoNotReject) {
  std::vector<double> a{1, 2, 3, 4, 5, 6, 7, 8}, b = a;
  auto r = ks_two_sample(a, b);
  EXPECT_DOUBLE_EQ(r.d, 0);
  EXPECT_FALSE(r.reject);
}

TEST(Ks, SeparatedSamplesReject) {
  std::vector<double> a{1, 1, 1, 1, 1, 1}, b{5, 6, 7, 8, 9, 10};
  auto r = ks_two_sample(a, b);
  EXPECT_DOUBLE_EQ(r.d, 1);
  // d_alpha = sqrt(-ln(0.025)/2 * 12/36) = 0.7841
  EXPECT_NEAR(r.critical, 0.7841, 1e-3);
  EXPECT_TRUE(r.reject);
}

TEST(Ks, TooFewSamplesCannotReject) {
  auto r = ks_two_sample({1, 1}, {9, 9});
  EXPECT_DOUBLE_EQ(r.d, 1);
  EXPECT_FALSE(r.reject);  // critical value > 1 for n = m = 2
}

TEST(Ks, KnownStatistic) {
  // F jumps at 1,2,3; G at 2.5,3.5,4.5: max |F-G| = 2/3 at x in [2, 2.5).
  auto r = ks_two_sample({1, 2, 3}, {2.5, 3.5, 4.5});
  EXPECT_NEAR(r.d, 2.0 / 3, 1e-12);
}

TEST(Opt, FindsMeanShift) {
  std::vector<double> y{1, 1, 1, 1, 1, 4, 5, 6, 7};
  EXPECT_EQ(opt_single_change_point(y), 5u);
  auto cp = detect_change_point_1d(y);
  EXPECT_TRUE(cp.found);
  EXPECT_EQ(cp.index, 5u);
}

TEST(Opt, SmallShiftOfThesisExampleStillLocated) {
  // 003 §3.3.4: (1,1,1,1,1.3,1.3,1.3,1.3): the change is at 4 and KS sees two disjoint samples.
  auto cp = detect_change_point_1d({1, 1, 1, 1, 1.3, 1.3, 1.3, 1.3});
  EXPECT_EQ(cp.index, 4u);
  EXPECT_TRUE(cp.found);
}

TEST(Opt, NoiseWithoutChangeIsRejected) {
  std::mt19937 g(7);
  std::normal_distribution<double> n(10, 1);
  std::vector<double> y;
  for (int i = 0; i < 40; ++i) y.push_back(n(g));
  EXPECT_FALSE(detect_change_point_1d(y).found);
}

TEST(Geometric, DistanceAndAngle) {
  auto g = geometric_map({{3, 4}, {1, 1}, {0, 2}});
  EXPECT_NEAR(g.distance[0], 5, 1e-12);
  EXPECT_NEAR(g.angle[1], 0, 1e-6);
  EXPECT_NEAR(g.angle[2], std::acos(1 / std::sqrt(2.0)), 1e-12);
}

TEST(Geometric, MultiDimensionalChangePoint) {
  std::vector<std::vector<double>> x;
  for (int i = 0; i < 10; ++i) x.push_back({30, 30, 30, 30});
  for (int i = 0; i < 6; ++i) x.push_back({30, 30, 200, 200});
  auto cp = detect_change_point(x);
  EXPECT_TRUE(cp.found);
  EXPECT_EQ(cp.index, 10u);
}

TEST(Levels, ThreeWellSeparatedLevels) {
  std::vector<WeightedValue> v;
  for (int d = -2; d <= 2; ++d) {
    v.push_back({30.0 + d, 1000});
    v.push_back({110.0 + d, 300});
    v.push_back({400.0 + 4 * d, 200});
  }
  auto L = cluster_levels(v);
  ASSERT_EQ(L.size(), 3u);
  EXPECT_NEAR(L[0].mean, 30, 1e-9);
  EXPECT_NEAR(L[1].mean, 110, 1e-9);
  EXPECT_EQ(level_of(L, 33), 0u);
  EXPECT_EQ(level_of(L, 390), 2u);
}

TEST(Levels, OneBroadLevelIsNotSplit) {
  std::vector<WeightedValue> v;
  for (int x = 20; x <= 40; ++x) v.push_back({static_cast<double>(x), 10});
  EXPECT_EQ(cluster_levels(v).size(), 1u);
}

TEST(ChiSquare, UniformAndSkewed) {
  EXPECT_FALSE(chi_square_rejects_uniform({100, 96, 104, 99}));
  EXPECT_TRUE(chi_square_rejects_uniform({50, 150, 50, 50}));
}
