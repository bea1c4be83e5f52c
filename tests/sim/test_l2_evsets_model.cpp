// The simulated whole L2 of the l2_evsets family (sim/l2_evsets.hpp): the config key's parsing and
// errors, the set index, the pinned sets, and one test in one set (a set full of junk, the target
// written, the congruent lines read `passes` times).
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "common/policy.hpp"
#include "sim/l2_evsets.hpp"
#include "sim_test_util.hpp"

namespace memhier::sim {
namespace {

using nlohmann::json;

std::string config_with(const std::string& evsets) {
  return R"({"format": "memhier-sim-config/1", "name": "t",
    "device": {"compute_capability": "9.0", "sm_count": 2, "sm_clock_khz": 1000000,
               "smem_per_sm_bytes": 65536, "l2_bytes": 1048576, "global_mem_bytes": 1073741824},
    "clock_overhead": {"pair_cycles": 4, "fine_cycles": 8}, "dram_latency_cycles": 500,
    "levels": [{"name": "l2", "line_bytes": 128, "sets": 4, "ways": 2, "replacement": "lru", "hit_latency_cycles": 20}],
    "paths": {"global_cg": {"levels": ["l2"]}}, "l2_evsets": )" +
         evsets + "}";
}

std::string error_of(const std::string& evsets) {
  try {
    parse_config(config_with(evsets), "cfg.json");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

L2EvsetsModel model(const std::string& text) { return parse_l2_evsets_model(json::parse(text)); }

TEST(SimL2Evsets, ParsesDefaultsAndEveryKey) {
  const L2EvsetsModel d = model(R"({"ways": 16, "sets": 96})");
  EXPECT_TRUE(d.present);
  EXPECT_EQ(d.ways, 16u);
  EXPECT_EQ(d.sets, 96u);
  EXPECT_EQ(d.line_bytes, 128u);
  EXPECT_EQ(d.index, "modulo");
  EXPECT_EQ(d.policy, "lru");
  EXPECT_EQ(d.seed, 1u);
  EXPECT_TRUE(d.readout_works);
  EXPECT_EQ(d.pinned_fraction, 0);
  EXPECT_LT(d.hit_cycles, d.miss_cycles);
  EXPECT_EQ(d.capacity_bytes(), 96u * 16 * 128);

  const L2EvsetsModel m = model(R"({"ways": 8, "sets": 1000, "line_bytes": 128, "index": "hash", "policy": "MRU",
    "seed": 9, "readout_works": false, "pinned_fraction": 0.25, "hit_cycles": 270, "miss_cycles": 640})");
  EXPECT_EQ(m.ways, 8u);
  EXPECT_EQ(m.index, "hash");
  EXPECT_EQ(m.policy, "bit_plru");  // the canonical name of an alias
  EXPECT_EQ(m.seed, 9u);
  EXPECT_FALSE(m.readout_works);
  EXPECT_EQ(m.pinned_fraction, 0.25);
  EXPECT_EQ(m.hit_cycles, 270u);
  EXPECT_EQ(m.miss_cycles, 640u);

  const Config c = parse_config(config_with(R"({"ways": 4, "sets": 10})"), "cfg.json");
  EXPECT_TRUE(c.l2_evsets.present);
  EXPECT_EQ(c.l2_evsets.capacity_bytes(), 5120u);
  EXPECT_FALSE(testing::one_level_config(R"({"line_bytes": 64, "sets": 4, "ways": 2})").l2_evsets.present);
}

TEST(SimL2Evsets, ErrorsAreOneLineNamingTheKey) {
  const std::map<std::string, std::string> bad = {
      {"[1, 2]", "l2_evsets: must be an object"},
      {R"({"ways": 4, "sets": 8, "slices": 2})", "l2_evsets: unknown key 'slices'"},
      {R"({"sets": 8})", "l2_evsets: missing 'ways'"},
      {R"({"ways": 4})", "l2_evsets: missing 'sets'"},
      {R"({"ways": 0, "sets": 8})", "l2_evsets: 'ways' must be in 1 ... 64"},
      {R"({"ways": 65, "sets": 8})", "l2_evsets: 'ways' must be in 1 ... 64"},
      {R"({"ways": 4.5, "sets": 8})", "l2_evsets: 'ways' must be a non-negative integer"},
      {R"({"ways": 4, "sets": 0})", "l2_evsets: 'sets' must be in 1 ..."},
      {R"({"ways": 4, "sets": -3})", "l2_evsets: 'sets' must be a non-negative integer"},
      {R"({"ways": 64, "sets": 65537})", "l2_evsets: 'sets' x 'ways' must be at most 4194304 lines"},
      {R"({"ways": 4, "sets": 8, "line_bytes": 64})", "l2_evsets: 'line_bytes' must be 128"},
      {R"({"ways": 4, "sets": 8, "index": "xor"})", "l2_evsets: 'index' must be \"modulo\" or \"hash\""},
      {R"({"ways": 4, "sets": 8, "index": 3})", "l2_evsets: 'index' must be \"modulo\" or \"hash\""},
      {R"({"ways": 4, "sets": 8, "policy": "belady"})", "l2_evsets: unknown replacement policy 'belady'"},
      {R"({"ways": 12, "sets": 8, "policy": "plru"})", "l2_evsets: tree-PLRU needs a power-of-two number of ways"},
      {R"({"ways": 4, "sets": 8, "seed": -1})", "l2_evsets: 'seed' must be a non-negative integer"},
      {R"({"ways": 4, "sets": 8, "readout_works": 1})", "l2_evsets: 'readout_works' must be true or false"},
      {R"({"ways": 4, "sets": 8, "hit_cycles": 0})", "l2_evsets: 'hit_cycles' must be in 1 ... 1000000"},
      {R"({"ways": 4, "sets": 8, "hit_cycles": 300, "miss_cycles": 300})", "l2_evsets: 'miss_cycles' must exceed 'hit_cycles'"},
      {R"({"ways": 4, "sets": 8, "pinned_fraction": 1.5})", "l2_evsets: 'pinned_fraction' must be in [0, 1]"},
      {R"({"ways": 4, "sets": 8, "pinned_fraction": "x"})", "l2_evsets: 'pinned_fraction' must be a number"},
      {R"({"ways": 1, "sets": 8, "pinned_fraction": 0.5})", "l2_evsets: a 'pinned_fraction' above 0 needs at least 2 ways"},
      {R"({"ways": 8, "sets": 8, "policy": "plru", "pinned_fraction": 0.5})",
       "l2_evsets: pinned sets offer ways - 1 ways: tree-PLRU needs"},
  };
  for (const auto& [text, part] : bad) {
    const std::string msg = error_of(text);
    EXPECT_EQ(msg.rfind("cfg.json: ", 0), 0u) << text << " -> " << msg;
    EXPECT_NE(msg.find(part), std::string::npos) << text << " -> " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  EXPECT_EQ(error_of(R"({"ways": 8, "sets": 8, "policy": "plru"})"), "");
}

TEST(SimL2Evsets, ShippedConfigsModelTheirL2) {
  const Config h = load_config(testing::config_path("hopper_like"));
  ASSERT_TRUE(h.l2_evsets.present);
  EXPECT_EQ(h.l2_evsets.ways, 16u);
  EXPECT_EQ(h.l2_evsets.index, "hash");
  EXPECT_EQ(h.l2_evsets.capacity_bytes(), h.device.l2_bytes);  // the L2 the context reports
  const Config u = load_config(testing::config_path("unlike_hopper"));
  ASSERT_TRUE(u.l2_evsets.present);
  EXPECT_EQ(u.l2_evsets.ways, 12u);
  EXPECT_NE(u.l2_evsets.sets & (u.l2_evsets.sets - 1), 0u);  // not a power of two
  EXPECT_EQ(u.l2_evsets.index, "modulo");
  EXPECT_EQ(u.l2_evsets.policy, "fifo");
  // 683 sets x 12 ways x 128 B: the device's 1 MiB rounded up to whole sets
  EXPECT_LT(u.l2_evsets.capacity_bytes() - u.device.l2_bytes, 12u * 128);
}

TEST(SimL2Evsets, SetIndexModuloAndSeededHash) {
  const L2EvsetsModel mod = model(R"({"ways": 4, "sets": 96})");
  for (std::uint64_t line : {0ull, 95ull, 96ull, 1000ull, 123456789ull}) EXPECT_EQ(evset_set_of(mod, line), line % 96);
  const L2EvsetsModel h1 = model(R"({"ways": 4, "sets": 96, "index": "hash", "seed": 1})");
  const L2EvsetsModel h2 = model(R"({"ways": 4, "sets": 96, "index": "hash", "seed": 2})");
  std::vector<int> count(96, 0);
  int same = 0, modulo_like = 0;
  for (std::uint64_t line = 0; line < 96 * 100; ++line) {
    const std::uint64_t s = evset_set_of(h1, line);
    ASSERT_LT(s, 96u);
    ++count[s];
    same += s == evset_set_of(h2, line);
    modulo_like += s == line % 96;
  }
  for (int c : count) {  // spread: 100 per set on average
    EXPECT_GT(c, 50);
    EXPECT_LT(c, 160);
  }
  EXPECT_LT(same, 96 * 100 / 20);  // another seed, another hash
  EXPECT_LT(modulo_like, 96 * 100 / 20);
}

TEST(SimL2Evsets, PinnedSetsFromTheSeed) {
  const L2EvsetsModel none = model(R"({"ways": 4, "sets": 1000})");
  const L2EvsetsModel all = model(R"({"ways": 4, "sets": 1000, "pinned_fraction": 1})");
  const L2EvsetsModel some = model(R"({"ways": 4, "sets": 1000, "pinned_fraction": 0.25, "seed": 5})");
  int pinned = 0;
  for (std::uint64_t s = 0; s < 1000; ++s) {
    EXPECT_FALSE(evset_set_pinned(none, s));
    EXPECT_TRUE(evset_set_pinned(all, s));
    EXPECT_EQ(evset_ways_offered(all, s), 3u);
    pinned += evset_set_pinned(some, s);
    EXPECT_EQ(evset_ways_offered(some, s), evset_set_pinned(some, s) ? 3u : 4u);
  }
  EXPECT_GT(pinned, 190);
  EXPECT_LT(pinned, 310);
}

// k distinct lines of the target's set (line numbers other than the target's).
std::vector<std::uint64_t> congruent(const L2EvsetsModel& m, std::uint64_t target, std::size_t k) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t line = 0; v.size() < k; ++line)
    if (line != target && evset_set_of(m, line) == evset_set_of(m, target)) v.push_back(line);
  return v;
}

// The target is evicted exactly when at least `ways` congruent lines are read: the set starts full
// of junk and the target is written right before the reads, so under LRU, FIFO, tree-PLRU (only
// misses: the tree walks every way once per `ways` misses) and SRRIP (the target and the junk age
// together; the junk, in lower ways, goes first) the target is the ways-th victim. The second pass
// only hits when fewer lines were read, so it changes nothing.
TEST(SimL2Evsets, DeterministicPoliciesEvictWithExactlyWaysLines) {
  for (const char* policy : {"lru", "fifo", "plru", "srrip"})
    for (std::uint32_t ways : {1u, 2u, 4u, 8u, 12u, 16u, 20u}) {
      if (!policy::policy_ways_problem(policy, ways).empty()) continue;
      for (const char* index : {"modulo", "hash"}) {
        const L2EvsetsModel m = model(std::string(R"({"sets": 96, "ways": )") + std::to_string(ways) + R"(, "policy": ")" +
                                      policy + R"(", "index": ")" + index + "\"}");
        const std::uint64_t target = 100003;
        for (int passes : {1, 2, 3})
          for (std::size_t k = 0; k <= 2 * ways + 1; ++k)
            EXPECT_EQ(evset_test(m, target, congruent(m, target, k), passes, k), k >= ways)
                << policy << " ways " << ways << " index " << index << " passes " << passes << " lines " << k;
      }
    }
}

