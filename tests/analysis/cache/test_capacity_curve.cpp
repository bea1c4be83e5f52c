// The capacity from the whole miss-rate curve: isotonic fit, the 50 % point and its interval, the
// model curve of a structure and the capacity fitted to a curve (analysis/cache/capacity_curve,
// analysis/cache/capacity_model).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/cache/capacity_curve.hpp"
#include "analysis/cache/capacity_model.hpp"

using namespace memhier::analysis;

TEST(CapacityCurve, IsotonicPoolsViolators) {
  const auto f = isotonic_fit({0, 0.3, 0.1, 0.5, 1}, {1, 1, 1, 1, 1});
  ASSERT_EQ(f.size(), 5u);
  EXPECT_DOUBLE_EQ(f[1], 0.2);
  EXPECT_DOUBLE_EQ(f[2], 0.2);
  for (std::size_t i = 1; i < f.size(); ++i) EXPECT_LE(f[i - 1], f[i]);
}

TEST(CapacityCurve, HalfPointOfAStep) {
  // 0 up to 12 KiB, every access misses from 13 KiB on: the crossing lies in [12, 13) KiB.
  std::vector<std::uint64_t> sz;
  std::vector<double> miss, n;
  for (std::uint64_t k = 1; k <= 24; ++k) {
    sz.push_back(k * 1024);
    miss.push_back(k <= 12 ? 0 : 1);
    n.push_back(static_cast<double>(k * 32));
  }
  const HalfPoint h = half_point(sz, miss, n, 32);
  ASSERT_EQ(h.state, HalfPoint::State::found) << h.note;
  EXPECT_EQ(h.lo, 12u * 1024);
  EXPECT_EQ(h.hi, 13u * 1024);
  EXPECT_GE(h.bytes, h.lo);
  EXPECT_LT(h.bytes, h.hi);
  EXPECT_LE(h.ilo, h.bytes);
  EXPECT_GE(h.ihi, h.bytes);
  EXPECT_TRUE(h.saturated);
  EXPECT_DOUBLE_EQ(h.plateau, 1);
}

TEST(CapacityCurve, HalfPointOfASoftEdgeHasAnIntervalFromTheScatter) {
  // A soft edge: the miss rate rises linearly from 200 KiB to 300 KiB (crossing at 250 KiB) with
  // +-0.03 noise; the interval must hold the true crossing and be wider than for exact data.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(-0.03, 0.03);
  std::vector<std::uint64_t> sz;
  std::vector<double> miss, exact, n;
  for (std::uint64_t k = 0; k <= 100; ++k) {
    const std::uint64_t b = 150 * 1024 + k * 2 * 1024;
    const double m = std::clamp((static_cast<double>(b) / 1024 - 200) / 100, 0.0, 1.0);
    sz.push_back(b);
    exact.push_back(m);
    miss.push_back(m > 0 && m < 1 ? std::clamp(m + noise(rng), 0.0, 1.0) : m);
    n.push_back(8000);
  }
  const HalfPoint h = half_point(sz, miss, n, 32);
  ASSERT_EQ(h.state, HalfPoint::State::found);
  EXPECT_GE(h.transition, kHalfPointMinTransition);
  EXPECT_LE(h.ilo, 250u * 1024);
  EXPECT_GE(h.ihi, 250u * 1024);
  EXPECT_LT(h.ihi - h.ilo, 20u * 1024) << h.note;
  const HalfPoint e = half_point(sz, exact, n, 32);
  EXPECT_LT(e.ihi - e.ilo, h.ihi - h.ilo);
}

TEST(CapacityCurve, HalfPointOfAPlateauBelowOne) {
  // 64-byte lines chased at 32 bytes: at most every other access misses (the H100 constant L1).
  const HalfPoint h = half_point({1024, 1536, 2048, 2560, 3072, 4096, 8192}, {0, 0, 0.1, 0.42, 0.5, 0.5, 0.5},
                                 {32, 48, 64, 80, 96, 128, 256}, 32);
  ASSERT_EQ(h.state, HalfPoint::State::found);
  EXPECT_DOUBLE_EQ(h.plateau, 0.5);
  EXPECT_EQ(h.lo, 2048u);
  EXPECT_EQ(h.hi, 2560u);
}

TEST(CapacityCurve, HalfPointAboveTheSweep) {
  const HalfPoint h = half_point({1024, 2048, 4096}, {0, 0, 0}, {32, 64, 128}, 32);
  EXPECT_EQ(h.state, HalfPoint::State::above);
}

TEST(CapacityModel, LruSetsOverflowOneByOne) {
  // 4 sets x 2 ways of 32-byte lines (256 B), chased at the line: at C + j lines, j sets hold 3 lines
  // and each misses all of them (LRU).
  SweepShape shape;
  shape.stride = shape.line = shape.fill = 32;
  CurveModel m({"lru", 2, {}}, shape);
  EXPECT_DOUBLE_EQ(m.miss_rate(256, 256), 0);
  EXPECT_DOUBLE_EQ(m.miss_rate(256, 256 + 32), 3.0 / 9);
  EXPECT_DOUBLE_EQ(m.miss_rate(256, 256 + 64), 6.0 / 10);
  EXPECT_DOUBLE_EQ(m.miss_rate(256, 384), 1);
}

TEST(CapacityModel, SectorsScaleTheMissesPerAccess) {
  // 128-byte lines filled in 64-byte sectors, chased at 32 bytes: one access in two misses.
  SweepShape shape;
  shape.stride = 32;
  shape.line = 128;
  shape.fill = 64;
  CurveModel m({"lru", 4, {}}, shape);
  EXPECT_DOUBLE_EQ(m.miss_rate(4096, 8192), 0.5);
}

TEST(CapacityModel, FitRecoversTheCapacityOfARandomCache) {
  // The curve of a 16-way random cache of 8 KiB (32-byte lines, 16 sets) from its own model; the
  // fit over the ways candidates must land on 8 KiB.
  SweepShape shape;
  shape.stride = shape.line = shape.fill = 32;
  CurveModel truth({"random", 16, {}}, shape);
  std::vector<std::uint64_t> sz;
  std::vector<double> miss, n;
  for (std::uint64_t b = 4096; b <= 20480; b += 512) {
    sz.push_back(b);
    miss.push_back(truth.miss_rate(8192, b));
    n.push_back(static_cast<double>(b / 32));
  }
  std::vector<SetModel> models;
  for (std::uint32_t w : {2u, 4u, 8u, 16u, 32u}) models.push_back({"random", w, {}});
  const CapacityFit f = fit_capacity(sz, miss, n, shape, models, 2048, 32768);
  ASSERT_TRUE(f.found) << f.note;
  EXPECT_EQ(f.bytes, 8192u) << f.note;
  EXPECT_LE(f.lo, 8192u);
  EXPECT_GE(f.hi, 8192u);
}

TEST(CapacityModel, FitRejectsACurveNoModelDescribes) {
  // A curve that falls again (no capacity curve does): the residual is far above sampling.
  SweepShape shape;
  shape.stride = shape.line = shape.fill = 32;
  const CapacityFit f = fit_capacity({1024, 2048, 3072, 4096, 5120}, {0, 1, 0, 1, 0}, {1e6, 1e6, 1e6, 1e6, 1e6},
                                     shape, {{"lru", 4, {}}}, 512, 8192);
  EXPECT_FALSE(f.found) << f.note;
}
