// Inference on synthetic devices whose structure is known (000 Table 5), through the whole
// refinement loop: plan -> infer --next-requests -> extra runs -> ... -> final topology.
#include <gtest/gtest.h>

#include "analysis/cache/infer_caches.hpp"
#include "analysis/report/topology.hpp"
#include "tests/analysis/fake_device.hpp"

using namespace memhier;
using nlohmann::json;

namespace {
// A cache's ways by set from memhier-topology/2: the count over every set, or ways_per_set (beside a
// null ways) where the sets differ.
std::vector<int> ways_of(const json& c) {
  if (c.contains("ways_per_set")) {
    EXPECT_TRUE(c["ways"].is_null()) << c.dump(1);
    return c["ways_per_set"].get<std::vector<int>>();
  }
  EXPECT_TRUE(c["ways"].is_number_integer() && c["sets"].is_number_integer()) << c.dump(1);
  return c["ways"].is_number() && c["sets"].is_number() ? std::vector<int>(c["sets"].get<int>(), c["ways"].get<int>())
                                                        : std::vector<int>{};
}
}  // namespace

// Kepler texture L1 (000 §4.3, Fig. 7): 12 KiB, 32-byte lines, 4 sets x 96 ways, bits 7-8 pick the set.
TEST(InferSynthetic, KeplerTextureL1) {
  test::FakeDevice dev;
  dev.path = "texture";
  dev.cache.line = 32;
  dev.cache.ways = {96, 96, 96, 96};
  dev.cache.set_of = [](std::uint64_t line) { return static_cast<int>((line * 32 >> 7) & 3); };
  dev.plan(2048, 32768);
  int rounds = 0;
  json t = dev.characterize(12, &rounds);
  const json& c = t["caches"]["texture"];
  EXPECT_EQ(c["size_bytes"], 12288) << c.dump(1);
  EXPECT_EQ(c["line_bytes"], 32);
  EXPECT_EQ(c["sector_bytes"], 32);
  EXPECT_EQ(c["sets"], 4);
  EXPECT_EQ(ways_of(c), (std::vector<int>{96, 96, 96, 96}));
  EXPECT_EQ(c["index_bits"], json::array({7, 8}));
  EXPECT_EQ(c["replacement"], "lru_or_fifo");
  EXPECT_NEAR(c["hit_latency_cycles"].get<double>(), 30, 2);
  EXPECT_NEAR(c["miss_penalty_cycles"].get<double>(), 170, 4);
  EXPECT_LT(rounds, 12) << "refinement did not converge";
  EXPECT_EQ(t["refinement_pending"]["pchase"], 0);
}

// Fermi L1 (000 §4.5, Fig. 11): 16 KiB, 128-byte lines, 4 ways, not LRU: way probabilities 1/6,1/2,1/6,1/6.
TEST(InferSynthetic, FermiL1NonLru) {
  test::FakeDevice dev;
  dev.path = "global_ca";
  dev.cache.line = 128;
  dev.cache.ways.assign(32, 4);
  dev.cache.set_of = [](std::uint64_t line) { return static_cast<int>(line % 32); };
  dev.cache.way_prob = {1.0 / 6, 1.0 / 2, 1.0 / 6, 1.0 / 6};
  dev.plan(2048, 32768);
  json t = dev.characterize();
  const json& c = t["caches"]["l1"];
  EXPECT_EQ(c["size_bytes"], 16384) << c.dump(1);
  EXPECT_EQ(c["line_bytes"], 128);
  EXPECT_EQ(c["replacement"], "non-lru") << c["replacement_probabilities"].dump() << c["provenance"]["replacement_probabilities"].dump();
  ASSERT_TRUE(c["replacement_probabilities"].is_array()) << c.dump(1);
  auto p = c["replacement_probabilities"].get<std::vector<double>>();
  ASSERT_EQ(p.size(), 4u);
  // Sorted descending; tolerance: 4 binomial standard errors of the replacements observed.
  const double n = 60;
  const double tol = 4 * std::sqrt(0.25 / n);
  EXPECT_NEAR(p[0], 0.5, tol);
  for (int i = 1; i < 4; ++i) EXPECT_NEAR(p[i], 1.0 / 6, tol);
}

