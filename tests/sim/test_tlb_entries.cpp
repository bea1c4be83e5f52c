// TLB levels whose entries cover several pages, VMM chunks that stop them, and latency noise.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/config.hpp"
#include "sim/device.hpp"

using namespace memhier::sim;

namespace {
Config tlb_config(const std::string& extra_top = "", const std::string& tlb_extra = "") {
  return parse_config(R"({"format": "memhier-sim-config/1", "name": "t",
    "device": {"compute_capability": "9.0", "sm_count": 1, "sm_clock_khz": 1000000,
               "smem_per_sm_bytes": 65536, "l2_bytes": 1048576, "global_mem_bytes": 68719476736},
    "clock_overhead": {"pair_cycles": 2, "fine_cycles": 8}, "dram_latency_cycles": 500,)" + extra_top + R"(
    "levels": [{"name": "l2", "size_bytes": 1048576, "line_bytes": 128, "sets": 512, "ways": 16, "hit_latency_cycles": 200}],
    "tlbs": [{"name": "l1_tlb", "page_bytes": 2097152, "entry_bytes": 8388608, "entries": 4, "sets": 1, "ways": 4,
              "miss_penalty_cycles": 10)" + tlb_extra + R"(}],
    "paths": {"global_cg": {"levels": ["l2"], "translated": true}}})", "test");
}
}  // namespace

TEST(SimTlbEntries, OneEntryCoversFourContiguousPages) {
  SimDevice dev(tlb_config());
  const int p = dev.path_id("global_cg");
  dev.reset();
  EXPECT_EQ(dev.access(p, 0), 510u);                  // cold: data and entry miss
  EXPECT_EQ(dev.access(p, 3 * (2ull << 20)), 500u);   // same entry (page 3 of 4): only the data misses
  EXPECT_EQ(dev.access(p, 3 * (2ull << 20)), 200u);
  EXPECT_EQ(dev.tlb("l1_tlb")->stats().misses, 1u);
}

TEST(SimTlbEntries, SeparateChunksTakeAnEntryEach) {
  SimDevice dev(tlb_config());
  const int p = dev.path_id("global_cg");
  dev.set_translation_chunk(2ull << 20);  // VMM chunks of one page: no entry spans two of them
  dev.reset();
  for (int k = 0; k < 4; ++k) dev.access(p, k * (2ull << 20));
  EXPECT_EQ(dev.tlb("l1_tlb")->stats().misses, 4u);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(dev.access(p, k * (2ull << 20)), 200u);  // 4 entries hold them
  EXPECT_EQ(dev.access(p, 4 * (2ull << 20)), 510u);
}

TEST(SimTlbEntries, EntrySmallerThanThePageIsAConfigError) {
  try {
    parse_config(R"({"format": "memhier-sim-config/1", "name": "t",
      "device": {"compute_capability": "9.0", "sm_count": 1, "sm_clock_khz": 1, "smem_per_sm_bytes": 1,
                 "l2_bytes": 1, "global_mem_bytes": 1},
      "clock_overhead": {"pair_cycles": 2, "fine_cycles": 8}, "dram_latency_cycles": 5,
      "levels": [{"name": "l2", "size_bytes": 1024, "line_bytes": 128, "ways": 8, "hit_latency_cycles": 1}],
      "tlbs": [{"name": "a", "page_bytes": 2097152, "entry_bytes": 65536, "entries": 4, "ways": 4, "miss_penalty_cycles": 1}],
      "paths": {"global_cg": {"levels": ["l2"], "translated": true}}})", "cfg");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("entry_bytes"), std::string::npos) << e.what();
  }
}

TEST(SimNoise, GaussianWithTheConfiguredSpreadAndRepeatableAfterReset) {
  SimDevice dev(tlb_config(R"("latency_noise": {"sd_cycles": 4, "seed": 3},)"));
  const int p = dev.path_id("global_cg");
  auto run = [&] {
    dev.reset();
    dev.access(p, 128);  // the cold miss
    double s = 0, q = 0;
    const int n = 20000;
    for (int k = 0; k < n; ++k) {
      const double v = dev.access(p, 128) ;
      s += v;
      q += v * v;
    }
    const double m = s / n;
    return std::make_pair(m, std::sqrt(q / n - m * m));
  };
  const auto a = run(), b = run();
  EXPECT_EQ(a, b);                  // re-seeded by reset()
  EXPECT_NEAR(a.first, 200, 0.2);
  EXPECT_NEAR(a.second, 4, 0.3);
  dev.set_noise_salt(99);
  EXPECT_NE(run(), a);              // another experiment, another sequence
}
