// The TLB inference's steps and levels on synthetic sweeps (analysis/tlb/steps, tlb_levels): a
// 5-cycle step through noise, a flat curve without rises, and levels chained across strides.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/tlb/levels.hpp"
#include "analysis/tlb/steps.hpp"
#include "tests/analysis/tlb/test_curves.hpp"

using namespace memhier::analysis;

namespace {

// One curve: footprints of m = 2, 3, 4, 6, ... slots; latency base + height * fraction beyond reach
// (fraction = min(1, stride / entry)), each mean with standard error `se` and Gaussian noise.
TlbSeries curve(std::uint64_t stride, std::uint64_t max_slots, double base,
                const std::vector<std::pair<std::uint64_t, double>>& levels,  // (reach bytes, penalty)
                std::uint64_t entry, double se, std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0, se);
  return tlbtest::tlb_curve(stride, max_slots, se, [&](std::uint64_t st, std::uint64_t m) {
    double x = base + noise(rng);
    for (auto [reach, pen] : levels)
      if (m * st > reach) x += pen * std::min(1.0, static_cast<double>(st) / static_cast<double>(entry));
    return x;
  });
}

}  // namespace

TEST(TlbSteps, FiveCycleStepThroughNoiseWithItsInterval) {
  std::mt19937_64 rng(7);
  std::vector<TlbSeries> series;
  for (std::uint64_t s = 2ull << 20; s <= 16ull << 20; s *= 2)  // strides whose first footprint is below the reach
    series.push_back(curve(s, 4096, 280, {{32ull << 20, 5}}, 2ull << 20, 0.05, rng));
  const TlbSteps st = find_tlb_steps(series);
  EXPECT_LT(st.resolution, 1.0);
  for (const auto& [key, rises] : st.rises) {
    ASSERT_EQ(rises.size(), 1u) << "stride " << key.second;
    const TlbRise& r = rises[0];
    EXPECT_NEAR(r.height, 5, 0.3);
    EXPECT_LT(std::fabs(r.height - 5), r.ci95 + 0.05) << "the interval covers the true step";
    EXPECT_LE(r.lo, 32ull << 20);  // 16 entries of 2 MiB: the reach lies in [lo, hi)
    EXPECT_GT(r.hi, 32ull << 20);
  }
}

TEST(TlbSteps, FlatNoisyCurvesHaveNoRise) {
  std::mt19937_64 rng(11);
  std::vector<TlbSeries> series;
  for (std::uint64_t s = 64ull << 10; s <= 8ull << 20; s *= 2) series.push_back(curve(s, 4096, 290, {}, 1, 0.3, rng));
  const TlbSteps st = find_tlb_steps(series);
  for (const auto& [key, rises] : st.rises) EXPECT_TRUE(rises.empty()) << "stride " << key.second;
}

TEST(TlbLevels, TwoLevelsWithTheirEntryReachAndPenalty) {
  // L1: 16 entries of 2 MiB, 8 cycles; L2: 512 entries of 32 MiB (16 GiB), 150 cycles. The L2 is
  // looked up on L1 misses only, which every access makes at these strides (>= 2 MiB).
  std::mt19937_64 rng(3);
  std::vector<TlbSeries> series;
  for (std::uint64_t s = 256ull << 10; s <= 256ull << 20; s *= 2) {
    TlbSeries c = curve(s, 16384, 280, {{32ull << 20, 8}}, 2ull << 20, 0.05, rng);
    const double f2 = std::min(1.0, static_cast<double>(s) / (32ull << 20));
    for (auto& p : c.points)
      if (p.bytes > (16ull << 30) && s >= (2ull << 20)) p.mean += 150 * f2;
    series.push_back(c);
  }
  const TlbSteps st = find_tlb_steps(series);
  const auto levels = link_tlb_levels(st, "malloc", nullptr);
  ASSERT_EQ(levels.size(), 2u);
  EXPECT_NEAR(levels[0].penalty, 8, 0.2);
  EXPECT_EQ(levels[0].entry_bytes, 2ull << 20);
  EXPECT_NEAR(levels[1].penalty, 150, 1);
  EXPECT_EQ(levels[1].entry_bytes, 32ull << 20);
  EXPECT_LE(levels[1].reach_lo, 16ull << 30);
  EXPECT_GT(levels[1].reach_hi, 16ull << 30);
}
