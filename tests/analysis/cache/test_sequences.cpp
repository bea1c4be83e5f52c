// Eviction sets, the GF(2) index matrix and replacement from sequence traces (analysis/core/gf2,
// seq_evidence, seq_sets, seq_policy), on traces built here from sequences whose outcomes a known
// cache model gives: every conclusion must come from the runs and records alone.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/core/gf2.hpp"
#include "analysis/cache/sequences/evidence.hpp"
#include "analysis/cache/sequences/policy.hpp"
#include "analysis/cache/sequences/sets.hpp"
#include "common/policy.hpp"

using namespace memhier;
using namespace memhier::analysis;

TEST(Gf2, AnnihilatorOfAKernel) {
  // H = rows {bit0 ^ bit2, bit1}: kernel spanned by bit0^bit2 and bit3.
  gf2::Basis k;
  EXPECT_TRUE(k.add(0b0101));
  EXPECT_TRUE(k.add(0b1000));
  EXPECT_FALSE(k.add(0b1101));  // in the span
  const auto rows = gf2::annihilator(k, 0b1111);
  ASSERT_EQ(rows.size(), 2u);
  for (auto r : rows) {
    EXPECT_EQ(gf2::parity(r & 0b0101), 0);
    EXPECT_EQ(gf2::parity(r & 0b1000), 0);
  }
  EXPECT_EQ(gf2::rref(rows), gf2::rref({0b0101, 0b0010}));
}

namespace {

// A cache of `sets` x `ways` lines of 64 B whose set is H x over GF(2), under `policy`; runs an
// access sequence and fills its records (miss_count slots), as a backend would.
struct ModelCache {
  std::vector<std::uint64_t> rows;
  std::uint32_t ways = 4;
  std::string policy = "lru";
  std::uint32_t set_of(std::uint64_t a) const {
    std::uint32_t s = 0;
    for (std::size_t j = 0; j < rows.size(); ++j) s |= static_cast<std::uint32_t>(gf2::parity(a & rows[j])) << j;
    return s;
  }
  SeqTraceEntry run(AccessSequence seq) const {
    std::map<std::uint32_t, std::vector<std::int64_t>> per_set;
    std::vector<std::pair<std::uint32_t, std::size_t>> where;  // (set, index in its list) per access
    std::vector<std::uint32_t> slots;
    for_each_access(
        seq,
        [&](std::uint64_t off, std::uint8_t, std::uint32_t slot) {
          auto& v = per_set[set_of(off)];
          where.push_back({set_of(off), v.size()});
          v.push_back(static_cast<std::int64_t>(off / 64));
          slots.push_back(slot);
        },
        [] {});
    std::map<std::uint32_t, std::vector<bool>> hits;
    for (auto& [s, v] : per_set) hits[s] = policy::simulate_set(policy, ways, v);
    SeqTraceEntry e;
    e.records.assign(seq.slots, 0);
    for (std::size_t k = 0; k < where.size(); ++k)
      if (slots[k] != kUntimed && !hits[where[k].first][where[k].second]) e.records[slots[k]] += 1;
    e.seq = std::move(seq);
    return e;
  }
};

// The eviction test of `victim` against `set`: (v, S) twice untimed, then (v timed, S) 8 times.
AccessSequence eviction_test(std::uint64_t victim, const std::vector<std::uint64_t>& set) {
  SequenceBuilder b(RecordMode::miss_count, 100);
  const std::uint32_t slot = b.new_slots(1);
  for (int r = 0; r < 10; ++r) {
    if (r < 2) b.access(victim, 0);
    else b.pass_into(victim, 0, 1, 0, slot, 0);
    for (auto x : set) b.access(x, 0);
  }
  return b.take();
}

// Lines of one set under H: from `base`, the lines that keep H x = H base among the first `span`.
std::vector<std::uint64_t> congruent(const ModelCache& m, std::uint64_t base, std::size_t n, std::uint64_t span) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t a = base + 64; a < base + span && out.size() < n; a += 64)
    if (m.set_of(a) == m.set_of(base)) out.push_back(a);
  return out;
}

