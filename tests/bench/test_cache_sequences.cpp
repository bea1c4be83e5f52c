// The cache_sequences search (bench/search) on simulated caches whose truth is known: the minimal
// eviction set has exactly `ways` lines, all in the target's set, for LRU, FIFO, tree-PLRU and
// random replacement with modulo, chosen-bit and GF(2)-hashed indexes; congruent bits match the
// index function; every sequence is in the trace. Fixed seeds.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "bench/backends/backend_sim.hpp"
#include "common/policy.hpp"
#include "bench/search/search.hpp"
#include "common/levels.hpp"
#include "sim/cache.hpp"
#include "sim/config.hpp"

namespace memhier {
namespace {

using seqsearch::Budget;
using seqsearch::SearchConfig;
using seqsearch::SearchResult;
using seqsearch::Session;

// A device whose global_cg path goes through one cache level described by `level` (JSON object).
std::string device_with(const std::string& name, const std::string& level) {
  const std::string text = R"({"format": "memhier-sim-config/1", "name": ")" + name + R"(",
    "device": {"compute_capability": "9.0", "sm_count": 1, "sm_clock_khz": 1000000,
               "smem_per_sm_bytes": 65536, "l2_bytes": 65536, "global_mem_bytes": 17179869184},
    "clock_overhead": {"pair_cycles": 2, "fine_cycles": 8}, "dram_latency_cycles": 300,
    "levels": [{"name": "c", "hit_latency_cycles": 30, )" + level.substr(level.find('{') + 1) + R"(],
    "paths": {"global_cg": {"levels": ["c"]}}})";
  // One file per test and config: ctest runs the tests of this file in parallel.
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string path = ::testing::TempDir() + "/memhier_" + (info ? info->name() : "x") + "_" + name + ".json";
  std::ofstream(path) << text;
  return path;
}

struct Case {
  const char* name;
  const char* level;  // the truth: ways, index, policy
};

struct Outcome {
  SearchResult r;
  SeqTrace trace;
  std::uint32_t launches = 0;
  double seconds = 0;
  std::uint64_t accesses = 0;
};

// A backend that answers through another one (the simulated device); subclasses change one answer.
class ForwardingBackend : public Backend {
 public:
  explicit ForwardingBackend(std::unique_ptr<Backend> inner) : in_(std::move(inner)) {}
  std::string name() const override { return in_->name(); }
  DeviceFigures figures() const override { return in_->figures(); }
  std::map<std::string, std::string> context() const override { return in_->context(); }
  bool supports(Path p) const override { return in_->supports(p); }
  ClockOverhead clock_overhead() override { return in_->clock_overhead(); }
  ChaseResult run_chase(const ChaseRequest& r) override { return in_->run_chase(r); }
  std::uint64_t max_array_bytes(Path p) const override { return in_->max_array_bytes(p); }
  SequenceResult run_sequence(const SequenceRequest& r) override { return in_->run_sequence(r); }

 protected:
  std::unique_ptr<Backend> in_;
};

// The simulated device with a GPU's rare odd slow access: every record slot turns into a miss (or
// gets 150 more cycles) with probability `rate`, from a seeded generator.
class NoisyBackend final : public ForwardingBackend {
 public:
  NoisyBackend(std::unique_ptr<Backend> inner, double rate) : ForwardingBackend(std::move(inner)), rate_(rate) {}
  SequenceResult run_sequence(const SequenceRequest& r) override {
    SequenceResult o = in_->run_sequence(r);
    for (auto& v : o.records)
      if (rng_.uniform() < rate_) v = r.seq.mode == RecordMode::latency ? v + 150 : v + 1;
    return o;
  }

