// The l2_evsets family on the simulated device: the plan (bench/plans/l2_evsets_plan.cpp) run against the
// config's whole-L2 model (sim/l2_evsets.hpp) through the backend adapter (bench/backends/backend_sim.cpp,
// compiled into this suite by test_backend_adapter.cpp). Properties over generated caches: every
// verified minimal set holds exactly the ways its target's set offers, and only lines of that set.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>
#include <unistd.h>
#include <tuple>
#include <unistd.h>
#include <string>
#include <vector>

#include "bench/backends/backend_sim.hpp"
#include "bench/plans/l2_evsets_plan.hpp"
#include "bench/levels/levels.hpp"
#include "common/l2_evset_pool.hpp"
#include "sim/config.hpp"
#include "sim/l2_evsets.hpp"
#include "sim_test_util.hpp"

namespace memhier {
namespace {

std::string sim_config(const std::string& evsets) {
  std::string t = R"({"format": "memhier-sim-config/1", "name": "evsets",
    "device": {"compute_capability": "9.0", "sm_count": 2, "sm_clock_khz": 1000000,
               "smem_per_sm_bytes": 65536, "l2_bytes": 262144, "global_mem_bytes": 1073741824},
    "clock_overhead": {"pair_cycles": 4, "fine_cycles": 8}, "dram_latency_cycles": 500,
    "levels": [{"name": "l2", "line_bytes": 128, "sets": 4, "ways": 2, "replacement": "lru", "hit_latency_cycles": 20}],
    "paths": {"global_cg": {"levels": ["l2"]}})";
  if (!evsets.empty()) t += R"(, "l2_evsets": )" + evsets;
  return t + "}";
}

// A simulated device from config text (written to a temporary file, as make_sim_backend reads one).
std::unique_ptr<Backend> backend_of(const std::string& text) {
  static int n = 0;
  const auto p = std::filesystem::temp_directory_path() /
                 ("memhier_evsets_" + std::to_string(::getpid()) + "_" + std::to_string(n++) + ".json");
  { std::ofstream(p) << text; }
  auto be = make_sim_backend(p.string());
  std::filesystem::remove(p);
  return be;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> v;
  std::stringstream ss(s);
  for (std::string w; std::getline(ss, w, ',');) v.push_back(w);
  return v;
}

struct Target {
  std::string status;
  std::uint64_t size = 0, line = 0;
  std::vector<std::uint64_t> set;  // the lines of its reduced set (label 1)
};

std::vector<Target> targets_of(const LevelResult& r) {
  std::vector<Target> out;
  if (!r.trace) return out;
  const Trace& t = *r.trace;
  const std::vector<std::string> status = split(t.meta.at("status")), sizes = split(t.meta.at("sizes")),
                                 lines = split(t.meta.at("target_lines"));
  for (std::size_t k = 0; k < status.size(); ++k)
    out.push_back({status[k], std::stoull(sizes.at(k)), std::stoull(lines.at(k)), {}});
  for (std::size_t i = 0; i < t.index.size(); ++i)
    if (t.label.at(i) == 1) out.at(t.index[i]).set.push_back(t.latency[i]);
  return out;
}

LevelResult run_family(Backend& be, int targets, int passes = 2, int pool = 3) {
  LevelRequest r;
  r.family = "l2_evsets";
  r.params = {{"targets", std::to_string(targets)}, {"passes", std::to_string(passes)}, {"pool", std::to_string(pool)}};
  return be.run_level(r);
}

// The plan's class of a verified target (meta class_<k>: lines that each replace one line of its
// set) and its cyclic reads (cycles_forward_<k>, cycles_reverse_<k>: per k = 1 ... lines, the last
// round's cycles): the class is the pool's other lines of the target's set (under tree-PLRU some
// of them: a search test re-reads lines of the set, and a hit turns the tree so that the ways-th
// distinct line need not evict the target, so the binary search passes a line), and the reads hit
// while k <= the ways the set offers and miss from one more on. (A pool of 3 x the L2 holds about
// 3 x ways lines of a set, so a class has about 2 x ways lines, fewer where a hash gives the set
// fewer: with 2 ways a class of 2 lines shows no step.)
void check_classes(const LevelResult& r, const sim::L2EvsetsModel& m, const std::vector<Target>& ts,
                   std::uint64_t pool_factor = 3) {
  int classes = 0;
  for (std::size_t k = 0; k < ts.size(); ++k) {
    const auto it = r.trace->meta.find("class_" + std::to_string(k));
    if (it == r.trace->meta.end()) continue;
    ++classes;
    const std::uint64_t set = sim::evset_set_of(m, ts[k].line);
    const std::uint32_t ways = sim::evset_ways_offered(m, set);
    // the pool's other lines of the set, in pool order: exactly the first 24 of them, or (tree-PLRU)
    // some of them in that order
    const EvsetPool pool = make_evset_pool(pool_factor * m.capacity_bytes() / kEvsetLineBytes);
    std::vector<std::string> expect;
    for (std::uint64_t q = 0; q < pool.lines; ++q) {
      const std::uint64_t line = pool.line(q);
      if (sim::evset_set_of(m, line) == set && std::count(ts[k].set.begin(), ts[k].set.end(), line) == 0)
        expect.push_back(std::to_string(line));
    }
    const std::vector<std::string> cls = split(it->second);
    if (m.policy != "plru") {
      if (expect.size() > 24) expect.resize(24);
      EXPECT_EQ(cls, expect) << "target " << k;
    } else {
      auto at = expect.begin();
      for (const std::string& l : cls) at = std::find(at, expect.end(), l);
      EXPECT_NE(at, expect.end()) << "target " << k << ": not the set's lines in pool order";
    }
    for (const char* dir : {"cycles_forward_", "cycles_reverse_"}) {
      std::stringstream per_k(r.trace->meta.at(dir + std::to_string(k)));
      std::size_t n = 0;
      for (std::string one; std::getline(per_k, one, ';');) {
        ++n;
        const std::vector<std::string> c = split(one);
        ASSERT_EQ(c.size(), n);
        // while n lines fit, every load of the last round hits; past the ways at least one misses
        // (all under LRU; FIFO can keep some, by where the thrash left its insertion order)
        std::size_t misses = 0;
        for (const std::string& x : c) {
          EXPECT_TRUE(std::stoul(x) == m.hit_cycles || std::stoul(x) == m.miss_cycles) << x;
          misses += std::stoul(x) == m.miss_cycles;
        }
        if (n <= ways) EXPECT_EQ(misses, 0u) << dir << k << " n " << n;
        else EXPECT_GT(misses, 0u) << dir << k << " n " << n;
      }
      // the sweeps read the class, then the reduced set's own lines (swept_<k>)
      EXPECT_EQ(n, split(r.trace->meta.at("swept_" + std::to_string(k))).size());
      EXPECT_EQ(n, cls.size() + ts[k].set.size());
    }
  }
  EXPECT_EQ(classes, std::min<int>(EvsetParams{}.class_targets, static_cast<int>(ts.size())));
}

struct Cache {
  std::uint32_t ways;
  std::uint64_t sets;
  const char* index;
  const char* policy;
};

std::string evsets_json(const Cache& c, std::uint64_t seed, double pinned = 0) {
  return "{\"ways\": " + std::to_string(c.ways) + ", \"sets\": " + std::to_string(c.sets) + ", \"index\": \"" + c.index +
         "\", \"policy\": \"" + c.policy + "\", \"seed\": " + std::to_string(seed) +
         ", \"pinned_fraction\": " + std::to_string(pinned) + "}";
}

// Generated caches: ways 2 ... 20, sets a few hundred to 1000 (96 and 1000 among them, powers of
// two or not), both indexes, sets x ways <= 2048 lines.
std::vector<Cache> caches_for(const char* policy) {
  if (std::string(policy) == "plru")  // tree-PLRU: powers of two
    return {{2, 1000, "hash", policy}, {4, 500, "modulo", policy}, {8, 256, "hash", policy}, {16, 96, "modulo", policy}};
  return {{2, 1000, "modulo", policy}, {3, 96, "hash", policy}, {7, 290, "modulo", policy},
          {12, 96, "modulo", policy}, {16, 128, "hash", policy}, {20, 96, "hash", policy}};
}

// Every target's reduced set: lines of the target's set only; under a deterministic policy every
// target is verified with exactly the ways its set offers.
void check_deterministic(const char* policy) {
  std::uint64_t seed = 11;
  for (const Cache& c : caches_for(policy)) {
    const std::string cfg = evsets_json(c, ++seed);
    SCOPED_TRACE(cfg);
    auto be = backend_of(sim_config(cfg));
    const LevelResult r = run_family(*be, 3);
    ASSERT_EQ(r.error, "");
    const sim::L2EvsetsModel m = sim::parse_l2_evsets_model(nlohmann::json::parse(cfg));
    const std::vector<Target> ts = targets_of(r);
    ASSERT_EQ(ts.size(), 3u);
    for (const Target& t : ts) {
      EXPECT_EQ(t.status, "minimal") << "target " << t.line;
      EXPECT_EQ(t.size, c.ways) << "target " << t.line;
      EXPECT_EQ(t.set.size(), t.size);
      for (std::uint64_t line : t.set) EXPECT_EQ(sim::evset_set_of(m, line), sim::evset_set_of(m, t.line));
    }
    check_classes(r, m, ts);
    EXPECT_EQ(r.counters.at("minimal"), 3);
    EXPECT_EQ(r.counters.at("set_size_min"), c.ways);
    EXPECT_EQ(r.counters.at("set_size_max"), c.ways);
    EXPECT_EQ(r.counters.at("pool_lines"), 3.0 * c.ways * c.sets);
    EXPECT_GT(r.seconds, 0);
  }
}

TEST(SimL2EvsetsFamily, LruSetsHoldTheWays) { check_deterministic("lru"); }
TEST(SimL2EvsetsFamily, FifoSetsHoldTheWays) { check_deterministic("fifo"); }
TEST(SimL2EvsetsFamily, TreePlruSetsHoldTheWays) { check_deterministic("plru"); }
TEST(SimL2EvsetsFamily, SrripSetsHoldTheWays) { check_deterministic("srrip"); }

// Random replacement: a set smaller than the ways evicts in some tests and the ways do not in all,
// so a target may stay unverified, and from 4 ways on it hardly ever is verified (none of the 4000
// targets of seeds 1 ... 1000 at 4 ways x 256 sets or 6 x 170, hashed); a verified set there holds
// exactly the ways. 2 and 3 ways are the exception below.
TEST(SimL2EvsetsFamily, RandomVerifiedSetsHoldTheWaysOrNone) {
  std::uint64_t seed = 40;
  for (const Cache& c : caches_for("random")) {
    if (c.ways < 4) continue;
    const std::string cfg = evsets_json(c, ++seed);
    SCOPED_TRACE(cfg);
    auto be = backend_of(sim_config(cfg));
    const LevelResult r = run_family(*be, 3);
    ASSERT_EQ(r.error, "");
    for (const Target& t : targets_of(r)) {
      if (t.status != "minimal") continue;
      EXPECT_EQ(t.size, c.ways) << "target " << t.line;
    }
  }
}

// Random replacement with 2 ways: after the target is written the set holds it and one junk line,
// so ONE congruent line evicts it in half the tests; the verification (5 of 5, then none of 3
// without each line: the empty set never evicts) passes 1 time in 32. Of the 4000 targets of seeds
// 1 ... 1000 (512 sets, hashed), 39 were verified with 1 line and 9 with 2; at 3 ways (341 sets)
// 2 with 1 line, 1 with 2 and none with 3. The plan's verification cannot tell such sets from real
// ones, so a random 2- or 3-way L2 reads as fewer ways (where the cyclic reads do not decide).
// Pinned here so that a stronger verification shows up (update this test then).
TEST(SimL2EvsetsFamily, RandomTwoWaysCanVerifyOneLine) {
  std::map<std::uint64_t, int> verified;
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    auto be = backend_of(sim_config(evsets_json({2, 512, "hash", "random"}, seed)));
    for (const Target& t : targets_of(run_family(*be, 4)))
      if (t.status == "minimal") verified[t.size]++;
  }
  EXPECT_GT(verified[1], 0);
}