SeqTrace trace_of(const ModelCache& m, std::uint64_t t, const std::vector<std::uint64_t>& E, std::uint64_t array) {
  SeqTrace tr;
  tr.benchmark = "cache_sequences/cache:l1/path:global_ca/stride:64/seed:1";
  tr.meta = {{"cache", "l1"}, {"path", "global_ca"}, {"array_bytes", std::to_string(array)},
             {"hit_threshold_cycles", "100"}, {"stopped", "no"}};
  tr.entries.push_back(m.run(eviction_test(t, E)));
  for (std::size_t i = 0; i < E.size(); ++i) {  // minimality: every one-line-smaller set
    auto sub = E;
    sub.erase(sub.begin() + static_cast<std::ptrdiff_t>(i));
    tr.entries.push_back(m.run(eviction_test(t, sub)));
  }
  // congruence of every single bit flip and of every pair of bits from the line up
  for (unsigned b = 6; (1ull << b) < array; ++b) tr.entries.push_back(m.run(eviction_test(t ^ (1ull << b), E)));
  for (unsigned a = 6; (1ull << a) < array; ++a)
    for (unsigned b = a + 1; (1ull << b) < array; ++b)
      tr.entries.push_back(m.run(eviction_test(t ^ (1ull << a) ^ (1ull << b), E)));
  return tr;
}

}  // namespace

TEST(SeqSets, BitIndexGivesWaysRankAndBits) {
  ModelCache m;
  m.rows = {1ull << 6, 1ull << 7, 1ull << 8};  // 8 sets, bits 6-8
  const std::uint64_t array = 1 << 16, t = 0x4000;
  const auto E = congruent(m, t, m.ways, array);
  ASSERT_EQ(E.size(), m.ways);
  const SeqEvidence ev = read_evidence(trace_of(m, t, E, array));
  const SeqStructure s = analyze_sets({ev}, 64);
  ASSERT_TRUE(s.minimal) << s.note;
  EXPECT_EQ(s.ways(), 4);
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(index_of(s), nlohmann::json::array({6, 8}));
  EXPECT_EQ(s.contradictions, 0u);
  EXPECT_TRUE(s.every_bit_decided());
}

TEST(SeqSets, XorHashGivesTheMatrixRowSpace) {
  ModelCache m;
  // set bit j = bit 6+j ^ bit 9+j ^ bit 12+j (an XOR fold) and a row with a random high bit
  m.rows = {(1ull << 6) | (1ull << 9) | (1ull << 14), (1ull << 7) | (1ull << 10), (1ull << 8) | (1ull << 11) | (1ull << 13)};
  const std::uint64_t array = 1 << 15, t = 0x2040;
  const auto E = congruent(m, t, m.ways, array);
  const SeqEvidence ev = read_evidence(trace_of(m, t, E, array));
  const SeqStructure s = analyze_sets({ev}, 64);
  ASSERT_TRUE(s.minimal);
  EXPECT_EQ(s.rank(), 3);
  EXPECT_EQ(index_of(s), "hashed");
  EXPECT_EQ(gf2::rref(s.rows), gf2::rref(m.rows));
}

TEST(SeqSets, UntestedBitsLeaveTheMatrixOpen) {
  // Without the congruence tests only the minimal set is known: ways, but no bit decided.
  ModelCache m;
  m.rows = {1ull << 6, 1ull << 7};
  const std::uint64_t t = 0x1000;
  const auto E = congruent(m, t, m.ways, 1 << 14);
  SeqTrace tr = trace_of(m, t, E, 1 << 14);
  tr.entries.resize(1 + E.size());
  const SeqStructure s = analyze_sets({read_evidence(tr)}, 64);
  EXPECT_TRUE(s.minimal);
  EXPECT_EQ(s.ways(), 4);
  EXPECT_FALSE(s.every_bit_decided());
}