 private:
  double rate_;
  policy::SplitMix64 rng_{99};
};

Outcome search(const std::string& cfg_path, std::uint64_t seed = 1, Path path = Path::global_cg, double noise = 0) {
  std::unique_ptr<Backend> be = make_sim_backend(cfg_path);
  if (noise > 0) be = std::make_unique<NoisyBackend>(std::move(be), noise);
  const double base = be->hit_baseline(path);
  Session s(*be, path, path_uses_carveout(path) ? 0 : -1, 1ull << 32, static_cast<std::uint32_t>(kLevelRatio * base),
            Budget{3000, 60});
  SearchConfig c;
  c.seed = seed;
  c.start_empty = true;
  Outcome o;
  o.r = seqsearch::run_search(s, c);
  o.trace = s.trace();
  o.launches = s.launches();
  o.seconds = s.seconds();
  o.accesses = s.accesses();
  return o;
}

// Checks the search's reading against the level's truth.
void expect_truth(const sim::LevelSpec& level, const std::string& policy, const Outcome& o) {
  ASSERT_EQ(o.r.stopped, "");
  EXPECT_TRUE(o.r.minimal);
  ASSERT_EQ(o.r.eviction_set.size(), level.ways[0]);
  sim::CacheModel m(level);
  const std::size_t set = m.set_of(o.r.target);
  std::vector<std::uint64_t> lines;
  for (std::uint64_t e : o.r.eviction_set) {
    EXPECT_EQ(m.set_of(e), set) << std::hex << e;
    lines.push_back(e / level.line_bytes);
  }
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(std::unique(lines.begin(), lines.end()), lines.end()) << "lines repeat";
  // Every flipped bit's verdict is the truth.
  ASSERT_TRUE(o.r.congruence.has_value());
  for (unsigned b : o.r.congruence->bits) {
    const bool truth = m.set_of(o.r.target ^ (1ull << b)) == set;
    const auto& cb = o.r.congruence->congruent_bits;
    EXPECT_EQ(std::find(cb.begin(), cb.end(), b) != cb.end(), truth) << "bit " << b;
  }
  for (auto [a, b] : o.r.congruence->congruent_pairs)
    EXPECT_EQ(m.set_of(o.r.target ^ (1ull << a) ^ (1ull << b)), set) << a << "," << b;
  EXPECT_EQ(1ull << o.r.congruence->line_bit, level.line_bytes);
  EXPECT_FALSE(o.trace.entries.empty());
  // The family's own policy check keeps the true deterministic policy (none for random).
  EXPECT_GE(o.r.policy.experiments, 3u);
  if (policy != "random") EXPECT_EQ(o.r.policy.consistent, std::vector<std::string>{policy});
  else EXPECT_TRUE(o.r.policy.consistent.empty());
  // The trace survives its text form.
  const SeqTrace back = parse_seq_trace(format_seq_trace(o.trace), "mem");
  ASSERT_EQ(back.entries.size(), o.trace.entries.size());
  EXPECT_EQ(back.entries.back().records, o.trace.entries.back().records);
}

void print(const char* what, const Outcome& o) {
  std::printf("%-18s ways %2zu: %3u launches, %.3f s simulated device time, %8llu accesses, %zu fresh lines, "
              "%u policy experiments, %zu consistent\n",
              what, o.r.eviction_set.size(), o.launches, o.seconds, static_cast<unsigned long long>(o.accesses),
              o.r.fresh_lines, o.r.policy.experiments, o.r.policy.consistent.size());
}

const Case kCases[] = {
    {"lru_modulo", R"({"line_bytes": 64, "sets": 32, "ways": 8, "replacement": "lru"})"},
    {"fifo_bits", R"({"line_bytes": 64, "sets": 16, "ways": 4, "index": {"function": "bits", "bits": [6, 9, 10, 12]}, "replacement": "fifo"})"},
    {"plru_gf2_sectors", R"({"line_bytes": 128, "sector_bytes": 32, "sets": 16, "ways": 8, "index": {"function": "gf2", "rows": ["0x10880", "0x21100", "0x42200", "0x84400"]}, "replacement": "plru"})"},
    {"random_gf2", R"({"line_bytes": 64, "sets": 16, "ways": 8, "index": {"function": "gf2", "rows": ["0x8840", "0x11080", "0x22100", "0x44200"]}, "replacement": {"policy": "random", "seed": 3}})"},
    {"random_modulo", R"({"line_bytes": 64, "sets": 32, "ways": 4, "replacement": {"policy": "random", "seed": 5}})"},
    {"qlru_xor", R"({"line_bytes": 64, "sets": 16, "ways": 6, "index": {"function": "xor", "groups": [{"lo": 6, "width": 4}, {"lo": 10, "width": 4}]}, "replacement": "qlru_h11_m1_r0_u0"})"},
};

TEST(CacheSequences, MinimalEvictionSetsOnKnownCaches) {
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.name);
    const std::string path = device_with(k.name, k.level);
    const Outcome o = search(path);
    const sim::Config cfg = sim::load_config(path);
    expect_truth(cfg.levels[0], cfg.levels[0].replacement.policy, o);
    print(k.name, o);
  }
}

// A GPU's odd slow accesses (here one in 300 record slots) do not change the eviction sets.
TEST(CacheSequences, RareSlowAccessesDoNotChangeTheSets) {
  for (const Case& k : {kCases[0], kCases[2], kCases[3]}) {
    SCOPED_TRACE(k.name);
    const std::string path = device_with(k.name, k.level);
    const Outcome o = search(path, 1, Path::global_cg, 1.0 / 300);
    const sim::Config cfg = sim::load_config(path);
    ASSERT_EQ(o.r.stopped, "");
    EXPECT_TRUE(o.r.minimal);
    EXPECT_EQ(o.r.eviction_set.size(), cfg.levels[0].ways[0]);
    print(k.name, o);
  }
}

