// The pieces of the cache_sequences search on their own: the sequence builders (what each test
// accesses, in which order, into which slot), the affine closure, the family's policy prediction.
#include <gtest/gtest.h>

#include <map>

#include "bench/seqsearch/builders.hpp"
#include "bench/seqsearch/eviction.hpp"
#include "bench/seqsearch/policy_probe.hpp"

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

}  // namespace
}  // namespace memhier::seqsearch