// Not every policy needs the ways: the test's start state (junk installed in order, then the target)
// decides. bit-PLRU (MRU) keeps the newest junk line's bit, so the target goes at the ways - 1-th
// miss; a QLRU that inserts at age 3 (m3) or an r1 victim rule under a u2/u3 update, and BRRIP (age
// 3 but 1 time in 32), evict the new target at the next miss: one line. Every deterministic policy of
// common/policy.hpp is one of these three thresholds (ways, ways - 1, 1) at 4, 8 and 16 ways.
TEST(SimL2Evsets, PolicyThresholdsOtherThanTheWays) {
  auto lines_needed = [](const std::string& policy, std::uint32_t ways) {
    const L2EvsetsModel m = model(R"({"sets": 1, "ways": )" + std::to_string(ways) + R"(, "policy": ")" + policy + "\"}");
    std::vector<std::uint64_t> lines;
    for (std::size_t k = 0; k <= 3 * ways; lines.push_back(k++))
      if (evset_test(m, 1000000, lines, 2, 0)) return lines.size();
    return std::size_t{0};
  };
  for (const char* p : {"lru", "fifo", "plru", "plru_tree", "bit_plru_n", "nru", "srrip", "qlru_h11_m1_r0_u0"})
    EXPECT_EQ(lines_needed(p, 8), 8u) << p;
  for (const char* p : {"bit_plru", "qlru_h00_m1_r0_u1"}) EXPECT_EQ(lines_needed(p, 8), 7u) << p;
  for (const char* p : {"qlru_h11_m3_r0_u0", "qlru_h21_m0_r1_u2", "brrip"}) EXPECT_EQ(lines_needed(p, 8), 1u) << p;
}

