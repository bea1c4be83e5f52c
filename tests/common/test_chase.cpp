#include <gtest/gtest.h>

#include <set>

#include "common/chase.hpp"

using namespace memhier;

TEST(UniformChain, VisitsEveryStrideOnceAndWraps) {
  auto c = uniform_chain(1024, 32);
  ASSERT_EQ(c.size(), 32u);
  for (std::size_t k = 0; k < c.size(); ++k) EXPECT_EQ(c[k], k * 8);
  auto a = chain_to_array(c, 256);
  // following the array from element 0 visits every chain element once, then returns to 0
  std::set<std::uint32_t> seen;
  std::uint32_t j = 0;
  for (std::size_t k = 0; k < c.size(); ++k) {
    EXPECT_TRUE(seen.insert(j).second);
    j = a[j];
  }
  EXPECT_EQ(j, 0u);
  EXPECT_EQ(seen.size(), c.size());
}

TEST(UniformChain, PartialLastStrideStillCounted) {
  EXPECT_EQ(uniform_chain(100, 32).size(), 4u);  // elements 0, 8, 16, 24 (byte 96 < 100)
  EXPECT_EQ(uniform_chain(4, 4).size(), 1u);
}

TEST(UniformChain, RejectsBadStride) {
  EXPECT_THROW(uniform_chain(1024, 0), std::invalid_argument);
  EXPECT_THROW(uniform_chain(1024, 6), std::invalid_argument);
  EXPECT_THROW(uniform_chain(0, 4), std::invalid_argument);
}

TEST(ChainToArray, RejectsRepeatsAndOutOfRange) {
  EXPECT_THROW(chain_to_array({0, 4, 0}, 16), std::invalid_argument);
  EXPECT_THROW(chain_to_array({0, 16}, 16), std::invalid_argument);
  EXPECT_EQ(check_chain({0, 4, 8}, 16), "");
}

TEST(SpectrumChain, EveryElementOnceAndPatternsInOrder) {
  SpectrumParams p{256ull << 20, 32ull << 20, 16ull << 10, 8, 5};
  auto s = spectrum_chain(p);
  ASSERT_EQ(s.chain.size(), s.pattern.size());
  EXPECT_EQ(check_chain(s.chain, p.footprint_bytes / 4), "");
  const std::size_t far = 8;
  EXPECT_EQ(s.chain.size(), far + 8 + 8 + (far - 1) + 5);
  EXPECT_EQ(s.pattern.front(), SpectrumPattern::cold_far);
  EXPECT_EQ(s.pattern.back(), SpectrumPattern::same_line);
  // far revisits are in the same 32-byte sector as the first touches
  for (std::size_t k = 0; k < s.chain.size(); ++k)
    if (s.pattern[k] == SpectrumPattern::far_revisit) {
      EXPECT_EQ(s.chain[k] % (p.far_stride_bytes / 4), 1u);
    }
  // same-line accesses share one 32-byte sector
  std::set<std::uint32_t> sectors;
  for (std::size_t k = 0; k < s.chain.size(); ++k)
    if (s.pattern[k] == SpectrumPattern::same_line) sectors.insert(s.chain[k] / 8);
  EXPECT_EQ(sectors.size(), 1u);
  auto a = chain_to_array(s.chain, p.footprint_bytes / 4);
  std::uint32_t j = s.chain[0];
  for (std::size_t k = 0; k < s.chain.size(); ++k) j = a[j];
  EXPECT_EQ(j, s.chain[0]);
}

TEST(SpectrumChain, RejectsLayoutsThatDoNotFit) {
  EXPECT_THROW(spectrum_chain({32ull << 20, 32ull << 20, 16ull << 10, 8, 5}), std::invalid_argument);
  EXPECT_THROW(spectrum_chain({256ull << 20, 32ull << 20, 8ull << 20, 8, 5}), std::invalid_argument);
}
