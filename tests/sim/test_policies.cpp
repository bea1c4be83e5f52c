// Replacement policies, index functions, unequal sets and sectors on small hand-checked cases.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim_test_util.hpp"

namespace memhier::sim {
namespace {

using testing::hits_of;
using testing::one_level_config;
using V = std::vector<bool>;

// One set of two 32-byte lines; A, B, C are three different lines.
constexpr std::uint64_t A = 0, B = 32, C = 64;

TEST(SimPolicy, LruEvictsLeastRecentlyUsed) {
  SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 1, "ways": 2, "replacement": "lru"})"));
  // A B A C: C evicts B (A was used more recently); then B misses and evicts A.
  EXPECT_EQ(hits_of(d, {A, B, A, C, B, A}), (V{false, false, true, false, false, false}));
}

TEST(SimPolicy, FifoIgnoresHits) {
  SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 1, "ways": 2, "replacement": "fifo"})"));
  // A B A C: C evicts A (first in) despite A's hit; B still hits; A evicts B.
  EXPECT_EQ(hits_of(d, {A, B, A, C, B, A, B}), (V{false, false, true, false, true, false, false}));
}

TEST(SimPolicy, TreePlruDiffersFromLru) {
  SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 1, "ways": 4, "replacement": "plru"})"));
  const std::uint64_t D = 96, E = 128;
  // Fill ways 0-3 with A B C D, use A again: the root points right (away from A), the right
  // node points left (away from D, used last there), so E replaces C (LRU would replace B).
  EXPECT_EQ(hits_of(d, {A, B, C, D, A, E, B, D, A, C}),
            (V{false, false, false, false, true, false, true, true, true, false}));
  const CacheModel* c = d.level("c");
  // Last uses E(2) B(1) D(3) A(0): the tree points right, then left, so C replaced E in way 2.
  EXPECT_EQ(c->line_at(0, 2), 2);
  EXPECT_EQ(c->line_at(0, 1), 1);
}

TEST(SimPolicy, RandomFollowsWeightsAndSeed) {
  auto run = [](std::uint64_t seed, const char* weights) {
    SimDevice d(one_level_config(std::string(R"({"line_bytes": 32, "sets": 1, "ways": 4, "replacement": {"policy": "random", "weights": )") +
                                 weights + ", \"seed\": " + std::to_string(seed) + "}}"));
    const int p = d.path_id("global_cg");
    for (int k = 0; k < 20000; ++k) d.access(p, 32ull * (k % 5));  // 5 lines cycling through 4 ways
    return d.level("c")->evictions_by_way();
  };
  auto a = run(7, "[1, 1, 1, 5]");
  auto b = run(7, "[1, 1, 1, 5]");
  auto c = run(8, "[1, 1, 1, 5]");
  EXPECT_EQ(a, b);  // same seed, same run
  EXPECT_NE(a, c);
  double total = 0;
  for (auto x : a) total += static_cast<double>(x);
  ASSERT_GT(total, 1000);
  EXPECT_NEAR(a[3] / total, 5.0 / 8, 0.03);
  EXPECT_NEAR(a[0] / total, 1.0 / 8, 0.03);
}

TEST(SimPolicy, EmptyWaysFillFirstInOrder) {
  SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 1, "ways": 4, "replacement": {"policy": "random", "seed": 3}})"));
  hits_of(d, {A, B, C, 96});
  const CacheModel* c = d.level("c");
  for (std::uint32_t w = 0; w < 4; ++w) EXPECT_EQ(c->line_at(0, w), static_cast<std::int64_t>(w));
  EXPECT_EQ(c->stats().evictions, 0u);
}

TEST(SimIndex, ModuloWithNonPowerOfTwoSets) {
  SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 3, "ways": 1, "index": {"function": "modulo"}})"));
  const CacheModel* c = d.level("c");
  EXPECT_EQ(c->set_of(0), 0u);
  EXPECT_EQ(c->set_of(32), 1u);
  EXPECT_EQ(c->set_of(64), 2u);
  EXPECT_EQ(c->set_of(96), 0u);
  // 0 and 96 conflict in the one way of set 0; 32 and 64 do not.
  EXPECT_EQ(hits_of(d, {0, 32, 64, 96, 32, 64, 0}), (V{false, false, false, false, true, true, false}));
}

TEST(SimIndex, ChosenBits) {
  SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 4, "ways": 1, "index": {"function": "bits", "bits": [7, 8]}})"));
  const CacheModel* c = d.level("c");
  EXPECT_EQ(c->set_of(0x20), 0u);  // bits 5-6 do not matter
  EXPECT_EQ(c->set_of(0x80), 1u);
  EXPECT_EQ(c->set_of(0x100), 2u);
  EXPECT_EQ(c->set_of(0x1E0), 3u);
  EXPECT_EQ(c->set_of(0x200), 0u);
}

TEST(SimIndex, XorOfBitGroups) {
  SimDevice d(one_level_config(
      R"({"line_bytes": 32, "sets": 4, "ways": 1, "index": {"function": "xor", "groups": [{"lo": 7, "width": 2}, {"lo": 9, "width": 2}]}})"));
  const CacheModel* c = d.level("c");
  EXPECT_EQ(c->set_of(0x80), 1u);
  EXPECT_EQ(c->set_of(0x200), 1u);
  EXPECT_EQ(c->set_of(0x280), 0u);
  EXPECT_EQ(c->set_of(0x380), 2u);  // bits 7-8 = 3, bits 9-10 = 1
  EXPECT_EQ(c->set_of(0x780), 0u);  // bits 7-8 = 3, bits 9-10 = 3
}

