// A TLB level's penalty (analysis/tlb/penalty): the H100's second "level" of its first five
// back-to-back runs rose only at each curve's last footprint (64 GiB), by a share that changed from
// run to run (24.0 and 4.8 cycles at 32 MiB, heights halving with the stride): the analyzer wrote
// those heights as the penalty (issue 12). Not saturated, on the last footprints alone: now null
// with the reason in both, the bound beside it (bookkeeping for memhier-compare).
#include <gtest/gtest.h>

#include <random>

#include "analysis/gate/compare.hpp"
#include "analysis/tlb/levels.hpp"
#include "analysis/tlb/penalty.hpp"
#include "tests/analysis/tlb/test_curves.hpp"

using namespace memhier::analysis;

namespace {

constexpr std::uint64_t kMiB = 1ull << 20, kGiB = 1ull << 30;

// An L1 TLB of 16 entries of 16 MiB (10 cycles), and at the last footprint (64 GiB) of each curve
// a rise of `edge` cycles at 32 MiB, halving with the stride below; `beyond`: two more footprints
// past 64 GiB at that height (a plateau above the rise).
std::vector<TlbSeries> sweep(double edge, bool beyond, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0, 0.05);
  std::vector<TlbSeries> out;
  for (std::uint64_t s = 2 * kMiB; s <= 256 * kMiB; s *= 2) {
    const double l1 = 10 * std::min(1.0, static_cast<double>(s) / (16 * kMiB));
    const double e = s <= 32 * kMiB ? edge * static_cast<double>(s) / (32 * kMiB) : 0;
    TlbSeries c = tlbtest::tlb_curve(s, 64 * kGiB / s, 0.05, [&](std::uint64_t st, std::uint64_t m) {
      return 272 + noise(rng) + (m * st > 256 * kMiB && m > 16 ? l1 : 0) + (m * st >= 64 * kGiB ? e : 0);
    });
    for (int k = 1; beyond && k <= 2; ++k) {
      TlbFootprint p = c.points.back();
      p.bytes += k * 4 * kGiB;
      p.slots = p.bytes / s;
      p.mean = 272 + noise(rng) + l1 + e;
      c.points.push_back(p);
    }
    out.push_back(c);
  }
  return out;
}

struct Answer {
  double level_penalty = 0;  // what the analyzer wrote before (the chain's largest height)
  nlohmann::json caches;
  bool edge = false;
};

Answer second_level(double edge, bool beyond, std::uint64_t seed) {
  const auto series = sweep(edge, beyond, seed);
  const TlbSteps st = find_tlb_steps(series);
  const auto levels = link_tlb_levels(st, "malloc", nullptr);
  Answer a;
  if (levels.size() != 2) {
    ADD_FAILURE() << "expected two chains, got " << levels.size();
    return a;
  }
  a.level_penalty = levels[1].penalty;
  a.edge = tlb_rests_on_last_footprints(series, st, levels[1]);
  write_tlb_penalty(a.caches, levels[1], series, st, {});
  EXPECT_FALSE(levels[1].saturated);
  EXPECT_TRUE(levels[0].saturated);
  EXPECT_NEAR(levels[0].penalty, 10, 0.3);
  return a;
}

}  // namespace

TEST(TlbPenalty, UnsaturatedRiseAtTheLastFootprintsIsABoundNotAPenalty) {
  const Answer a = second_level(24.0, false, 1), b = second_level(4.8, false, 2);
  // before: the chain's largest height was the penalty, 24 in one run and 4.8 in the other
  EXPECT_NEAR(a.level_penalty, 24, 0.5);
  EXPECT_NEAR(b.level_penalty, 4.8, 0.5);
  // after: one answer, null with the reason, in both
  for (const Answer* x : {&a, &b}) {
    EXPECT_TRUE(x->edge);
    EXPECT_TRUE(x->caches["miss_penalty_cycles"].is_null());
    const std::string why = x->caches["provenance"]["miss_penalty_cycles"]["reason"];
    EXPECT_NE(why.find("not saturated"), std::string::npos) << why;
    EXPECT_NE(why.find("no rise has a plateau above it"), std::string::npos) << why;
  }
  EXPECT_NEAR(a.caches["miss_penalty_lower_bound_cycles"].get<double>(), 24, 0.5);
  EXPECT_EQ(topology_class("caches.l2_tlb.miss_penalty_lower_bound_cycles", false), FieldClass::bookkeeping);
}

TEST(TlbPenalty, APlateauAboveTheRiseIsNotTheCurveEnd) {
  const Answer a = second_level(24.0, true, 3);
  EXPECT_FALSE(a.edge);
  EXPECT_TRUE(a.caches["miss_penalty_cycles"].is_null());  // still growing with the stride: a bound
  const std::string why = a.caches["provenance"]["miss_penalty_cycles"]["reason"];
  EXPECT_EQ(why.find("no rise has a plateau above it"), std::string::npos) << why;
}

// Two rises of one level, the second at twice the stride and about twice the height, each with a
// wide interval: both "the same height within 3 standard errors" and "doubled" fit, doubling
// better. The level has not saturated (the H100's run 20261123T163538Z: 1.16 +-0.37 cycles at
// 16 MiB, 2.51 +-0.73 at 32 MiB, read as a 1.2-cycle penalty; the other four runs saw the heights
// double on to 97 cycles). A level whose heights stay is still saturated.
TEST(TlbPenalty, SmallHeightsThatDoubleAreNotSaturated) {
  auto rise = [](std::uint64_t stride, double h, double ci) {
    TlbRise r;
    r.alloc = "malloc";
    r.stride = stride;
    r.lo = 32 * kGiB;
    r.hi = 48 * kGiB;
    r.height = h;
    r.ci95 = ci;
    return r;
  };
  TlbLevel growing;
  growing.rises = {rise(16 * kMiB, 1.155, 0.37), rise(32 * kMiB, 2.513, 0.729)};
  derive_tlb_level(growing);
  EXPECT_FALSE(growing.saturated);
  EXPECT_NEAR(growing.penalty, 2.513, 1e-9);  // a lower bound
  TlbLevel staying;
  staying.rises = {rise(16 * kMiB, 9.62, 0.3), rise(32 * kMiB, 9.74, 0.3), rise(64 * kMiB, 10.41, 0.4)};
  derive_tlb_level(staying);
  EXPECT_TRUE(staying.saturated);
  EXPECT_EQ(staying.s_sat, 16 * kMiB);
}
