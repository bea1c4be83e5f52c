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

