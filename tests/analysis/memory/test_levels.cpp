// Levels beyond one SM (analysis/memory/levels.hpp): distributed shared memory and async copies
// from built bench entries, including what the data cannot decide (null with the reason).
#include <gtest/gtest.h>

#include "analysis/memory/levels.hpp"
#include "tests/analysis/bench_entries.hpp"

using namespace memhier;
using namespace memhier::analysis;
using memhier::test_support::bench_entry;
using json = nlohmann::json;

namespace {

BenchRun run_with(std::vector<BenchEntry> entries) {
  return test_support::bench_run(std::move(entries),
                                 {{"sm_count", "132"}, {"sm_clock_khz", "1980000"}, {"l2_cache_bytes", "52428800"},
                                  {"theoretical_dram_bytes_per_second", "3352320000000"}, {"max_cluster_size", "16"}});
}

BenchEntry lat(int c, int r, double v, double lo, double hi) {
  return bench_entry("dsmem/op:latency/cluster:" + std::to_string(c) + "/rank:" + std::to_string(r),
                     {{"latency_cycles", v}, {"latency_min_cycles", lo}, {"latency_max_cycles", hi}, {"clusters", 8}});
}

BenchEntry bw(const std::string& op, int c, int remote, int t, double bpc) {
  return bench_entry("dsmem/op:" + op + "/cluster:" + std::to_string(c) + "/remote:" + std::to_string(remote) +
                         "/cta_size:" + std::to_string(t),
                     {{"bytes_per_clock_per_sm", bpc}, {"bytes_per_second", bpc * 132 * 1.98e9}, {"warps_per_sm", t / 32.0}});
}

}  // namespace

TEST(LevelsDsmem, FlatRemoteLatencyIsNoEffect) {
  std::vector<BenchEntry> e = {lat(2, 0, 31, 29, 33), lat(2, 1, 201, 198, 205), lat(4, 1, 203, 199, 206),
                               lat(4, 2, 200, 197, 204), lat(4, 3, 202, 199, 206), lat(8, 1, 202, 198, 205),
                               lat(8, 4, 199, 196, 204), lat(8, 7, 204, 200, 206)};
  const json s = dsmem_section({run_with(e)});
  EXPECT_EQ(s["latency_cycles"], 202);
  EXPECT_EQ(s["latency_spread_cycles"], json({199, 204}));
  EXPECT_EQ(s["local_latency_cycles"], 31);
  EXPECT_EQ(s["by_cluster"]["8"]["7"], 204);
  EXPECT_EQ(s["rank_effect"]["decided"], "none");
  EXPECT_EQ(s["cluster_effect"]["decided"], "none");
  EXPECT_FALSE(s.contains("sm_pair_effect"));
  EXPECT_EQ(s["provenance"]["latency_cycles"]["evidence"].size(), 7u);
  EXPECT_FALSE(s["provenance"]["benchmarks"].empty());
}

TEST(LevelsDsmem, RankAndClusterEffectsBeyondTheSpread) {
  std::vector<BenchEntry> e = {lat(2, 1, 150, 149, 152), lat(4, 1, 175, 174, 177), lat(4, 2, 215, 214, 216),
                               lat(4, 3, 255, 254, 257), lat(8, 1, 200, 199, 201), lat(8, 7, 440, 439, 441)};
  e.back().counters["latency_same_tpc_cycles"] = 425;
  e.back().counters["latency_other_tpc_cycles"] = 455;
  const json s = dsmem_section({run_with(e)});
  EXPECT_EQ(s["rank_effect"]["decided"], "depends on rank");
  EXPECT_EQ(s["rank_effect"]["cycles"], 240);
  EXPECT_EQ(s["cluster_effect"]["decided"], "depends on cluster size");
  EXPECT_EQ(s["cluster_effect"]["cycles"], 50);
  EXPECT_EQ(s["sm_pair_effect"]["decided"], "depends on SM pair");
  EXPECT_EQ(s["sm_pair_effect"]["other_tpc_cycles"], 455);
  EXPECT_TRUE(s["local_latency_cycles"].is_null());
  EXPECT_NE(s["provenance"]["local_latency_cycles"]["reason"].get<std::string>().find("rank 0"), std::string::npos);
}

TEST(LevelsDsmem, OneRankOrOneClusterSizeDecidesNothing) {
  const json s = dsmem_section({run_with({lat(2, 0, 30, 30, 30), lat(2, 1, 200, 190, 210)})});
  EXPECT_TRUE(s["rank_effect"]["decided"].is_null());
  EXPECT_TRUE(s["rank_effect"]["cycles"].is_null());
  EXPECT_NE(s["rank_effect"]["reason"].get<std::string>().find("only 1"), std::string::npos);
  EXPECT_TRUE(s["cluster_effect"]["decided"].is_null());
  // a difference inside the spread over clusters is no effect
  const json t = dsmem_section({run_with({lat(4, 1, 200, 190, 215), lat(4, 3, 212, 195, 220)})});
  EXPECT_EQ(t["rank_effect"]["decided"], "none");
  EXPECT_TRUE(dsmem_section({run_with({})}).is_null());
}

