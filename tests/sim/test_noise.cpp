// The simulator's noise model (sim/config.hpp NoiseSpec): jitter within [0, jitter_cycles],
// outliers at about the stated rate, reproducible from the seed, different seeds differ.
#include <gtest/gtest.h>

#include <stdexcept>

#include "sim_test_util.hpp"

using namespace memhier::sim;

namespace {

Config noisy(const std::string& noise) {
  const std::string text = R"({"format": "memhier-sim-config/1", "name": "n",
    "device": {"compute_capability": "7.0", "sm_count": 1, "sm_clock_khz": 1000000,
               "smem_per_sm_bytes": 65536, "l2_bytes": 1048576, "global_mem_bytes": 1073741824},
    "clock_overhead": {"pair_cycles": 4, "fine_cycles": 8}, "dram_latency_cycles": 100,
    "levels": [{"name": "c", "size_bytes": 4096, "line_bytes": 64, "ways": 4, "hit_latency_cycles": 10}],
    "paths": {"global_cg": {"levels": ["c"]}}, "noise": )" + noise + "}";
  return parse_config(text, "noise-test");
}

std::vector<std::uint32_t> latencies(const Config& c, int n) {
  SimDevice dev(c);
  const int p = dev.path_id("global_cg");
  std::vector<std::uint32_t> v;
  for (int i = 0; i < n; ++i) v.push_back(dev.access(p, 64 * (i % 8)));  // hits after the first 8
  return v;
}

}  // namespace

TEST(SimNoise, JitterStaysWithinItsBoundAndReachesIt) {
  const auto v = latencies(noisy(R"({"jitter_cycles": 3, "seed": 7})"), 4000);
  std::uint32_t lo = 1000, hi = 0;
  for (std::size_t i = 8; i < v.size(); ++i) {
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
  }
  EXPECT_EQ(lo, 10u);
  EXPECT_EQ(hi, 13u);
}

TEST(SimNoise, OutliersComeAtAboutTheirRate) {
  const auto v = latencies(noisy(R"({"outlier_rate": 0.01, "outlier_cycles": 500, "seed": 3})"), 100000);
  int outliers = 0;
  for (std::size_t i = 8; i < v.size(); ++i) outliers += v[i] >= 500;
  EXPECT_GT(outliers, 800);   // 1000 expected; 6 sigma is about 190
  EXPECT_LT(outliers, 1200);
}

TEST(SimNoise, SameSeedSameRunOtherSeedOtherRun) {
  const auto a = latencies(noisy(R"({"jitter_cycles": 5, "seed": 11})"), 1000);
  EXPECT_EQ(a, latencies(noisy(R"({"jitter_cycles": 5, "seed": 11})"), 1000));
  EXPECT_NE(a, latencies(noisy(R"({"jitter_cycles": 5, "seed": 12})"), 1000));
}

TEST(SimNoise, WithoutNoiseLatenciesAreExact) {
  const auto v = latencies(noisy("{}"), 100);
  for (std::size_t i = 8; i < v.size(); ++i) EXPECT_EQ(v[i], 10u);
}

TEST(SimNoise, BadNoiseIsRejectedWithItsName) {
  try {
    noisy(R"({"outlier_rate": 2})");
    FAIL() << "outlier_rate 2 accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("outlier_rate"), std::string::npos) << e.what();
  }
  EXPECT_THROW(noisy(R"({"jitter": 2})"), std::runtime_error);
}