TEST(SimL2EvsetsFamily, PinnedSetsOfferOneWayLess) {
  const Cache c{8, 200, "hash", "lru"};
  const std::string cfg = evsets_json(c, 3, 0.5);
  auto be = backend_of(sim_config(cfg));
  const sim::L2EvsetsModel m = sim::parse_l2_evsets_model(nlohmann::json::parse(cfg));
  const LevelResult r = run_family(*be, 8);
  ASSERT_EQ(r.error, "");
  int pinned = 0;
  for (const Target& t : targets_of(r)) {
    const std::uint64_t set = sim::evset_set_of(m, t.line);
    pinned += sim::evset_set_pinned(m, set);
    EXPECT_EQ(t.status, "minimal");
    EXPECT_EQ(t.size, sim::evset_ways_offered(m, set)) << "target " << t.line;
  }
  check_classes(r, m, targets_of(r));
  EXPECT_GT(pinned, 0);  // the seed pins some targets' sets and not others
  EXPECT_LT(pinned, 8);
}

TEST(SimL2EvsetsFamily, ShippedConfigs) {
  for (const auto& [name, ways] : {std::pair<const char*, std::uint64_t>{"hopper_like", 16}, {"unlike_hopper", 12}}) {
    SCOPED_TRACE(name);
    auto be = make_sim_backend(sim::testing::config_path(name));
    const sim::Config cfg = sim::load_config(sim::testing::config_path(name));
    EXPECT_EQ(be->level_offer().l2_evsets_bytes, cfg.l2_evsets.capacity_bytes());
    const LevelResult r = run_family(*be, 2);
    ASSERT_EQ(r.error, "");
    for (const Target& t : targets_of(r)) {
      EXPECT_EQ(t.status, "minimal");
      EXPECT_EQ(t.size, ways);
    }
    check_classes(r, cfg.l2_evsets, targets_of(r));
    EXPECT_EQ(r.trace->meta.at("content"), "l2_evset");
  }
}