TEST(SimIndex, Table) {
  SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 3, "ways": 1, "index": {"function": "table", "shift": 5, "table": [2, 0, 1]}})"));
  const CacheModel* c = d.level("c");
  EXPECT_EQ(c->set_of(0), 2u);
  EXPECT_EQ(c->set_of(32), 0u);
  EXPECT_EQ(c->set_of(64), 1u);
  EXPECT_EQ(c->set_of(96), 2u);
}

TEST(SimGeometry, UnequalSets) {
  // Set 0 has three ways, set 1 one: three lines of set 0 fit, two lines of set 1 thrash.
  SimDevice d(one_level_config(R"({"line_bytes": 32, "ways": [3, 1]})"));
  const std::vector<std::uint64_t> round = {0, 64, 128, 32, 96};
  hits_of(d, round);
  EXPECT_EQ(hits_of(d, round), (V{true, true, true, false, false}));
  const CacheModel* c = d.level("c");
  EXPECT_EQ(c->sets(), 2u);
  EXPECT_EQ(c->ways(0), 3u);
  EXPECT_EQ(c->ways(1), 1u);
  EXPECT_EQ(c->spec().capacity_bytes(), 128u);
  EXPECT_EQ(c->evictions_by_set(), (std::vector<std::uint64_t>{0, 3}));
}

TEST(SimGeometry, SectorsFillInsideLines) {
  SimDevice d(one_level_config(R"({"line_bytes": 128, "sector_bytes": 32, "sets": 1, "ways": 1})"));
  // 0 and 4 share a sector; 32 is the next sector of the same line (sector miss, no eviction);
  // 128 is another line and evicts the whole line, so 32 misses again.
  EXPECT_EQ(hits_of(d, {0, 4, 32, 36, 0, 128, 32}), (V{false, true, false, true, true, false, false}));
  const LevelStats& s = d.level("c")->stats();
  EXPECT_EQ(s.sector_misses, 1u);
  EXPECT_EQ(s.misses, 4u);
  EXPECT_EQ(s.evictions, 2u);
}

TEST(SimGeometry, WideSetsUseTheLineMapConsistently) {
  // 32 ways per set (looked up through the level-wide map): an LRU cycle of 33 lines in one set
  // always misses, a cycle of 32 always hits after the first round.
  for (int lines : {32, 33}) {
    SimDevice d(one_level_config(R"({"line_bytes": 32, "sets": 2, "ways": 32, "replacement": "lru"})"));
    std::vector<std::uint64_t> round;
    for (int k = 0; k < lines; ++k) round.push_back(64ull * k);  // all in set 0
    hits_of(d, round);
    auto h = hits_of(d, round);
    for (int r = 0; r < 3; ++r) h = hits_of(d, round);
    EXPECT_EQ(std::count(h.begin(), h.end(), true), lines == 32 ? 32 : 0) << lines << " lines";
  }
}

TEST(SimDeviceLatency, FirstHitLevelPlusTlbPenalties) {
  Config c = parse_config(R"({"format": "memhier-sim-config/1", "name": "t",
    "device": {"compute_capability": "7.0", "sm_count": 1, "sm_clock_khz": 1000000,
               "smem_per_sm_bytes": 65536, "l2_bytes": 4096, "global_mem_bytes": 1073741824},
    "clock_overhead": {"pair_cycles": 4, "fine_cycles": 8}, "dram_latency_cycles": 500,
    "levels": [{"name": "l1", "line_bytes": 32, "sets": 1, "ways": 1, "hit_latency_cycles": 20},
               {"name": "l2", "line_bytes": 32, "sets": 1, "ways": 4, "hit_latency_cycles": 200}],
    "tlbs": [{"name": "t1", "page_bytes": 4096, "sets": 1, "ways": 1, "miss_penalty_cycles": 7},
             {"name": "t2", "page_bytes": 4096, "sets": 1, "ways": 2, "miss_penalty_cycles": 70}],
    "paths": {"global_ca": {"levels": ["l1", "l2"], "translated": true},
              "global_cg": {"levels": ["l2"]}}})", "t");
  SimDevice d(c);
  const int ca = d.path_id("global_ca"), cg = d.path_id("global_cg");
  EXPECT_EQ(d.path_id("texture"), -1);
  EXPECT_EQ(d.access(ca, 0), 500u + 7 + 70);     // cold: DRAM, both TLBs miss
  EXPECT_EQ(d.access(ca, 0), 20u);               // L1 hit, TLB hit
  EXPECT_EQ(d.access(ca, 32), 500u);             // new line: DRAM; same page: TLB hit
  EXPECT_EQ(d.access(ca, 0), 200u);              // evicted from the one-way L1, L2 hit
  EXPECT_EQ(d.access(cg, 4096), 500u);           // global_cg is not translated
  EXPECT_EQ(d.access(ca, 4096), 200u + 7 + 70);  // L2 hit (filled by global_cg), new page
  EXPECT_EQ(d.access(ca, 0), 200u + 7);          // page 0: L1 TLB (one entry) misses, L2 TLB hits
}

}  // namespace
}  // namespace memhier::sim
