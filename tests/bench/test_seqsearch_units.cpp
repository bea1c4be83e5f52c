// The pieces of the cache_sequences search on their own: the sequence builders (what each test
// accesses, in which order, into which slot), the affine closure, the family's policy prediction.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "bench/search/builders.hpp"
#include "bench/search/calibrate.hpp"
#include "bench/search/eviction.hpp"
#include "bench/search/policy_probe.hpp"

namespace memhier::seqsearch {
namespace {

struct Acc {
  std::uint64_t off;
  std::uint32_t slot;
};

std::vector<Acc> expand(const AccessSequence& s) {
  std::vector<Acc> v;
  for_each_access(
      s, [&](std::uint64_t o, std::uint8_t, std::uint32_t slot) { v.push_back({o, slot}); }, [] {});
  return v;
}

TEST(SeqSearchBuilders, PrimeProbeOrderAndSlots) {
  PrimeProbe p{8, 64, 0x10000, 3, 2, 2};
  const AccessSequence s = prime_probe(p, 0, 50);
  ASSERT_EQ(check_sequence(s, 1 << 20), "");
  EXPECT_EQ(s.mode, RecordMode::miss_any);
  EXPECT_EQ(s.slots, 16u);
  const auto v = expand(s);
  ASSERT_EQ(v.size(), 8u + 8 + 2 * (1 + 2 * 8));
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(v[i].off, 64u * i);
    EXPECT_EQ(v[i].slot, kUntimed);
    EXPECT_EQ(v[8 + i].slot, static_cast<std::uint32_t>(i));  // second pass: "before" slots
  }
  EXPECT_EQ(v[16].off, 0x10000u);  // the target
  EXPECT_EQ(v[17].off, 3u * 64);   // the probe starts at the rotation
  EXPECT_EQ(v[17].slot, 8u + 3);   // pool line 3 records into "after" slot 3
  EXPECT_EQ(v[22].off, 0u);        // and wraps
  EXPECT_EQ(v[22].slot, 8u);
  EXPECT_EQ(v[33].off, 0x10000u);  // second insertion
}

TEST(SeqSearchBuilders, EvictionTestsWarmThenMeasure) {
  const Lines set = {0x1000, 0x3040, 0x5000};
  const AccessSequence s = eviction_tests({0x200, 0x400}, set, 2, 5, 1, 100);
  ASSERT_EQ(check_sequence(s, 1 << 20), "");
  EXPECT_EQ(s.slots, 2u);
  EXPECT_LE(s.runs.size(), 2 * eviction_test_runs(set.size()));
  const auto v = expand(s);
  ASSERT_EQ(v.size(), 2u * (2 * 4 + 5 * 4));
  std::map<std::uint32_t, int> timed;
  for (const auto& a : v)
    if (a.slot != kUntimed) ++timed[a.slot];
  EXPECT_EQ(timed[0], 5);
  EXPECT_EQ(timed[1], 5);
  EXPECT_EQ(v[0].off, 0x200u);
  EXPECT_EQ(v[8].off, 0x200u);  // first measured round: the victim, timed
  EXPECT_EQ(v[8].slot, 0u);
  EXPECT_EQ(v[28].off, 0x400u);
}

TEST(SeqSearchBuilders, PolicyExperimentsShareSlotsAcrossRepetitions) {
  const Lines clear = {0x9000, 0xa000}, body = {0x1000, 0x2000, 0x1000};
  const AccessSequence same = policy_experiment({}, clear, body, {false, true, true}, 4, 0, 60);
  ASSERT_EQ(check_sequence(same, 1 << 20), "");
  EXPECT_EQ(same.slots, 2u);
  EXPECT_EQ(access_count(same), 3u + 3 * (2 + 3));
  std::vector<std::vector<BodyAccess>> bodies = {{{0x1000, kUntimed}, {0x2000, 0}}, {{0x2000, kUntimed}, {0x1000, 1}}};
  const AccessSequence rounds = policy_rounds(clear, clear, bodies, 2, 0, 60);
  const auto v = expand(rounds);
  ASSERT_EQ(v.size(), 2u * (2 + 2));
  EXPECT_EQ(v[3].slot, 0u);
  EXPECT_EQ(v[7].slot, 1u);
}

TEST(SeqSearchAffineClosure, SpansTheDifferences) {
  EXPECT_EQ(affine_closure({0x100, 0x300, 0x500}, 64, 1 << 20), (Lines{0x100, 0x300, 0x500, 0x700}));
  EXPECT_EQ(affine_closure({0x100, 0x300, 0x200}, 64, 1 << 20), (Lines{0x000, 0x100, 0x200, 0x300}));
  EXPECT_TRUE(affine_closure({0x100, 0x300, 0x500}, 3, 1 << 20).empty());    // 4 lines > 3
  EXPECT_TRUE(affine_closure({0x100, 0x300, 0x500}, 64, 0x600).empty());     // 0x700 outside
  EXPECT_EQ(affine_closure({0x40}, 8, 1 << 20), (Lines{0x40}));
}

// The miss threshold from the levels one launch sampled (the H100's first device run: L1 hits
// 28-34, L2 near 253-294, far 450-590, DRAM ~700).
TEST(SeqSearchLevels, L2NearHitsBelowFarPartitionAbove) {
  // global_cg: re-reads of 16 fresh lines hit the near partition, first reads go to DRAM; the far
  // partition (never sampled) must count as a miss: the midpoint (~497) alone would call it a hit.
  const std::vector<std::uint32_t> hits = {253, 260, 255, 294, 254, 256, 284, 253, 259, 287, 262, 255, 290, 258, 261, 280};
  const LevelSplit s = split_levels(hits, std::vector<std::uint32_t>(16, 700));
  EXPECT_EQ(s.hit_lo, 253u);
  EXPECT_EQ(s.hit_hi, 290u);  // the second slowest: one odd hit is noise
  EXPECT_EQ(s.next_lo, 700u);
  EXPECT_GT(s.threshold, 294u);
  EXPECT_LT(s.threshold, 420u);
}

TEST(SeqSearchLevels, L1HitsBelowTheL2) {
  // global_ca: hits 28-36; misses through the L2 (~254, lines only the L2 held) and DRAM.
  const std::vector<std::uint32_t> hits = {28, 33, 33, 28, 32, 30, 33, 31, 31, 35, 35, 28, 33, 36, 35, 30};
  std::vector<std::uint32_t> slower = {254, 260, 251, 258};
  slower.insert(slower.end(), 16, 690);
  const LevelSplit s = split_levels(hits, slower);
  EXPECT_EQ(s.hit_hi, 35u);
  EXPECT_EQ(s.next_lo, 251u);
  EXPECT_GT(s.threshold, 36u);
  EXPECT_LE(s.threshold, 51u);  // max(1.3 x 35, 35 + 16)
}

TEST(SeqSearchLevels, ClosePairOfLevelsAndStaleLines) {
  // Kepler's L2 (220) and DRAM (300): 1.36 x apart; the midpoint decides.
  EXPECT_EQ(split_levels({220, 221, 222, 220}, {300, 301}).threshold, 261u);
  // A "fresh" line that hit (read before) is no sample of a slower level.
  const LevelSplit s = split_levels({30, 31, 30, 32}, {31, 30, 250});
  EXPECT_EQ(s.next_lo, 250u);
  // No slower access at all: no threshold.
  EXPECT_EQ(split_levels({30, 31}, {30, 32}).threshold, 0u);
  EXPECT_EQ(split_levels({}, {300}).threshold, 0u);
}

TEST(SeqSearchFreshLines, DistinctBlocksOfTheUpperHalf) {
  const std::uint64_t array = 1ull << 30;
  std::set<std::uint64_t> seen;
  for (int k = 0; k < 1000; ++k) {
    const std::uint64_t x = fresh_line(array);
    EXPECT_GE(x, array / 2);
    EXPECT_LT(x, array);
    EXPECT_EQ(x % 65536, 0u);
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 1000u);  // 8192 blocks: none handed out twice
  EXPECT_EQ(fresh_line(1ull << 17), 0u);
}

TEST(SeqSearchCosetCore, DropsLinesOfOtherSets) {
  // The lines of one set of an XOR index in a region: t ^ span{0x1000, 0x4000, 0x20000}, found
  // partly, plus two slow outliers of the probe pass (lines of other sets).
  const std::uint64_t t = 0x300080;
  Lines coset;
  for (std::uint64_t m = 0; m < 8; ++m)
    coset.push_back(t ^ ((m & 1) * 0x1000) ^ ((m & 2) * 0x2000) ^ ((m & 4) * 0x8000));
  Lines found(coset.begin() + 1, coset.begin() + 7);
  found.push_back(0x123440);
  found.push_back(0x2a0c0);
  Lines core = coset_core(found, t);
  std::sort(core.begin(), core.end());
  Lines want(coset.begin() + 1, coset.begin() + 7);
  std::sort(want.begin(), want.end());
  EXPECT_EQ(core, want);
  EXPECT_TRUE(coset_core({0x1000, 0x52340, 0x9a000, 0x3c0c0, 0x77700}, t).empty());  // no structure
  EXPECT_EQ(coset_core({0x1000, 0x2000}, t), (Lines{0x1000, 0x2000}));             // too few to judge
}

// coset_core counts pair XORs (O(n^2)) on distinct lines; the direct triple count (O(n^3), seconds
// for the ~1000 lines an H100 L2 probe pass may flag) must give the same support on sets with
// structure and noise of the sizes it judges.
TEST(SeqSearchCosetCore, PairCountsAgreeWithTheDirectCount) {
  std::uint64_t seed = 12345;
  auto next = [&] { return seed = seed * 6364136223846793005ull + 1442695040888963407ull; };
  for (int trial = 0; trial < 40; ++trial) {
    const std::uint64_t t = 0x400000 + (next() >> 40) % 4096 * 128;
    const unsigned dims = 2 + trial % 6, noise = (trial * 7) % 150;
    std::set<std::uint64_t> pick;
    for (std::uint64_t m = 1; m < (1ull << dims); ++m) {
      std::uint64_t x = t;
      for (unsigned b = 0; b < dims; ++b)
        if (m >> b & 1) x ^= 0x1000ull << (2 * b);
      if (next() % 4) pick.insert(x);
    }
    while (pick.size() < (1ull << dims) / 2 + noise) pick.insert((next() >> 30) % (1ull << 26) * 64);
    pick.erase(t);
    const Lines lines(pick.begin(), pick.end());
    const auto pairs = coset_support_pairs(lines, t);
    ASSERT_EQ(pairs, coset_support_direct(lines, t)) << "trial " << trial << ", " << lines.size() << " lines";
    if (trial % 6 == 5) EXPECT_GT(*std::max_element(pairs.begin(), pairs.end()), 0u) << "trial " << trial;
  }
}

TEST(SeqSearchEvictionMisses, NoiseIsNoEviction) {
  EXPECT_EQ(eviction_misses(16), 2u);
  EXPECT_EQ(eviction_misses(48), 2u);
  EXPECT_EQ(eviction_misses(696), 6u);
  EXPECT_EQ(eviction_misses(2088), 20u);
}

}  // namespace
}  // namespace memhier::seqsearch
