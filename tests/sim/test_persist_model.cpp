// The simulated persisting L2 set-aside (sim config key l2_persisting, sim/levels.hpp PersistModel):
// the l2_persist family's answers keep efficiency x min(granted, hitRatio x window), at least the
// minimum set-aside under a persisting window and nothing without one (policy:none); the offer and
// the context keys; errors of a bad block and of requests outside the device's limits.
#include <gtest/gtest.h>

#include "sim/levels.hpp"
#include "sim_test_util.hpp"

namespace memhier::sim {
namespace {

using testing::config_path;

LevelAnswer ask(const LevelsModel& m, long long S, long long W, int R, const std::string& policy = "") {
  LevelQuery q{"l2_persist", {{"request", std::to_string(S)}, {"window", std::to_string(W)}, {"ratio", std::to_string(R)}}};
  if (!policy.empty()) q.params["policy"] = policy;
  return answer_level(m, q, 0);
}

// A small device whose config carries `block` (JSON text) as its l2_persisting.
Config with_block(const std::string& block) {
  std::string text = R"({"format": "memhier-sim-config/1", "name": "p",
    "device": {"compute_capability": "9.0", "sm_count": 4, "sm_clock_khz": 1000000,
               "smem_per_sm_bytes": 65536, "l2_bytes": 8388608, "global_mem_bytes": 1073741824},
    "clock_overhead": {"pair_cycles": 4, "fine_cycles": 8}, "dram_latency_cycles": 600,
    "levels": [{"name": "l2", "size_bytes": 8388608, "line_bytes": 128, "sets": 4096, "ways": 16,
                "replacement": "lru", "hit_latency_cycles": 260}],
    "paths": {"global_cg": {"levels": ["l2"]}}, "l2_persisting": )";
  return parse_config(text + block + "}", "test-config");
}

TEST(SimPersist, HopperLikeKeepsWhatItGrants) {
  const Config c = load_config(config_path("hopper_like"));
  const LevelsModel& m = c.beyond_sm;
  ASSERT_TRUE(m.persist.present);
  const long long M = static_cast<long long>(m.persist.max_bytes);
  EXPECT_EQ(M, 6291456);
  const auto ctx = levels_context(m);
  EXPECT_EQ(ctx.at("l2_persisting_max_bytes"), "6291456");
  for (long long S : {0LL, M / 8, M / 4, M / 2, M}) {
    const auto a = ask(m, S, M, 100);
    ASSERT_TRUE(a.error.empty()) << a.error;
    EXPECT_EQ(a.counters.at("set_aside_bytes"), static_cast<double>(S));
    EXPECT_NEAR(a.counters.at("kept_bytes"), static_cast<double>(S), 128.0 * M / 128 / 65536);
    EXPECT_EQ(a.counters.at("separated"), 1);
    EXPECT_GT(a.counters.at("ref_miss_latency_cycles"), a.counters.at("ref_hit_latency_cycles"));
  }
  // a window twice the set-aside: hitRatio 1 keeps the set-aside's worth, so does 0.5
  EXPECT_NEAR(ask(m, M, 2 * M, 100).counters.at("kept_fraction"), 0.5, 1e-4);
  EXPECT_NEAR(ask(m, M, 2 * M, 50).counters.at("kept_bytes"), static_cast<double>(M), 256);
  EXPECT_NEAR(ask(m, M, 2 * M, 25).counters.at("kept_bytes"), M / 2.0, 256);
  EXPECT_FALSE(ask(m, M + 1, M, 100).error.empty());
  EXPECT_FALSE(ask(m, M, 64, 100).error.empty());
  EXPECT_FALSE(ask(m, M, M, 101).error.empty());
}

TEST(SimPersist, GranularityAndEfficiency) {
  const Config c = with_block(R"({"max_bytes": 4194304, "set_aside_granularity_bytes": 1048576, "kept_efficiency": 0.5})");
  const auto a = ask(c.beyond_sm, 3000000, 4194304, 100);
  ASSERT_TRUE(a.error.empty()) << a.error;
  EXPECT_EQ(a.counters.at("set_aside_bytes"), 3145728);              // 2.86 MB rounded up to 1 MiB steps
  EXPECT_NEAR(a.counters.at("kept_bytes"), 1572864, 128);            // half of what was granted
  EXPECT_EQ(a.counters.at("probe_span_bytes"), 4194304);             // the samples come from the whole window
  EXPECT_EQ(ask(c.beyond_sm, 4000000, 4194304, 100).counters.at("set_aside_bytes"), 4194304);  // rounded up, at most max_bytes
  EXPECT_EQ(ask(c.beyond_sm, 0, 4194304, 100).counters.at("set_aside_bytes"), 0);
  EXPECT_EQ(a.counters.at("hit_latency_cycles"), 260);
  EXPECT_EQ(a.counters.at("miss_latency_cycles"), 600);
  EXPECT_EQ(c.beyond_sm.persist.max_window_bytes, 2u * 4194304);   // default: twice the set-aside
  EXPECT_FALSE(c.beyond_sm.present);                                // no beyond_sm: only the set-aside
}

TEST(SimPersist, MinimumSetAsideUnderAWindowNoneWithout) {
  // the H100's pattern: a limit of 0 under a persisting window keeps one step; no window keeps nothing
  const Config c = with_block(R"({"max_bytes": 4194304, "set_aside_granularity_bytes": 1048576,
                                  "minimum_set_aside_bytes": 1048576})");
  const LevelsModel& m = c.beyond_sm;
  EXPECT_EQ(m.persist.minimum_bytes, 1048576u);
  const auto w0 = ask(m, 0, 4194304, 100);
  ASSERT_TRUE(w0.error.empty()) << w0.error;
  EXPECT_EQ(w0.counters.at("set_aside_bytes"), 0);  // the limit reads 0 ...
  EXPECT_NEAR(w0.counters.at("kept_bytes"), 1048576, 128);  // ... and one step is kept
  EXPECT_EQ(w0.counters.at("access_policy_window"), 1);
  const auto nw = ask(m, 0, 4194304, 0, "none");
  ASSERT_TRUE(nw.error.empty()) << nw.error;
  EXPECT_EQ(nw.counters.at("kept_bytes"), 0);
  EXPECT_EQ(nw.counters.at("access_policy_window"), 0);
  EXPECT_EQ(nw.counters.at("hit_ratio"), 0);
  EXPECT_NEAR(ask(m, 2500000, 4194304, 100).counters.at("kept_bytes"), 3145728, 128);  // above the minimum: the grant
  EXPECT_EQ(ask(m, 0, 4194304, 0).counters.at("kept_bytes"), 0);  // a window with hitRatio 0 marks nothing persisting
  EXPECT_NE(ask(m, 0, 4194304, 100, "none").error.find("ratio must be 0"), std::string::npos);
  EXPECT_NE(ask(m, 0, 4194304, 0, "sometimes").error.find("policy must be"), std::string::npos);
  // hopper_like keeps no minimum: request 0 with its window keeps nothing
  const Config h = load_config(config_path("hopper_like"));
  EXPECT_EQ(ask(h.beyond_sm, 0, 6291456, 100).counters.at("kept_bytes"), 0);
  EXPECT_THROW(with_block(R"({"max_bytes": 4194304, "minimum_set_aside_bytes": 8388608})"), std::runtime_error);
}

TEST(SimPersist, BadBlocksSayWhy) {
  auto error_of = [](const std::string& block) {
    try {
      with_block(block);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error_of(R"({"max_bytes": 0})").find("'max_bytes' must be positive"), std::string::npos);
  EXPECT_NE(error_of(R"({"max_bytes": 1024, "colour": 1})").find("unknown key 'colour'"), std::string::npos);
  EXPECT_NE(error_of(R"({"max_bytes": 16777216})").find("exceeds the device's l2_bytes"), std::string::npos);
  EXPECT_NE(error_of(R"({"max_bytes": 1024, "kept_efficiency": 2})").find("kept_efficiency"), std::string::npos);
  EXPECT_NE(error_of(R"({})").find("missing 'max_bytes'"), std::string::npos);
}

TEST(SimPersist, AbsentWithoutTheBlock) {
  const Config c = load_config(config_path("plain_lru"));
  EXPECT_FALSE(c.beyond_sm.persist.present);
  EXPECT_EQ(levels_context(c.beyond_sm).count("l2_persisting_max_bytes"), 0u);
  EXPECT_NE(ask(c.beyond_sm, 0, 4096, 100).error.find("no persisting L2 set-aside"), std::string::npos);
}

}  // namespace
}  // namespace memhier::sim
