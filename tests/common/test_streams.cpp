// common/streams.hpp: the trial layout and the counter-based stream of the cache_streams family
// (docs/methodology.md, section cache_streams) that the kernel, the simulated device and the
// analyzer share.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "common/streams.hpp"

namespace memhier {
namespace {

TEST(Streams, VariantNamesRoundTrip) {
  for (int i = 0; i < kStreamVariantCount; ++i) {
    StreamVariant v{};
    ASSERT_TRUE(parse_stream_variant(stream_variant_name(static_cast<StreamVariant>(i)), &v));
    EXPECT_EQ(static_cast<int>(v), i);
  }
  StreamVariant v{};
  EXPECT_FALSE(parse_stream_variant("reread3", &v));
  EXPECT_EQ(stream_rereads(StreamVariant::reread2), 2);
  EXPECT_EQ(stream_rereads(StreamVariant::mid), 0);
}

// Every target (T1, T2) and hit reference of every slot of a launch is its own line, inside the
// lines the launch took from the targets region.
TEST(Streams, TargetsAndReferencesAreDistinct) {
  const std::uint64_t first = 1000;
  const std::uint32_t trials = 3, targets = 5, slots = 4;
  std::set<std::uint64_t> seen;
  for (std::uint32_t s = 0; s < slots; ++s) {
    for (std::uint32_t t = 0; t < trials; ++t)
      for (std::uint32_t j = 0; j < targets; ++j)
        for (int w = 0; w < 2; ++w) EXPECT_TRUE(seen.insert(stream_target_line(first, trials, targets, s, t, j, w)).second);
    for (int r = 0; r < kStreamHitRefs; ++r) EXPECT_TRUE(seen.insert(stream_ref_line(first, trials, targets, s, r)).second);
  }
  EXPECT_EQ(seen.size(), slots * stream_target_lines_per_slot(trials, targets));
  EXPECT_EQ(*seen.begin(), first);
  EXPECT_EQ(*seen.rbegin(), first + slots * stream_target_lines_per_slot(trials, targets) - 1);
}

// Stream lines lie in the pool, spread evenly over it (16 bins within 10 % of the mean over 64 K
// draws), differ between trials and slots, and repeat for the same (seed, slot, trial).
TEST(Streams, PoolLinesUniformAndReproducible) {
  const std::uint64_t pool = 131072 + 7;  // not a power of two
  std::vector<int> bins(16, 0);
  const std::uint64_t key = stream_key(1, 0, 0);
  const int n = 65536;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t l = stream_pool_line(key, static_cast<std::uint64_t>(i), pool);
    ASSERT_LT(l, pool);
    ++bins[l * 16 / pool];
  }
  for (int b : bins) EXPECT_NEAR(b, n / 16, n / 160);
  EXPECT_EQ(stream_pool_line(key, 5, pool), stream_pool_line(stream_key(1, 0, 0), 5, pool));
  int same_trial = 0, same_slot = 0;
  for (int i = 0; i < 256; ++i) {
    same_trial += stream_pool_line(key, i, pool) == stream_pool_line(stream_key(1, 0, 1), i, pool);
    same_slot += stream_pool_line(key, i, pool) == stream_pool_line(stream_key(1, 1, 0), i, pool);
  }
  EXPECT_LT(same_trial, 3);
  EXPECT_LT(same_slot, 3);
  EXPECT_NE(stream_key(1, 0, kStreamWarmTrial), stream_key(1, 0, 0));
}

}  // namespace
}  // namespace memhier