// Maxwell read-only (000 §4.3): 24 KiB, 32-byte lines, 4 sets, data mapping not bit-defined.
TEST(InferSynthetic, MaxwellReadOnlyHashed) {
  test::FakeDevice dev;
  dev.path = "ldg";
  dev.cache.line = 32;
  dev.cache.ways = {192, 192, 192, 192};
  dev.cache.set_of = [](std::uint64_t l) { return static_cast<int>(((l >> 2) ^ (l >> 4) ^ (l >> 7)) & 3); };
  dev.plan(4096, 65536);
  json t = dev.characterize();
  const json& c = t["caches"]["readonly"];
  EXPECT_EQ(c["size_bytes"], 24576) << c.dump(1);
  EXPECT_EQ(c["sets"], 4);
  EXPECT_EQ(ways_of(c), (std::vector<int>{192, 192, 192, 192}));
  EXPECT_EQ(c["index_bits"], "hashed");
}

// A plain LRU cache with conventional bits: 8 KiB, 64-byte lines, 4 sets x 32 ways, bits 6-7.
TEST(InferSynthetic, PlainLru) {
  test::FakeDevice dev;
  dev.path = "global_ca";
  dev.cache.line = 64;
  dev.cache.ways.assign(4, 32);
  dev.cache.set_of = [](std::uint64_t l) { return static_cast<int>(l & 3); };
  dev.plan(1024, 16384);
  json t = dev.characterize();
  const json& c = t["caches"]["l1"];
  EXPECT_EQ(c["size_bytes"], 8192) << c.dump(1);
  EXPECT_EQ(c["line_bytes"], 64);
  EXPECT_EQ(c["index_bits"], json::array({6, 7}));
  EXPECT_EQ(c["replacement"], "lru_or_fifo");
}

// TLBs (000 §4.4, Fig. 8/9): 2 MiB pages, L1 TLB 16 entries fully associative, L2 TLB 1x17 + 6x8.
TEST(InferSynthetic, TlbUnequalSets) {
  test::FakeDevice dev;
  dev.tlb.l2_ways = {17, 8, 8, 8, 8, 8, 8};
  dev.tlb.l2_set_of = [](std::uint64_t p) {
    const std::uint64_t r = p % 65;
    return r < 17 ? 0 : 1 + static_cast<int>((r - 17) / 8);
  };
  dev.tlb_plan();
  json t = dev.characterize(16);
  const json& l1 = t["caches"]["l1_tlb"];
  const json& l2 = t["caches"]["l2_tlb"];
  EXPECT_EQ(l1["page_bytes"], 2u << 20) << l1.dump(1);
  EXPECT_EQ(l1["entries"], 16) << t["address_translation"]["levels"].dump();
  EXPECT_EQ(l1["sets"], 1);
  EXPECT_EQ(ways_of(l1), std::vector<int>{16});
  EXPECT_EQ(l2["entries"], 65) << l2.dump(1);
  EXPECT_EQ(l2["size_bytes"], 130ull << 20);
  ASSERT_TRUE(l2.contains("ways_per_set")) << l2["provenance"]["ways"].dump();  // the sets differ
  auto w = ways_of(l2);
  EXPECT_EQ(w, (std::vector<int>{17, 8, 8, 8, 8, 8, 8}));
  EXPECT_NE(l2["provenance"]["ways"].value("reason", "").find("ways_per_set"), std::string::npos);
  EXPECT_EQ(l1["ways"], 16);
  const json& levels = t["address_translation"]["levels"];
  ASSERT_EQ(levels.size(), 2u) << levels.dump();
  EXPECT_EQ(levels[0]["ways"], 16);
  EXPECT_TRUE(levels[1]["ways"].is_null());
  EXPECT_EQ(levels[1]["ways_per_set"], json::array({17, 8, 8, 8, 8, 8, 8}));
  EXPECT_NEAR(l2["miss_penalty_cycles"].get<double>(), 300, 4);
}