TEST(SimL2Evsets, PinnedSetOffersOneWayLess) {
  const L2EvsetsModel m = model(R"({"ways": 16, "sets": 64, "pinned_fraction": 0.5, "seed": 3})");
  int pinned_seen = 0, free_seen = 0;
  for (std::uint64_t target = 5000; target < 5064; ++target) {
    const bool pinned = evset_set_pinned(m, evset_set_of(m, target));
    (pinned ? pinned_seen : free_seen)++;
    const std::size_t w = pinned ? 15 : 16;
    EXPECT_FALSE(evset_test(m, target, congruent(m, target, w - 1), 2, 0)) << target;
    EXPECT_TRUE(evset_test(m, target, congruent(m, target, w), 2, 0)) << target;
  }
  EXPECT_GT(pinned_seen, 10);
  EXPECT_GT(free_seen, 10);
}

// The timed cyclic reads: after the thrash (the cycle's lines, then others of their set), k lines of
// one set read 8 times hit in the last round
// while they fit the ways the set offers and all miss from one more on (LRU, FIFO, tree-PLRU,
// SRRIP: every line of a cycle of ways + 1 is evicted before it comes back).
TEST(SimL2Evsets, CyclicReadsStepAfterTheWays) {
  for (const char* policy : {"lru", "fifo", "plru", "srrip"})
    for (double pinned : {0.0, 1.0}) {
      if (pinned > 0 && std::string(policy) == "plru") continue;  // 7 ways: no tree
      const L2EvsetsModel m = model(std::string(R"({"sets": 96, "ways": 8, "hit_cycles": 200, "miss_cycles": 500, "policy": ")") +
                                    policy + R"(", "pinned_fraction": )" + std::to_string(pinned) + "}");
      const std::uint32_t ways = pinned > 0 ? 7 : 8;
      // as the plan: the thrash is the class (the cycle's lines), then the target's reduced set
      const std::vector<std::uint64_t> all = congruent(m, 1, 32);
      const std::vector<std::uint64_t> lines(all.begin(), all.begin() + 24), thrash = all;
      for (std::size_t k = 1; k <= 12; ++k) {
        const std::vector<std::uint32_t> c =
            evset_cycle(m, thrash, std::vector<std::uint64_t>(lines.begin(), lines.begin() + k), 8, k);
        ASSERT_EQ(c.size(), k);
        for (std::uint32_t x : c) EXPECT_EQ(x, k <= ways ? 200u : 500u) << policy << " pinned " << pinned << " k " << k;
      }
    }
  // lines of other sets do not disturb the cycle: 8 lines of the set and 40 of others still hit
  const L2EvsetsModel m = model(R"({"sets": 96, "ways": 8})");
  std::vector<std::uint64_t> mixed = congruent(m, 1, 8);
  for (std::uint64_t line = 2; line < 42; ++line) mixed.push_back(line);
  for (std::uint32_t x : evset_cycle(m, {}, mixed, 4, 0)) EXPECT_EQ(x, m.hit_cycles);
}

TEST(SimL2Evsets, RandomPolicyIsDeterministicPerTest) {
  const L2EvsetsModel m = model(R"({"ways": 8, "sets": 16, "policy": "random", "seed": 4})");
  const std::uint64_t target = 777;
  EXPECT_FALSE(evset_test(m, target, {}, 2, 1));  // nothing read: nothing evicted
  int evicted = 0, differ = 0;
  for (std::uint64_t t = 0; t < 400; ++t) {
    const std::vector<std::uint64_t> lines = congruent(m, target, 8);
    const bool e = evset_test(m, target, lines, 2, t);
    EXPECT_EQ(e, evset_test(m, target, lines, 2, t));  // the same test number, the same draw
    evicted += e;
    differ += e != evset_test(m, target, lines, 2, t + 1000);
  }
  // 8 lines, 2 passes: each miss picks the target with probability 1/8; about 16 misses in all
  EXPECT_GT(evicted, 200);
  EXPECT_LT(evicted, 380);
  EXPECT_GT(differ, 40);
  EXPECT_TRUE(evset_test(m, target, congruent(m, target, 400), 1, 0));  // 400 misses: evicted
}

}  // namespace
}  // namespace memhier::sim
