// The simulated levels beyond one SM (sim/levels.hpp): the shipped configs' beyond_sm blocks, the
// counters of each family from the model, deterministic noise, errors of a bad block.
#include <gtest/gtest.h>

#include "sim/levels.hpp"
#include "sim_test_util.hpp"

namespace memhier::sim {
namespace {

using testing::config_path;

LevelAnswer ask(const LevelsModel& m, const std::string& fam, std::map<std::string, std::string> p, std::uint64_t call = 0) {
  return answer_level(m, LevelQuery{fam, std::move(p)}, call);
}

TEST(SimLevels, ConfigsWithoutTheBlockOfferNothing) {
  const Config c = load_config(config_path("plain_lru"));
  EXPECT_FALSE(c.beyond_sm.present);
  EXPECT_TRUE(levels_context(c.beyond_sm).empty());
  EXPECT_FALSE(ask(c.beyond_sm, "dsmem", {{"op", "latency"}, {"cluster", "2"}, {"rank", "1"}}).error.empty());
}

TEST(SimLevels, HopperLikeDsmemIsFlatOverRanksAndClusters) {
  const LevelsModel m = load_config(config_path("hopper_like")).beyond_sm;
  ASSERT_TRUE(m.present);
  EXPECT_EQ(m.dsmem.max_cluster, 16);
  const auto local = ask(m, "dsmem", {{"op", "latency"}, {"cluster", "2"}, {"rank", "0"}});
  ASSERT_TRUE(local.error.empty()) << local.error;
  EXPECT_NEAR(local.counters.at("latency_cycles"), 33, 3.5);  // 30 + placement spread up to 6
  for (const char* c : {"2", "4", "8", "16"}) {
    const auto r = ask(m, "dsmem", {{"op", "latency"}, {"cluster", c}, {"rank", "1"}});
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_GE(r.counters.at("latency_cycles"), 200);
    EXPECT_LE(r.counters.at("latency_cycles"), 206);
    EXPECT_LE(r.counters.at("latency_min_cycles"), r.counters.at("latency_cycles"));
    EXPECT_GE(r.counters.at("latency_max_cycles"), r.counters.at("latency_cycles"));
    EXPECT_EQ(r.counters.count("latency_same_tpc_cycles"), 0u);
  }
  EXPECT_FALSE(ask(m, "dsmem", {{"op", "latency"}, {"cluster", "32"}, {"rank", "1"}}).error.empty());
}

TEST(SimLevels, UnlikeHopperDsmemDependsOnRankAndClusterSize) {
  const LevelsModel m = load_config(config_path("unlike_hopper")).beyond_sm;
  auto lat = [&](const char* c, const char* r) {
    return ask(m, "dsmem", {{"op", "latency"}, {"cluster", c}, {"rank", r}}).counters.at("latency_cycles");
  };
  EXPECT_GT(lat("8", "7") - lat("8", "1"), 200);   // 6 ranks x 40 cycles
  EXPECT_GT(lat("8", "1") - lat("2", "1"), 40);    // 2 doublings x 25 cycles
  const auto r = ask(m, "dsmem", {{"op", "latency"}, {"cluster", "4"}, {"rank", "1"}});
  EXPECT_NEAR(r.counters.at("latency_other_tpc_cycles") - r.counters.at("latency_same_tpc_cycles"), 30, 1e-9);
  const auto local = ask(m, "dsmem", {{"op", "read"}, {"cluster", "2"}, {"remote", "0"}, {"cta_size", "1024"}});
  const auto remote = ask(m, "dsmem", {{"op", "read"}, {"cluster", "2"}, {"remote", "1"}, {"cta_size", "1024"}});
  const auto few = ask(m, "dsmem", {{"op", "read"}, {"cluster", "2"}, {"remote", "1"}, {"cta_size", "256"}});
  EXPECT_GT(local.counters.at("bytes_per_clock_per_sm"), remote.counters.at("bytes_per_clock_per_sm"));
  EXPECT_GT(remote.counters.at("bytes_per_clock_per_sm"), few.counters.at("bytes_per_clock_per_sm"));
  EXPECT_EQ(remote.counters.at("warps_per_sm"), 32);
}

TEST(SimLevels, AsyncCopiesFollowBytesInFlight) {
  const LevelsModel m = load_config(config_path("hopper_like")).beyond_sm;
  auto bw = [&](const char* method, const char* src, const char* chunk, const char* k) {
    const auto a = ask(m, "async_copy", {{"op", "bandwidth"}, {"method", method}, {"source", src}, {"chunk", chunk},
                                         {"ctas_per_sm", k}, {"stages", "2"}});
    EXPECT_TRUE(a.error.empty()) << a.error;
    return a;
  };
  EXPECT_NEAR(bw("bulk", "l2", "16384", "1").counters.at("bytes_per_second"), 6.4e12, 1);
  EXPECT_LT(bw("plain", "l2", "1024", "1").counters.at("bytes_per_second"), 1e12);  // 2 KiB of 64 in flight
  EXPECT_EQ(bw("bulk", "l2", "16384", "1").counters.count("pct_of_peak"), 0u);
  EXPECT_NEAR(bw("tensor", "dram", "16384", "2").counters.at("pct_of_peak"), 3.05e12 / 3.35232e12 * 100, 1e-6);
  const auto mc = ask(m, "async_copy", {{"op", "multicast"}, {"source", "l2"}, {"chunk", "4096"}, {"cluster", "4"}});
  EXPECT_NEAR(mc.counters.at("bytes_per_second") / mc.counters.at("source_bytes_per_second"), 4, 1e-9);
  const auto l1 = ask(m, "async_copy", {{"op", "latency"}, {"method", "bulk"}, {"chunk", "1024"}});
  const auto l16 = ask(m, "async_copy", {{"op", "latency"}, {"method", "bulk"}, {"chunk", "16384"}});
  EXPECT_NEAR(l16.counters.at("latency_cycles") - l1.counters.at("latency_cycles"), 15 * 20, 1e-9);
  const LevelsModel u = load_config(config_path("unlike_hopper")).beyond_sm;
  EXPECT_FALSE(ask(u, "async_copy", {{"op", "multicast"}, {"source", "l2"}, {"chunk", "4096"}, {"cluster", "2"}}).error.empty());
}

TEST(SimLevels, HostAndPeerCachingFollowTheConfig) {
  const LevelsModel h = load_config(config_path("hopper_like")).beyond_sm;
  const LevelsModel u = load_config(config_path("unlike_hopper")).beyond_sm;
  auto host = [](const LevelsModel& m, const char* bytes, const char* warm) {
    return ask(m, "host", {{"op", "latency"}, {"bytes", bytes}, {"warm", warm}}).counters.at("latency_cycles");
  };
  EXPECT_EQ(host(h, "262144", "1"), host(h, "262144", "0"));  // the H100-like L2 keeps no host line
  EXPECT_NEAR(host(u, "262144", "1"), 220, 8);                  // the unlike L2 does (its hit latency)
  EXPECT_NEAR(host(u, "67108864", "1"), host(u, "67108864", "0"), 8);  // beyond the L2: cold
  auto peer = [](const LevelsModel& m, const char* d, const char* state) {
    return ask(m, "peer", {{"dst", d}, {"op", "latency"}, {"bytes", "1048576"}, {"state", state}}).counters.at("latency_cycles");
  };
  EXPECT_EQ(peer(h, "1", "warm"), peer(h, "1", "owner"));
  EXPECT_LT(peer(h, "1", "owner"), peer(h, "1", "cold"));
  EXPECT_NEAR(peer(u, "2", "warm"), 220, 8);
  EXPECT_NEAR(peer(u, "2", "owner"), peer(u, "2", "cold"), 8);
  const auto copy = ask(h, "host", {{"op", "copy"}, {"dir", "h2d"}, {"bytes", "67108864"}});
  EXPECT_GT(copy.counters.at("pct_of_peak"), 80);
  EXPECT_LT(copy.counters.at("pct_of_peak"), 86);
  const auto bidir = ask(h, "peer", {{"dst", "1"}, {"op", "copy"}, {"dir", "bidir"}, {"bytes", "67108864"}});
  EXPECT_GT(bidir.counters.at("bytes_per_second"), 450e9);
  EXPECT_FALSE(ask(h, "peer", {{"dst", "3"}, {"op", "read"}, {"ctas_per_sm", "4"}}).error.empty());
}

TEST(SimLevels, NoiseIsDeterministicPerCall) {
  const LevelsModel u = load_config(config_path("unlike_hopper")).beyond_sm;
  const std::map<std::string, std::string> p = {{"op", "read"}, {"ctas_per_sm", "4"}};
  const double a0 = ask(u, "host", p, 0).counters.at("bytes_per_second");
  EXPECT_EQ(a0, ask(u, "host", p, 0).counters.at("bytes_per_second"));
  EXPECT_NE(a0, ask(u, "host", p, 1).counters.at("bytes_per_second"));
  EXPECT_LE(a0, 15753846153.0 * 0.78);
  EXPECT_GE(a0, 15753846153.0 * 0.78 * 0.98);
}

TEST(SimLevels, ContextNamesTheLinks) {
  const auto c = levels_context(load_config(config_path("hopper_like")).beyond_sm);
  EXPECT_EQ(c.at("host_link"), "PCIe Gen5 x16");
  EXPECT_EQ(c.at("peer_devices"), "1");
  EXPECT_EQ(c.at("peer_link"), "NVLink 4 x18");
  EXPECT_EQ(std::stod(c.at("peer_link_bytes_per_second")), 450e9);
  EXPECT_EQ(c.at("max_cluster_size"), "16");
  EXPECT_EQ(c.at("host_link_source"), "sim config");
}

TEST(SimLevels, BadBlocksSayWhere) {
  const std::string base = R"({"format": "memhier-sim-config/1", "name": "t",
    "device": {"compute_capability": "9.0", "sm_count": 4, "sm_clock_khz": 1000000,
               "smem_per_sm_bytes": 65536, "l2_bytes": 4096, "global_mem_bytes": 1073741824},
    "clock_overhead": {"pair_cycles": 4, "fine_cycles": 8}, "dram_latency_cycles": 500,
    "levels": [{"name": "l1", "line_bytes": 32, "sets": 4, "ways": 2, "replacement": "lru", "hit_latency_cycles": 20}],
    "paths": {"global_ca": {"levels": ["l1"]}}, "beyond_sm": )";
  auto error_of = [&](const std::string& block) {
    try {
      parse_config(base + block + "}", "cfg.json");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error_of("{}"), "");
  EXPECT_NE(error_of(R"({"dsmem": {"max_cluster": 3}})").find("beyond_sm.dsmem"), std::string::npos);
  EXPECT_NE(error_of(R"({"peers": [{"device": 1, "link_bytes_per_second": 1, "latency_cycles": 5, "cached_in": "l3"}]})")
                .find("beyond_sm.peers[0]: 'cached_in'"), std::string::npos);
  // a reader L2 needs the config's l2 level (its hit latency)
  EXPECT_NE(error_of(R"({"peers": [{"device": 1, "link_bytes_per_second": 1, "latency_cycles": 5, "cached_in": "reader_l2"}]})")
                .find("named 'l2'"), std::string::npos);
  EXPECT_NE(error_of(R"({"async_copy": {"methods": {"bulk": {}}}})").find("beyond_sm.async_copy"), std::string::npos);
  EXPECT_NE(error_of(R"({"colour": 1})").find("unknown key 'colour'"), std::string::npos);
}

}  // namespace
}  // namespace memhier::sim