TEST(SimL2EvsetsFamily, SameRunSameAnswer) {
  auto a = backend_of(sim_config(evsets_json({8, 96, "hash", "random"}, 5)));
  auto b = backend_of(sim_config(evsets_json({8, 96, "hash", "random"}, 5)));
  const LevelResult ra = run_family(*a, 2), rb = run_family(*b, 2);
  EXPECT_EQ(ra.trace->meta, rb.trace->meta);
  EXPECT_EQ(ra.trace->latency, rb.trace->latency);
  EXPECT_EQ(ra.seconds, rb.seconds);
}

TEST(SimL2EvsetsFamily, ReadoutThatDoesNotWork) {
  auto be = backend_of(sim_config(R"({"ways": 4, "sets": 64, "readout_works": false})"));
  const LevelResult r = run_family(*be, 2);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.counters.at("readout_ok"), 0);
  EXPECT_EQ(r.counters.at("failed"), 2);
  EXPECT_EQ(r.counters.at("minimal"), 0);
  EXPECT_EQ(r.trace->meta.at("readout_ok"), "0");
  EXPECT_NE(r.trace->meta.at("readout_reason").find("readout_works false"), std::string::npos);
}

TEST(SimL2EvsetsFamily, AbsentModelAndBadParameters) {
  auto none = backend_of(sim_config(""));
  EXPECT_EQ(none->level_offer().l2_evsets_bytes, 0u);
  EXPECT_EQ(run_family(*none, 2).error,
            "the simulated device models no whole-L2 eviction sets (no l2_evsets in its config)");
  auto be = backend_of(sim_config(R"({"ways": 4, "sets": 64})"));
  EXPECT_EQ(be->level_offer().l2_evsets_bytes, 4u * 64 * 128);
  for (const auto& [t, p, f] : {std::tuple{0, 2, 3}, {2, 0, 3}, {2, 17, 3}, {49, 2, 3}, {2, 2, 0}, {2, 2, 9}})
    EXPECT_NE(run_family(*be, t, p, f).error.find("pool 1 ... 8"), std::string::npos) << t << " " << p << " " << f;
}

}  // namespace
}  // namespace memhier

