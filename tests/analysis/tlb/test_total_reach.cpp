// The total reach of a TLB level whose penalty is only a bound (issue 20 item 5): its heights
// still double at every stride that shows it, so every such stride lies below one entry's reach
// and its reach is one footprint in bytes at all of them: where the step begins.
#include <gtest/gtest.h>

#include <random>

#include "analysis/tlb/levels.hpp"
#include "tests/analysis/tlb/test_curves.hpp"

using namespace memhier::analysis;

namespace {

constexpr std::uint64_t kMiB = 1ull << 20, kGiB = 1ull << 30;

// An L1 TLB of 16 entries of 16 MiB (10 cycles) and a second level of `reach` bytes whose entries
// reach 512 MiB (penalty 150 cycles): at strides 2-32 MiB a fraction stride / 512 MiB misses.
std::vector<TlbSeries> sweep(std::uint64_t reach, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.05);
  std::vector<TlbSeries> out;
  for (std::uint64_t s = 2 * kMiB; s <= 32 * kMiB; s *= 2) {
    const double l1 = 10 * std::min(1.0, static_cast<double>(s) / (16 * kMiB));
    const double l2 = 150 * static_cast<double>(s) / (512 * kMiB);
    out.push_back(tlbtest::tlb_curve(s, 72 * kGiB / s, 0.05, [&](std::uint64_t st, std::uint64_t m) {
      return 280 + noise(rng) + (m * st > 256 * kMiB && m > 16 ? l1 : 0) + (m * st > reach ? l2 : 0);
    }));
  }
  return out;
}

TlbRise rise(std::uint64_t stride, std::uint64_t lo, std::uint64_t hi, double h) {
  TlbRise r;
  r.alloc = "malloc";
  r.stride = stride;
  r.lo = lo;
  r.hi = hi;
  r.height = h;
  r.ci95 = 0.5;
  return r;
}

}  // namespace

TEST(TlbTotalReach, UnsaturatedLevelReachIsWhereItsStepBegins) {
  for (std::uint64_t reach : {40 * kGiB, 24 * kGiB}) {
    const auto series = sweep(reach, reach >> 30);
    const TlbSteps st = find_tlb_steps(series);
    const auto levels = link_tlb_levels(st, "malloc", nullptr);
    ASSERT_EQ(levels.size(), 2u);
    const TlbLevel& L = levels[1];
    EXPECT_TRUE(levels[0].saturated);
    EXPECT_EQ(levels[0].onset_hi, 0u);  // a saturated level keeps its entries-based reach
    EXPECT_FALSE(L.saturated);          // 150 x 32/512 = 9.4 cycles at the largest stride: a bound
    EXPECT_EQ(L.entry_bytes, 0u);
    ASSERT_GT(L.onset_hi, 0u);
    EXPECT_LE(L.onset_lo, reach);  // no miss up to lo, misses at hi
    EXPECT_GT(L.onset_hi, reach);
    EXPECT_LE(static_cast<double>(L.onset_hi) / static_cast<double>(L.onset_lo), 1.5);  // the sweep's grid
    EXPECT_TRUE(L.onset_agree);
  }
}

TEST(TlbTotalReach, DisagreeingRisesGiveTheFirstFootprintWithMisses) {
  // the largest stride sees a partial miss at 64 GiB, the smaller ones only at 76 GiB
  TlbLevel L;
  L.rises = {rise(4 * kMiB, 64 * kGiB, 76 * kGiB, 11.6), rise(8 * kMiB, 64 * kGiB, 76 * kGiB, 23.5),
             rise(16 * kMiB, 64 * kGiB, 76 * kGiB, 47.0), rise(32 * kMiB, 48 * kGiB, 64 * kGiB, 94.0)};
  derive_tlb_level(L);
  EXPECT_FALSE(L.saturated);
  EXPECT_EQ(L.onset_lo, 48 * kGiB);
  EXPECT_EQ(L.onset_hi, 64 * kGiB);
  EXPECT_FALSE(L.onset_agree);
  // a saturated level (two strides at one height) has no onset bracket: entries decide its reach
  TlbLevel S;
  S.rises = {rise(16 * kMiB, 64 * kGiB, 76 * kGiB, 94.0), rise(32 * kMiB, 64 * kGiB, 76 * kGiB, 94.2),
             rise(64 * kMiB, 128 * kGiB, 144 * kGiB, 94.1)};
  derive_tlb_level(S);
  EXPECT_TRUE(S.saturated);
  EXPECT_EQ(S.onset_hi, 0u);
}