// The shipped config built like Hopper: a 30-way QLRU L1 with sectors and a GF(2) index, and a
// 16-way random-replacement L2 with a GF(2) index (behind global_cg).
TEST(CacheSequences, HopperLikeL1AndL2) {
  const std::string path = std::string(MEMHIER_SOURCE_DIR) + "/sim/configs/hopper_like.json";
  const sim::Config cfg = sim::load_config(path);
  for (Path p : {Path::global_ca, Path::global_cg}) {
    SCOPED_TRACE(path_name(p));
    const Outcome o = search(path, 1, p);
    const sim::LevelSpec& level = p == Path::global_ca ? cfg.levels[0] : cfg.levels[4];
    expect_truth(level, level.replacement.policy, o);
    print(path_name(p), o);
    write_seq_trace(::testing::TempDir() + "/hopper_like_" + path_name(p) + ".seqtrace", o.trace);
  }
}

// What the H100 showed (sim/configs/sequences/hopper_sequences.json): the L2 keeps lines across
// sequences and benchmarks, a far partition (450 cycles) lies between the near one (285) and DRAM
// (690), the L1 is emptied at every launch. Every calibration sees fresh misses (no line is handed
// out twice), puts its threshold between the near hit and the far partition, and its untimed pass
// costs a miss per access (the simulated device never overlaps accesses).
TEST(CacheSequences, CalibrationOnAKeptL2WithAFarPartition) {
  const std::string path = std::string(MEMHIER_SOURCE_DIR) + "/sim/configs/sequences/hopper_sequences.json";
  std::unique_ptr<Backend> be = make_sim_backend(path);
  for (int round = 0; round < 2; ++round)
    for (Path p : {Path::global_ca, Path::global_cg}) {
      SCOPED_TRACE(std::string(path_name(p)) + " round " + std::to_string(round));
      Session s(*be, p, path_uses_carveout(p) ? 0 : -1, 1ull << 32, 1000, Budget{});
      const seqsearch::Calibration c = seqsearch::calibrate(s);
      EXPECT_EQ(c.why, "");
      EXPECT_GE(c.miss_median, 690u);  // first reads went to DRAM: fresh
      EXPECT_GE(c.untimed_cycles_per_access, 0.9 * 690);
      EXPECT_EQ(c.granularity, 32u);
      if (p == Path::global_cg) {
        EXPECT_GT(s.threshold(), 285u + 8);
        EXPECT_LT(s.threshold(), 450u);
      } else {
        EXPECT_GT(s.threshold(), 28u + 8);
        EXPECT_LT(s.threshold(), 285u);
        EXPECT_GE(c.l2_median, 285u);
        EXPECT_LT(c.l2_median, 285u + 9);
      }
    }
}

// The simulated device with a launch that holds only `runs` runs (a GPU's constant-memory limit,
// much smaller).
class ShortLaunchBackend final : public ForwardingBackend {
 public:
  ShortLaunchBackend(std::unique_ptr<Backend> inner, std::size_t runs) : ForwardingBackend(std::move(inner)), runs_(runs) {}
  std::size_t max_sequence_runs() const override { return runs_; }

 private:
  std::size_t runs_;
};

TEST(CacheSequences, ATestLongerThanALaunchStopsTheSearchWithoutFailing) {
  // The H100's and H200's L2 searches once built tests of 3548 and 4100 runs where 2720 fit, and
  // the benchmark failed; now the search stops, saying so, and nothing longer is sent.
  const std::string path = std::string(MEMHIER_SOURCE_DIR) + "/sim/configs/plain_lru.json";
  ShortLaunchBackend be(make_sim_backend(path), 24);
  const double base = be.hit_baseline(Path::global_ca);
  Session s(be, Path::global_ca, 0, 1ull << 32, static_cast<std::uint32_t>(kLevelRatio * base), Budget{3000, 60});
  SearchConfig c;
  c.start_empty = true;
  const SearchResult r = seqsearch::run_search(s, c);
  EXPECT_FALSE(s.failed()) << s.first_error();
  EXPECT_NE(s.limit_reason().find("does not fit one launch (at most 24)"), std::string::npos) << s.limit_reason();
  EXPECT_NE(r.stopped.find("does not fit one launch"), std::string::npos) << r.stopped;
  for (const auto& e : s.trace().entries) EXPECT_TRUE(e.error.empty()) << e.error;
}

}  // namespace
}  // namespace memhier