TEST(LevelsDsmem, BandwidthLocalRemoteAndWarps) {
  const json s = dsmem_section({run_with({bw("read", 2, 0, 1024, 120), bw("read", 2, 1, 256, 16), bw("read", 2, 1, 1024, 30),
                                          bw("read", 4, 1, 1024, 28)})});
  const json& r = s["bandwidth"]["read"];
  EXPECT_EQ(r["local_bytes_per_clock_per_sm"], 120);
  EXPECT_EQ(r["remote_bytes_per_clock_per_sm"], 30);
  EXPECT_EQ(r["remote_over_local"], 0.25);
  EXPECT_NEAR(r["remote_bytes_per_second"].get<double>(), 30 * 132 * 1.98e9, 1);
  EXPECT_EQ(r["by_cluster"]["4"], 28);
  EXPECT_EQ(r["remote_by_warps_per_sm"]["8"], 16);
  EXPECT_EQ(r["benchmark"], "dsmem/op:read/cluster:2/remote:1/cta_size:1024");
  EXPECT_FALSE(s["bandwidth"].contains("write"));
  EXPECT_TRUE(s["latency_cycles"].is_null());
}

TEST(LevelsAsync, MethodsAgainstTheMeasuredL2PeakAndDram) {
  auto e = [](const std::string& m, const std::string& src, int chunk, double bps) {
    return bench_entry("async_copy/op:bandwidth/method:" + m + "/source:" + src + "/chunk:" + std::to_string(chunk) +
                           "/ctas_per_sm:1/stages:2",
                       {{"bytes_per_second", bps}});
  };
  std::vector<BenchEntry> es = {e("plain", "l2", 4096, 4e12), e("plain", "l2", 16384, 5e12), e("bulk", "l2", 4096, 6.4e12),
                                e("bulk", "dram", 4096, 3.0e12), e("plain", "dram", 4096, 2.8e12),
                                bench_entry("async_copy/op:latency/method:bulk/chunk:1024", {{"latency_cycles", 760}}),
                                bench_entry("async_copy/op:multicast/source:l2/chunk:4096/cluster:2",
                                            {{"bytes_per_second", 6.8e12}, {"source_bytes_per_second", 3.4e12}})};
  json topo = {{"l2_bandwidth", {{"peak_bytes_per_second", 8e12}}}};
  const json s = async_copy_section({run_with(es)}, topo);
  EXPECT_EQ(s["methods"]["plain"]["l2_bytes_per_second"], 5e12);
  EXPECT_EQ(s["methods"]["plain"]["l2_configuration"]["chunk"], 16384);
  EXPECT_EQ(s["methods"]["bulk"]["l2_pct_of_l2_peak"], 80);
  EXPECT_NEAR(s["methods"]["bulk"]["dram_pct_of_peak"].get<double>(), 89.5, 0.05);
  EXPECT_EQ(s["methods"]["bulk"]["latency_cycles"]["1024"], 760);
  EXPECT_EQ(s["fastest"]["l2"], "bulk");
  EXPECT_EQ(s["fastest"]["dram"], "bulk");
  EXPECT_EQ(s["multicast"]["2"]["delivered_over_read"], 2);
  EXPECT_FALSE(s["methods"].contains("tensor"));
  // without the L2 family: the percentage is absent, with the reason
  const json t = async_copy_section({run_with(es)}, json::object());
  EXPECT_FALSE(t["methods"]["bulk"].contains("l2_pct_of_l2_peak"));
  EXPECT_TRUE(t["methods"]["bulk"].contains("l2_pct_of_l2_peak_reason"));
  EXPECT_TRUE(async_copy_section({run_with({})}, topo).is_null());
}

TEST(LevelsSections, AbsentFamiliesAddNothing) {
  json t = {{"caches", json::object()}};
  add_level_sections({run_with({bench_entry("pchase/path:global_cg/bytes:4096/stride:64/mode:classic", {{"latency_cycles", 200}})})}, t);
  EXPECT_EQ(t, json({{"caches", json::object()}}));
}

TEST(LevelsDsmem, RankEffectNoiseSpansEveryClusterSize) {
  // The H100 runs of 2026-11-27: clusters of 16 (7 clusters) spread 3.5-7 cycles over their
  // clusters, rank 1 216 vs rank 15 204.5; clusters of 2 spread 33.5. A rank's median over so few
  // clusters moves with where they land, so the noise pools every size: no rank effect.
  std::vector<BenchEntry> e = {lat(2, 1, 205.4, 188.9, 222.4), lat(8, 1, 216, 199.5, 223),
                               lat(8, 7, 211, 194.5, 217), lat(16, 1, 216, 216, 223),
                               lat(16, 8, 209.5, 209.5, 213), lat(16, 15, 204.5, 204.5, 208)};
  const json s = dsmem_section({run_with(e)});
  EXPECT_EQ(s["rank_effect"]["decided"], "none");
  EXPECT_GE(s["rank_effect"]["noise_cycles"].get<double>(), 33.0);
}