namespace memhier {
namespace {

// The policy sequences of the family (bench/plans/l2_evsets_plan.hpp): for the first 2 class targets, the
// lines of the leave-one-out check that leave no miss (ways + 1 lines, all of the target's set),
// the sequences over them (every one twice, each filling the set with `ways` lines first) and one
// cycle count per access: from the empty set every line's first access misses, and the repeated
// runs of a deterministic policy agree.
TEST(SimL2EvsetsFamily, PolicySequencesOverTheSetsLines) {
  for (const std::string policy : {"lru", "srrip"}) {
    const std::string cfg = R"({"ways": 8, "sets": 256, "index": "hash", "policy": ")" + policy + R"(", "seed": 5})";
    auto be = backend_of(sim_config(cfg));
    const LevelResult r = run_family(*be, 3);
    ASSERT_TRUE(r.trace);
    const sim::L2EvsetsModel m = sim::parse_l2_evsets_model(nlohmann::json::parse(cfg));
    const std::vector<Target> ts = targets_of(r);
    EXPECT_EQ(r.counters.at("policy_targets"), 2) << policy;
    for (int k = 0; k < 2; ++k) {
      const auto& meta = r.trace->meta;
      const std::string key = std::to_string(k);
      ASSERT_TRUE(meta.count("policy_lines_" + key)) << policy << " target " << k;
      const std::vector<std::string> lines = split(meta.at("policy_lines_" + key));
      ASSERT_EQ(lines.size(), m.ways + 1u);
      for (const auto& l : lines) EXPECT_EQ(sim::evset_set_of(m, std::stoull(l)), sim::evset_set_of(m, ts.at(k).line));
      const auto seqs = evset_policy_sequences(m.ways, 48, 0xC0FFEEull + m.ways);
      ASSERT_EQ(seqs.size(), 120u);
      std::stringstream cs(meta.at("policy_cycles_" + key));
      std::vector<std::vector<std::string>> cycles;
      for (std::string g; std::getline(cs, g, ';');) cycles.push_back(split(g));
      ASSERT_EQ(cycles.size(), seqs.size());
      for (std::size_t q = 0; q < seqs.size(); ++q) {
        ASSERT_EQ(cycles[q].size(), seqs[q].size());
        ASSERT_GE(seqs[q].size(), m.ways);
        for (std::size_t p = 0; p < m.ways; ++p) EXPECT_EQ(cycles[q][p], std::to_string(m.miss_cycles));  // the fill
        if (q >= seqs.size() / 2) EXPECT_EQ(cycles[q], cycles[q - seqs.size() / 2]);
      }
    }
  }
}

// The generated sequences (common/l2_evset_sequences.hpp): count random ones and count / 4
// protection ones, the whole list twice. A random one fills with `ways` distinct lines of
// 0 ... ways, then makes 3 x ways accesses, some to a line outside the last `ways` distinct ones; a
// protection one fills, hits k lines, streams the other ways + 1 - k lines twice, then reads the k.
TEST(SimL2EvsetsFamily, PolicySequenceShapes) {
  const auto s = evset_policy_sequences(16, 10, 7);
  ASSERT_EQ(s.size(), 24u);
  std::size_t returns = 0;
  for (std::size_t q = 0; q < 12; ++q) {
    EXPECT_EQ(s[q], s[q + 12]);
    std::vector<std::uint32_t> fill(s[q].begin(), s[q].begin() + 16);
    std::sort(fill.begin(), fill.end());
    EXPECT_EQ(std::unique(fill.begin(), fill.end()), fill.end());
    for (auto x : s[q]) EXPECT_LE(x, 16u);
    if (q >= 10) continue;
    ASSERT_EQ(s[q].size(), 64u);
    for (std::size_t p = 16; p < 64; ++p) {
      std::vector<std::uint32_t> last;  // the 16 distinct lines used last before p
      for (std::size_t i = p; i-- > 0 && last.size() < 16;)
        if (std::find(last.begin(), last.end(), s[q][i]) == last.end()) last.push_back(s[q][i]);
      returns += std::find(last.begin(), last.end(), s[q][p]) == last.end() ? 1 : 0;
    }
  }
  EXPECT_GT(returns, 15u);  // about 1 in 16: half the accesses, 1 in ways / 2 of them the line left out (LRU)
  // protection: k = 1 hot line hit once (the first of the fill), then the 16 others twice, the hot
  // line, the others once: 16 + 1 + 32 + 1 + 16 accesses; k = 2 the next
  ASSERT_EQ(s[10].size(), 66u);
  EXPECT_EQ(s[10][16], s[10][0]);
  EXPECT_EQ(s[10][49], s[10][0]);
  EXPECT_EQ(s[11].size(), 16u + 2 + 30 + 2 + 15);
  EXPECT_NE(evset_policy_sequences(16, 10, 8), s);
}

}  // namespace
}  // namespace memhier
