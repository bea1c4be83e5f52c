// What the H100's first whole-memory run taught the TLB inference (analysis/tlb/steps placement,
// tlb_checks, tlb_levels saturation): the data placement behind a few slots and a drift at large
// slot counts are no translation levels; partial heights that do not double exactly still give the
// entry reach.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/tlb/checks.hpp"
#include "analysis/tlb/steps.hpp"
#include "tests/analysis/tlb/test_curves.hpp"

using namespace memhier::analysis;

namespace {

using tlbtest::tlb_curve;

// The H100's 16-entry level of 16 MiB regions (10 cycles), a near/far placement that moves the
// mean of a few slots by a cycle or two, and at 512 KiB-1 MiB strides a 0.5-cycle drift past 1 GiB.
std::vector<TlbSeries> h100_like(bool drift) {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n(0, 0.1);
  std::vector<TlbSeries> v;
  for (std::uint64_t s = 64ull << 10; s <= 1ull << 30; s *= 2) {
    v.push_back(tlb_curve(s, 16384, 0.15, [&](std::uint64_t st, std::uint64_t m) {
      const std::uint64_t region = 16ull << 20, regions = (m * st + region - 1) / region;
      double x = 271.5 + n(rng) + (m < 8 ? 2.5 * std::sin(static_cast<double>(m * 7 + st % 97)) / std::sqrt(m) : 0);
      if (regions > 16) x += 10 * std::min(1.0, static_cast<double>(st) / region);
      if (drift && (st == (512ull << 10) || st == (1ull << 20)) && m * st > (3ull << 29)) x += 0.6;
      return x;
    }));
  }
  return v;
}

}  // namespace

TEST(TlbChecks, PlacementOfAFewSlotsIsNoLevel) {
  const TlbSteps st = find_tlb_steps(h100_like(false));
  EXPECT_GT(st.placement, 0.5);  // the scatter of one slot is measured
  const auto levels = link_tlb_levels(st, "malloc", nullptr);
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_EQ(levels[0].entry_bytes, 16ull << 20);
  EXPECT_NEAR(levels[0].penalty, 10, 0.3);
}

TEST(TlbChecks, ADriftThatVanishesAtLargerStridesIsNoLevel) {
  const TlbSteps st = find_tlb_steps(h100_like(true));
  std::vector<RejectedLevel> rejected;
  const auto levels = keep_translation_levels(link_tlb_levels(st, "malloc", nullptr), st, &rejected);
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_EQ(levels[0].entry_bytes, 16ull << 20);
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_NE(rejected[0].reason.find("missing at stride 2097152"), std::string::npos) << rejected[0].reason;
}

TEST(TlbChecks, ALevelWhoseHeightsDoubleIsKeptWithoutALargerStride) {
  // the same drift as a real 4-entry level of 256 MiB entries, seen only up to 1 MiB: heights that
  // double with the stride are themselves the signature, nothing larger is needed
  std::vector<TlbSeries> v;
  for (std::uint64_t s = 64ull << 10; s <= 1ull << 20; s *= 2)
    v.push_back(tlb_curve(s, 16384, 0.05, [](std::uint64_t st, std::uint64_t m) {
      return 280 + (m * st > (1ull << 30) ? 64.0 * static_cast<double>(st) / (1ull << 20) : 0);
    }));
  v.push_back(tlb_curve(2ull << 20, 16, 0.05, [](std::uint64_t, std::uint64_t) { return 280.0; }));
  const TlbSteps st = find_tlb_steps(v);
  std::vector<RejectedLevel> rejected;
  const auto levels = keep_translation_levels(link_tlb_levels(st, "malloc", nullptr), st, &rejected);
  EXPECT_EQ(levels.size(), 1u);
  EXPECT_TRUE(rejected.empty());
}
