// analysis/core/parallel.hpp: every index once, a result independent of the threads, and the error of
// the lowest failing index (what a serial loop reports first), whatever the threads' order.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "analysis/core/parallel.hpp"

using memhier::analysis::parallel_for;

TEST(ParallelFor, EveryIndexOnceInItsOwnSlot) {
  for (std::size_t n : {0u, 1u, 7u, 1000u}) {
    std::vector<int> hits(n, 0);
    std::atomic<int> calls{0};
    parallel_for(n, [&](std::size_t i) {
      hits[i] += static_cast<int>(i) + 1;
      ++calls;
    });
    EXPECT_EQ(calls.load(), static_cast<int>(n));
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(hits[i], static_cast<int>(i) + 1);
  }
}

TEST(ParallelFor, TheLowestFailingIndexIsRethrown) {
  for (int round = 0; round < 20; ++round) {
    try {
      parallel_for(200, [](std::size_t i) {
        if (i % 37 == 5) throw std::runtime_error("index " + std::to_string(i));
      });
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "index 5");
    }
  }
}
