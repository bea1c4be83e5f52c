// Stage 2 of the TLB inference (analysis/tlb/stage2): the miss counts of the H100's first five
// back-to-back runs gave a 16-entry, one-set L1 TLB 17 ways in three runs and 16 in two (issue 12):
// the counts carry the ratio of the entry stride's own height to the level's mean penalty, and the
// old calibration on the last resolved step alone left the first count at 17.6 or 17.0 misses.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/cache/eviction_sets.hpp"
#include "analysis/tlb/stage2.hpp"

using namespace memhier::analysis;

namespace {

// Misses per pass at N = 16 + j slots (j = 1..8) and their standard errors, as two of the five runs
// measured them (20261123T155139Z and T155636Z; every slot misses from j = 1 on in both).
const std::vector<double> kRun1 = {17.091, 17.961, 18.394, 19.421, 20.622, 22.004, 22.919, 21.085};
const std::vector<double> kRun1Se = {0.140, 0.221, 0.252, 0.279, 0.305, 0.351, 0.318, 0.491};
const std::vector<double> kRun5 = {16.740, 17.607, 18.034, 18.990, 20.177, 21.474, 22.483, 25.835};
const std::vector<double> kRun5Se = {0.140, 0.221, 0.244, 0.273, 0.305, 0.349, 0.313, 0.475};

// The rule before: rescale by the last resolved step when within 5 % of its slots.
std::vector<int> ways_before(std::vector<double> known, std::uint64_t entries) {
  const double scale = static_cast<double>(entries + known.size()) / known.back();
  if (std::fabs(scale - 1) < 0.05)
    for (auto& c : known) c *= scale;
  return sets_from_counts(known, entries).ways;
}

std::vector<int> ways_after(std::size_t resolved, const std::vector<double>& counts, const std::vector<double>& se,
                            std::uint64_t entries, double tol) {
  std::vector<double> known(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(resolved));
  return sets_from_counts(calibrate_tlb_counts(known, counts, se, entries, tol), entries).ways;
}

}  // namespace

TEST(TlbStage2, H100RunsGaveTwoWayCountsBeforeAndOneNow) {
  // before: 17 ways from run 1 (4 steps resolved), 16 from run 5 (its scale 5.3 % off: not rescaled)
  EXPECT_EQ(ways_before({kRun1.begin(), kRun1.begin() + 4}, 16), std::vector<int>{17});
  EXPECT_EQ(ways_before({kRun5.begin(), kRun5.begin() + 4}, 16), std::vector<int>{16});
  // after: one set of 16 ways in both, whatever the number of resolved steps and the tolerance
  for (std::size_t resolved : {1u, 2u, 4u, 8u})
    for (double tol : {0.05, 0.1}) {
      EXPECT_EQ(ways_after(resolved, kRun1, kRun1Se, 16, tol), std::vector<int>{16}) << resolved << " " << tol;
      EXPECT_EQ(ways_after(resolved, kRun5, kRun5Se, 16, tol), std::vector<int>{16}) << resolved << " " << tol;
    }
}

TEST(TlbStage2, CountsAreCappedAtTheSlots) {
  // a penalty 6 % below this stride's height, and only the first step measured: 18 misses of 17 slots
  const auto k = calibrate_tlb_counts({18.0}, {18.0}, {0.1}, 16, 0.05);
  EXPECT_DOUBLE_EQ(k[0], 17.0);
}

TEST(TlbStage2, SetIndexedLevelKeepsItsSetsUnderAPenaltyBias) {
  // 4 sets of 4 ways: step j opens set j (j <= 4) adding 5 misses; then every slot misses. The
  // counts carry a 4.5 % bias (this stride's height over the mean penalty).
  std::vector<double> c, se;
  for (int j = 1; j <= 12; ++j) {
    const double misses = j <= 4 ? 5.0 * j : 16.0 + j;
    c.push_back(1.045 * misses);
    se.push_back(0.15);
  }
  EXPECT_EQ(ways_after(12, c, se, 16, 0.05), (std::vector<int>{4, 4, 4, 4}));
  EXPECT_NEAR(tlb_complete_fraction(c, se, 16, 0.05), 1.045, 1e-9);
  // a bias beyond the tolerance is not taken for the calibration (the counts stay as they are)
  for (auto& x : c) x *= 1.2;
  EXPECT_DOUBLE_EQ(tlb_complete_fraction(c, se, 16, 0.05), 1.0);
}

TEST(TlbStage2, HeightScatterFromTheSaturatedStrides) {
  TlbLevel L;
  L.penalty = 10;
  L.s_sat = 16;
  // a set-indexed level's height falls again at large strides (4 cycles at 128): no scatter
  for (auto [s, h] : {std::pair{8ull, 5.0}, {16ull, 9.5}, {32ull, 10.5}, {64ull, 10.0}, {128ull, 4.0}}) {
    TlbRise r;
    r.stride = s;
    r.height = h;
    r.ci95 = 0.4;
    L.rises.push_back(r);
  }
  EXPECT_NEAR(tlb_height_scatter(L), 3 * 0.5 / 10, 1e-9);  // sd of 9.5, 10.5, 10.0 around 10 = 0.5
  L.rises.resize(2);
  EXPECT_DOUBLE_EQ(tlb_height_scatter(L), 0.05);
}