TEST(SeqSets, NoEvictingSetNoWays) {
  ModelCache m;
  m.rows = {1ull << 6};
  const auto E = congruent(m, 0, 2, 1 << 12);  // fewer lines than ways never evict
  SeqTrace tr = trace_of(m, 0, E, 1 << 12);
  const SeqStructure s = analyze_sets({read_evidence(tr)}, 64);
  EXPECT_FALSE(s.minimal);
}

TEST(SeqPolicy, SequencesNameThePolicy) {
  // Age tests on one set (W ways + fresh lines), as the family runs them: the candidates that
  // predict every record must include the model's policy (in one of their classes of identical
  // outcomes) and exclude LRU for the others; LRU and FIFO's shares of records predicted are kept.
  for (const std::string pol : {"lru", "fifo", "qlru_h11_m1_r0_u0", "srrip", "qlru_h20_m0_r1_u2_umo", "qlru_h00_m1_r2_u1"}) {
    ModelCache m;
    m.rows = {1ull << 6, 1ull << 7};
    m.policy = pol;
    const std::uint64_t t = 0x1000;
    const auto lines = congruent(m, t, 3 * m.ways + 4, 1 << 16);
    const std::vector<std::uint64_t> E(lines.begin(), lines.begin() + m.ways);
    SeqTrace tr = trace_of(m, t, E, 1 << 16);
    for (std::size_t k = m.ways; k < lines.size(); ++k) tr.entries.push_back(m.run(eviction_test(lines[k], E)));  // verify
    for (std::size_t n = 0; n <= m.ways + 1; ++n)
      for (std::size_t probe = 0; probe < m.ways; ++probe) {
        SequenceBuilder b(RecordMode::miss_count, 100);
        for (std::size_t k = 0; k < 2 * m.ways; ++k) b.access(lines[m.ways + 4 + k % (2 * m.ways)], 0);  // clear
        for (std::size_t k = 0; k < m.ways; ++k) b.access(lines[k], 0);
        b.access(lines[probe], 0);  // a hit that ages the others
        for (std::size_t k = 0; k < n; ++k) b.access(lines[m.ways + k], 0);
        b.access(lines[(probe + 1) % m.ways], 0, true);
        tr.entries.push_back(m.run(b.take()));
      }
    policy::SplitMix64 rng(5);  // random sequences over W + 2 lines split what age tests leave together
    for (int q = 0; q < 20; ++q) {
      SequenceBuilder b(RecordMode::miss_count, 100);
      for (std::size_t k = 0; k < 2 * m.ways; ++k) b.access(lines[m.ways + 4 + k], 0);
      for (int k = 0; k < 24; ++k) b.access(lines[rng.next() % (m.ways + 2)], 0, true);
      tr.entries.push_back(m.run(b.take()));
    }
    const std::vector<SeqEvidence> evs = {read_evidence(tr)};  // analyze_policy reads them through s
    const SeqStructure s = analyze_sets(evs, 64);
    ASSERT_TRUE(s.minimal) << pol;
    const SeqPolicy p = analyze_policy(s);
    auto holds = [&](const std::string& n) {
      for (const auto& c : p.classes)
        if (std::find(c.begin(), c.end(), n) != c.end()) return true;
      return false;
    };
    EXPECT_TRUE(holds(pol)) << pol;
    if (pol != "lru") {
      EXPECT_FALSE(holds("lru")) << pol;
    }
    EXPECT_LE(p.consistent.size(), kListedPolicies);
    EXPECT_EQ(p.candidates, policy::candidate_policies(4, true).size() + 1);  // + srrip
    std::size_t members = 0;
    for (const auto& c : p.classes) members += c.size();
    EXPECT_LE(members, p.consistent_total);
    ASSERT_EQ(p.gpgpusim.size(), 2u);
    for (const auto& [n, k] : p.gpgpusim) {
      EXPECT_LE(k, p.records);
      if (n == pol) {
        EXPECT_EQ(k, p.records) << pol;
      }
    }
    EXPECT_GT(p.sequences, 0u);
  }
}
