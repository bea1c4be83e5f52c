// Two classes of latencies (common/two_class): the bimodal DRAM accesses of a Hopper's latency
// spectrum split at their trough whatever the shares and a thin slow tail, one broad mode does not.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "common/policy.hpp"  // SplitMix64
#include "common/two_class.hpp"

using namespace memhier;

namespace {

// n values: a share `low` around 540, the rest around 720 (uniform +-`w`), a fraction `tail` at 1000-1600.
std::vector<double> sample(int n, double low, double w, double tail, std::uint64_t seed) {
  policy::SplitMix64 r(seed);
  auto u = [&] { return static_cast<double>(r.next() >> 11) / 9007199254740992.0; };
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    const double x = u();
    if (x < tail) v.push_back(1000 + 600 * u());
    else if (x < tail + (1 - tail) * low) v.push_back(540 + w * (2 * u() - 1));
    else v.push_back(720 + w * (2 * u() - 1));
  }
  return v;
}

}  // namespace

TEST(TwoClass, BimodalSamplesSplitAtTheTroughWhateverTheShares) {
  for (double low : {0.25, 0.36, 0.44, 0.5, 0.6})
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const TwoClasses c = two_classes(sample(512, low, 40, 0.05, seed));
      ASSERT_TRUE(c.split) << "low share " << low << " seed " << seed;
      EXPECT_GT(c.cut, 580) << low;
      EXPECT_LT(c.cut, 680) << low;
      EXPECT_NEAR(c.low_median, 540, 10) << low;
      EXPECT_NEAR(c.high_median, 720, 15) << low;  // the tail belongs to the upper class
      EXPECT_EQ(c.low + c.high, 512u);
    }
}

TEST(TwoClass, OneBroadModeOrTooFewValuesDoNotSplit) {
  policy::SplitMix64 r(7);
  std::vector<double> one;
  for (int i = 0; i < 512; ++i) {  // a bell of sd ~40 around 650 (sum of 4 uniforms), with a tail
    double x = 0;
    for (int k = 0; k < 4; ++k) x += static_cast<double>(r.next() >> 11) / 9007199254740992.0;
    one.push_back(i % 20 == 0 ? 1200 : 650 + 70 * (x - 2));
  }
  EXPECT_FALSE(two_classes(one).split);
  EXPECT_FALSE(two_classes(std::vector<double>(512, 600)).split);  // one value
  EXPECT_FALSE(two_classes({540, 540, 720, 720}).split);           // below min_values
  // Two modes of a 10 % minority still split; of a 5 % one not (min_share 0.1).
  EXPECT_TRUE(two_classes(sample(1000, 0.12, 20, 0, 3)).split);
  EXPECT_FALSE(two_classes(sample(1000, 0.04, 20, 0, 3)).split);
}
