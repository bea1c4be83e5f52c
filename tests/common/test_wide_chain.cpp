// Whole-memory chains (common/wide_chain.hpp) and the whole-memory spectrum (common/wide_spectrum.hpp).
#include <gtest/gtest.h>

#include <set>

#include "common/wide_chain.hpp"
#include "common/wide_spectrum.hpp"

using namespace memhier;

TEST(WideChain, EveryElementIsDistinctAndStaysInItsSlotsSpan) {
  const WideChain c = make_wide_chain(24ull << 21, 2ull << 20, 4096);
  ASSERT_EQ(check_wide_chain(c), "");
  EXPECT_EQ(c.slots, 24u);
  EXPECT_EQ(c.passes, 4096u / 24u);
  EXPECT_EQ(c.span, kWideSpanBytes);
  std::set<std::uint64_t> seen;
  for (std::uint64_t g = 0; g < wide_elements(c); ++g) {
    const std::uint64_t x = wide_position(c, g);
    EXPECT_TRUE(seen.insert(x).second) << "element " << g << " repeats byte " << x;
    EXPECT_EQ(x / c.stride, g % c.slots);          // the slot of the pass order
    EXPECT_LT(x % c.stride, c.span);               // inside the slot's span: the same translations
    EXPECT_EQ(x % kWideLineBytes, 0u);             // whole lines
  }
}

TEST(WideChain, PassesVisitOtherLinesOfTheSameSlots) {
  const WideChain c = make_wide_chain(8ull << 16, 1ull << 16, 64);
  std::set<std::uint64_t> lines_of_slot0;
  for (std::uint64_t r = 0; r < c.passes; ++r) lines_of_slot0.insert(wide_position(c, r * c.slots) / kWideLineBytes);
  EXPECT_EQ(lines_of_slot0.size(), c.passes);  // a new line of slot 0 in every pass
}

TEST(WideChain, PassesAreCappedByTheLinesOfTheSpan) {
  const WideChain c = make_wide_chain(2ull << 16, 1ull << 16, 1 << 20);
  EXPECT_EQ(c.passes, c.span / kWideLineBytes);
  const WideChain small = make_wide_chain(4096, 1024, 64);  // stride below the span: span = stride
  EXPECT_EQ(small.span, 1024u);
  EXPECT_EQ(check_wide_chain(small), "");
}

TEST(WideChain, GapsLeaveAHoleAfterEveryChunk) {
  WideChain c = make_wide_chain(4ull << 21, 2ull << 20, 16);
  c.chunk = c.gap = 2ull << 20;
  EXPECT_EQ(wide_map(c, 0), 0u);
  EXPECT_EQ(wide_map(c, (2ull << 20) + 128), (4ull << 20) + 128);
  EXPECT_EQ(wide_mapped_extent(c, 4ull << 21), 8ull << 21);
}

TEST(WideChain, BadGeometryIsExplained) {
  WideChain c = make_wide_chain(1 << 20, 1 << 16, 16);
  c.stride = 100;
  EXPECT_NE(check_wide_chain(c).find("multiple of 128"), std::string::npos);
  c = make_wide_chain(1 << 20, 1 << 16, 16);
  c.passes = 100000;
  EXPECT_NE(check_wide_chain(c).find("passes"), std::string::npos);
}

TEST(WideSpectrum, PatternsAreBuiltAsLabelledAndNoElementRepeats) {
  WideSpectrumParams p;
  p.footprint_bytes = 40ull << 30;
  const WideSpectrum s = wide_spectrum(p);
  EXPECT_EQ(s.far_pages, 512u);
  EXPECT_GE(s.far_stride, p.min_far_stride);
  EXPECT_EQ(s.groups.back(), s.far_pages);
  std::set<std::uint64_t> seen;
  for (auto x : s.positions) EXPECT_TRUE(seen.insert(x).second) << x;
  ASSERT_EQ(s.label.size(), s.positions.size());
  std::size_t first = 0, revisit_all = 0;
  for (auto l : s.label) {
    first += l == static_cast<std::uint8_t>(WidePattern::first_far);
    revisit_all += l == static_cast<std::uint8_t>(WidePattern::revisit) + s.groups.size() - 1;
  }
  EXPECT_EQ(first, s.far_pages);
  EXPECT_EQ(revisit_all, s.far_pages);
  EXPECT_EQ(wide_pattern_name(s, static_cast<std::uint8_t>(WidePattern::revisit)), "revisit_4");
  EXPECT_THROW(wide_spectrum(WideSpectrumParams{}), std::invalid_argument);  // no footprint
}