TEST(InferSynthetic, CoarseSweepAsksForSizesInBetween) {
  test::FakeDevice dev;
  dev.path = "texture";
  dev.cache.line = 32;
  dev.cache.ways = {96, 96, 96, 96};
  dev.cache.set_of = [](std::uint64_t line) { return static_cast<int>((line * 32 >> 7) & 3); };
  dev.plan(8192, 32768);  // 8, 16, 24, 32 KiB: C = 12 KiB is between two sizes
  analysis::Requests req;
  auto d = dev.dataset();
  json t = analysis::build_topology(d, req);
  // Where misses begin: the largest footprint without misses, at a lower confidence, with the bracket
  // it lies in. The capacity until the structure is known: the 50 % point, between the same two sizes.
  const json& c = t["caches"]["texture"];
  EXPECT_EQ(c["onset_size_bytes"], 8192) << c.dump(1);
  EXPECT_EQ(c["onset_size_bracket_bytes"], json::array({8192, 16384}));
  EXPECT_LT(c["provenance"]["onset_size_bytes"]["confidence"].get<double>(), 0.9);
  EXPECT_GE(c["size_bytes"].get<int>(), 8192);
  EXPECT_LT(c["size_bytes"].get<int>(), 16384);
  EXPECT_EQ(c["size_bracket_bytes"], json::array({8192, 16384}));
  EXPECT_LT(c["provenance"]["size_bytes"]["confidence"].get<double>(), 0.9);
  EXPECT_TRUE(c["line_bytes"].is_null());
  // At the sweep stride: sizes in between (narrowing); at other strides: the edge-shift runs.
  auto j = req.to_json();
  ASSERT_FALSE(j["pchase"].empty());
  int narrowing = 0, shift = 0;
  for (auto& p : j["pchase"]) {
    if (p["stride"] != 32) {
      ++shift;
      continue;
    }
    ++narrowing;
    EXPECT_GT(p["bytes"].get<int>(), 8192);
    EXPECT_LT(p["bytes"].get<int>(), 16384);
  }
  EXPECT_GT(narrowing, 0);
  EXPECT_GT(shift, 0);
}

TEST(StageTwo, MembershipOpensSetsAndUnequalWays) {
  // lines at C: 5 (set A: lines 0,2,4 -> 3 ways; set B: 1,3 -> 2 ways), new lines 5 (A) and 6 (B)
  std::vector<std::vector<std::uint64_t>> miss = {{0, 2, 4, 5}, {0, 2, 4, 5, 1, 3, 6}};
  auto s = analysis::sets_from_membership(miss, 5);
  EXPECT_TRUE(s.complete);
  EXPECT_EQ(s.ways, (std::vector<int>{3, 2}));
}

TEST(Policy, PeriodicIsLruOrFifo) {
  std::vector<std::uint64_t> line;
  std::vector<bool> miss;
  for (int p = 0; p < 4; ++p)
    for (std::uint64_t l = 0; l < 9; ++l) {
      line.push_back(l);
      miss.push_back(l % 4 == 0);
    }
  EXPECT_EQ(analysis::replacement_of(line, miss, 9).policy, "lru_or_fifo");
}

TEST(Policy, ManySetsOverflowingIsNotFigure11) {
  // N = C + b over 17 lines of a 4-way cache whose index spreads the overflow: most lines miss,
  // irregularly (as on the H100's L1). Fig. 11 reads one overflowed set of ways + 1 lines: with
  // the ways known (4) the trace is refused; without them it is read as before.
  std::vector<std::uint64_t> line;
  std::vector<bool> miss;
  std::uint64_t x = 12345;
  for (int p = 0; p < 6; ++p)
    for (std::uint64_t l = 0; l < 17; ++l) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      line.push_back(l);
      miss.push_back((x >> 33) % 4 != 0);
    }
  const auto refused = analysis::replacement_of(line, miss, 17, 0, 4);
  EXPECT_EQ(refused.policy, "");
  EXPECT_NE(refused.reason.find("more than the 5 of one overflowed 4-way set"), std::string::npos) << refused.reason;
  EXPECT_NE(analysis::replacement_of(line, miss, 17).policy, "");
  // one 4-way set of 5 members overflowing: still read (members = ways + 1)
  std::vector<std::uint64_t> l2;
  std::vector<bool> m2;
  for (int p = 0; p < 4; ++p)
    for (std::uint64_t l = 0; l < 9; ++l) l2.push_back(l), m2.push_back(l % 2 == 0);
  EXPECT_EQ(analysis::replacement_of(l2, m2, 9, 0, 4).policy, "lru_or_fifo");
}
