// TLB entries that cover aligned virtual regions (entry_scope "virtual": the H100's 16 MiB entries
// keep their reach across separately created VMM chunks and holes) and hit latencies that depend on
// the address (hit_latency_map: near and far L2 partitions).
#include <gtest/gtest.h>

#include "sim/config.hpp"
#include "sim/device.hpp"

using namespace memhier::sim;

namespace {
Config config(const std::string& tlb_extra, const std::string& l2_extra = "") {
  return parse_config(R"({"format": "memhier-sim-config/1", "name": "t",
    "device": {"compute_capability": "9.0", "sm_count": 1, "sm_clock_khz": 1000000,
               "smem_per_sm_bytes": 65536, "l2_bytes": 1048576, "global_mem_bytes": 68719476736},
    "clock_overhead": {"pair_cycles": 2, "fine_cycles": 8}, "dram_latency_cycles": 500,
    "levels": [{"name": "l2", "size_bytes": 1048576, "line_bytes": 128, "sets": 512, "ways": 16,
                "hit_latency_cycles": 200)" + l2_extra + R"(}],
    "tlbs": [{"name": "l1_tlb", "page_bytes": 2097152, "entry_bytes": 8388608, "entries": 4, "sets": 1, "ways": 4,
              "miss_penalty_cycles": 10)" + tlb_extra + R"(}],
    "paths": {"global_cg": {"levels": ["l2"], "translated": true}}})", "test");
}
}  // namespace

TEST(SimTlbRegions, VirtualEntriesSpanSeparateChunks) {
  SimDevice pages(config("")), region(config(R"(, "entry_scope": "virtual")"));
  for (SimDevice* d : {&pages, &region}) {
    d->set_translation_chunk(2ull << 20);  // VMM chunks of one page
    d->reset();
    for (int k = 0; k < 4; ++k) d->access(d->path_id("global_cg"), k * (2ull << 20));
  }
  EXPECT_EQ(pages.tlb("l1_tlb")->stats().misses, 4u);   // one entry per chunk
  EXPECT_EQ(region.tlb("l1_tlb")->stats().misses, 1u);  // one 8 MiB region whatever the chunks
}

TEST(SimTlbRegions, EntryScopeMustBeKnown) {
  EXPECT_THROW(config(R"(, "entry_scope": "pagez")"), std::runtime_error);
}

TEST(SimLatencyMap, HitLatencyByAddressParity) {
  // bit 0 of v = parity(addr & 0x80): lines 0 and 1 differ by 30 cycles
  SimDevice d(config("", R"(, "hit_latency_map": {"rows": ["0x80"], "add_cycles": [0, 30]})"));
  const int p = d.path_id("global_cg");
  d.reset();
  d.access(p, 0);
  d.access(p, 128);
  EXPECT_EQ(d.access(p, 0), 200u);
  EXPECT_EQ(d.access(p, 128), 230u);
}

TEST(SimLatencyMap, TableMustListTwoToTheRows) {
  EXPECT_THROW(config("", R"(, "hit_latency_map": {"rows": ["0x80", "0x100"], "add_cycles": [0, 30]})"),
               std::runtime_error);
}
