// Throughput, bank-law and warp-access analysis on synthetic sweeps with known answers.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "analysis/memory/throughput.hpp"
#include "analysis/memory/throughput_fit.hpp"

using namespace memhier;
using namespace memhier::analysis;

namespace {

BenchEntry entry(const std::string& run_name, std::map<std::string, double> counters) {
  BenchEntry e;
  e.name = run_name + "/iterations:3/manual_time";
  e.run_name = e.name;
  e.params = *BenchName::parse(e.run_name);
  e.run_type = "iteration";
  e.counters = std::move(counters);
  return e;
}

BenchRun base_run() {
  BenchRun r;
  r.path = "synthetic.json";
  r.context = {{"memhier_version", "test"}, {"theoretical_dram_bytes_per_second", "3.352e12"},
               {"sm_count", "132"}, {"l2_cache_bytes", "52428800"}};
  return r;
}

int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }

}  // namespace

TEST(BankWavefronts, FourByteWordsFollowGcdLaw) {
  for (int s = 1; s <= 64; ++s) EXPECT_EQ(bank_wavefronts(s, 4, 32, 4), gcd(s, 32)) << "stride " << s;
  EXPECT_EQ(bank_wavefronts(0, 4, 32, 4), 1);  // broadcast
}

TEST(BankWavefronts, WideAccessesAreSplitIntoPhases) {
  EXPECT_EQ(bank_wavefronts(1, 8, 32, 4), 2);    // two half-warps of 128 bytes
  EXPECT_EQ(bank_wavefronts(1, 16, 32, 4), 4);   // four quarter-warps
  EXPECT_EQ(bank_wavefronts(2, 8, 32, 4), 4);    // 16 lanes x 16-byte pitch: 2-way in each phase
  EXPECT_EQ(bank_wavefronts(0, 16, 32, 4), 4);   // one address per phase
}

TEST(BankLawFit, RecoversBanksWidthAndDepartures) {
  std::vector<StrideSample> s;
  for (int w : {4, 8, 16})
    for (int st = 0; st <= 64; ++st) s.push_back({w, st, 30.0 + 2.0 * (bank_wavefronts(st, w, 32, 4) - 1)});
  s.push_back({4, 96, 30.0 + 2.0 * (bank_wavefronts(96, 4, 32, 4) - 1) + 40.0});  // the hardware departs here
  BankLawFit f = fit_bank_law(s);
  ASSERT_TRUE(f.ok) << f.reason;
  EXPECT_EQ(f.banks, 32);
  EXPECT_EQ(f.bank_width_bytes, 4);
  EXPECT_NEAR(f.cycles_per_wavefront, 2.0, 0.2);
  ASSERT_EQ(f.departures.size(), 1u);
  EXPECT_EQ(f.departures[0].stride, 96);
  EXPECT_GT(f.runner_up_rms, f.rms_residual);
}

TEST(BankLawFit, SixteenBanksOfEightBytesAreTold) {
  std::vector<StrideSample> s;
  for (int st = 0; st <= 48; ++st) s.push_back({4, st, 20.0 + 3.0 * (bank_wavefronts(st, 4, 16, 8) - 1)});
  BankLawFit f = fit_bank_law(s);
  ASSERT_TRUE(f.ok) << f.reason;
  EXPECT_EQ(f.banks, 16);
  EXPECT_EQ(f.bank_width_bytes, 8);
}

TEST(BankLawFit, FlatLatencyIsNotDetermined) {
  std::vector<StrideSample> s;
  for (int st = 0; st <= 16; ++st) s.push_back({4, st, 30.0});
  BankLawFit f = fit_bank_law(s);
  EXPECT_FALSE(f.ok);
  EXPECT_FALSE(f.reason.empty());
  EXPECT_FALSE(fit_bank_law({{4, 1, 30}}).ok);
}

TEST(Plateaus, StepsAreFoundAndLoneOutliersIgnored) {
  auto p = find_plateaus({10, 10.2, 9.9, 14, 10.1, 10, 6, 6.1, 5.9, 3, 3.1});
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].last, 5u);
  EXPECT_EQ(p[1].first, 6u);
  EXPECT_NEAR(p[1].level, 6.0, 0.11);
  EXPECT_EQ(p[2].first, 9u);
}

TEST(ThroughputSections, PicksDramPeaksAndSaturation) {
  BenchRun r = base_run();
  // read: rises with bytes in flight, saturates at 3.1e12
  for (int ilp : {1, 2, 4, 8}) {
    const double fl = 2048.0 * 16 * ilp;
    const double bps = std::min(3.1e12, fl * 132 / 1.2e-6);
    r.entries.push_back(entry("gmem_throughput/kind:read/width:16/ilp:" + std::to_string(ilp) + "/cta_size:1024/ctas:2",
                              {{"bytes_per_second", bps}, {"bytes_in_flight_per_sm", fl}, {"warps_per_sm", 64}}));
  }
  r.entries.push_back(entry("gmem_throughput/kind:write/width:4/ilp:1/cta_size:256/ctas:1",
                            {{"bytes_per_second", 3.2e12}, {"bytes_in_flight_per_sm", 1024}, {"warps_per_sm", 8}}));
  nlohmann::json t = nlohmann::json::object();
  add_throughput_sections({r}, t);
  const auto& g = t["global_memory"];
  EXPECT_DOUBLE_EQ(g["peak_read_bytes_per_second"].get<double>(), 3.1e12);
  EXPECT_DOUBLE_EQ(g["peak_write_bytes_per_second"].get<double>(), 3.2e12);
  EXPECT_TRUE(g["peak_copy_bytes_per_second"].is_null());
  EXPECT_NEAR(g["throughput"]["read"]["pct_of_theoretical"].get<double>(), 100 * 3.1 / 3.352, 1e-6);
  // ilp 1 reaches 2048*16*132/1.2us = 3.6e12 -> min(.., 3.1e12): all saturate; the least in flight wins
  EXPECT_EQ(g["throughput"]["read"]["saturation"]["configuration"]["ilp"].get<int>(), 1);
  EXPECT_TRUE(g["throughput"]["copy"].contains("reason"));
  EXPECT_FALSE(render_throughput_markdown(t).empty());
}

TEST(ThroughputSections, SharedMemoryPeakAgainstFittedBanks) {
  BenchRun r = base_run();
  for (int st = 0; st <= 40; ++st)
    r.entries.push_back(entry("smem_bank_conflict/width:4/stride:" + std::to_string(st),
                              {{"latency_cycles", 29.0 + 2.0 * (bank_wavefronts(st, 4, 32, 4) - 1)}}));
  r.entries.push_back(entry("smem_throughput/width:16/ilp:4/cta_size:1024/ctas_per_sm:1",
                            {{"bytes_per_clock_per_sm", 120.0}, {"warps_per_sm", 32}}));
  r.entries.push_back(entry("smem_throughput/width:4/ilp:1/cta_size:32/ctas_per_sm:1",
                            {{"bytes_per_clock_per_sm", 20.0}, {"warps_per_sm", 1}}));
  nlohmann::json t;
  add_throughput_sections({r}, t);
  const auto& s = t["shared_memory"];
  EXPECT_EQ(s["banks"].get<int>(), 32);
  EXPECT_EQ(s["bank_width_bytes"].get<int>(), 4);
  EXPECT_DOUBLE_EQ(s["latency_cycles"].get<double>(), 29.0);
  EXPECT_DOUBLE_EQ(s["peak_bytes_per_clock_per_sm"].get<double>(), 120.0);
  EXPECT_NEAR(s["throughput"]["pct_of_peak"].get<double>(), 100 * 120.0 / 128, 1e-9);
  EXPECT_EQ(s["latency_by_stride"]["4"]["2"].get<double>(), 31.0);
  EXPECT_TRUE(s["conflict_law"]["departures"].empty());
}

TEST(ThroughputSections, L2PartitionStepAtHalf) {
  BenchRun r = base_run();
  const double l2 = 52428800;
  for (double f : {0.05, 0.1, 0.2, 0.3, 0.4, 0.45, 0.55, 0.6, 0.7, 0.8, 0.9, 1.5, 2.0}) {
    const double bps = f <= 0.45 ? 10e12 : f < 1.0 ? 6e12 : 3e12;
    const auto b = static_cast<long long>(f * l2) / 65536 * 65536;
    r.entries.push_back(entry("l2_throughput/bytes:" + std::to_string(b) + "/cta_size:512/ctas:4/ilp:4",
                              {{"bytes_per_second", bps}, {"bytes_per_clock_per_sm", bps / 132 / 1.98e9}}));
  }
  nlohmann::json t;
  add_throughput_sections({r}, t);
  const auto& l = t["l2_bandwidth"];
  EXPECT_DOUBLE_EQ(l["peak_bytes_per_second"].get<double>(), 10e12);
  ASSERT_TRUE(l["partition"]["partitioned"].is_boolean());
  EXPECT_TRUE(l["partition"]["partitioned"].get<bool>());
  EXPECT_NEAR(l["partition"]["fraction_of_l2"].get<double>(), 0.45, 0.01);
  EXPECT_TRUE(l["pct_of_peak"].is_null());
}

// Shared-line variants (share, overlap, layout:all) are reported apart: a fast shared-line point
// just below half the L2 must neither become the peak nor fake a partition step.
TEST(ThroughputSections, L2SharedLinesKeptOutOfCurveAndPeak) {
  BenchRun r = base_run();
  const double l2 = 52428800;
  for (double f : {0.05, 0.1, 0.2, 0.3, 0.4, 0.45, 0.55, 0.6, 0.7, 0.8, 0.9, 1.5, 2.0}) {
    const double bps = f < 1.0 ? 8e12 : 3e12;
    const auto b = static_cast<long long>(f * l2) / 65536 * 65536;
    const std::string base = "l2_throughput/bytes:" + std::to_string(b) + "/cta_size:512/ctas:4/ilp:4";
    r.entries.push_back(entry(base, {{"bytes_per_second", bps}, {"bytes_per_clock_per_sm", bps / 132 / 1.98e9}}));
    if (f == 0.45) {
      r.entries.push_back(entry(base + "/share:8", {{"bytes_per_second", 14e12}}));
      r.entries.push_back(entry(base + "/overlap:2", {{"bytes_per_second", 9e12}}));
      r.entries.push_back(entry(base + "/layout:all", {{"bytes_per_second", 9.5e12}}));
    }
  }
  nlohmann::json t;
  add_throughput_sections({r}, t);
  const auto& l = t["l2_bandwidth"];
  EXPECT_DOUBLE_EQ(l["peak_bytes_per_second"].get<double>(), 8e12);
  ASSERT_TRUE(l.contains("shared_lines"));
  EXPECT_DOUBLE_EQ(l["shared_lines"]["peak_bytes_per_second"].get<double>(), 14e12);
  EXPECT_EQ(l["shared_lines"]["configuration"]["share"].get<int>(), 8);
  EXPECT_NEAR(l["shared_lines"]["ratio_to_distinct_peak"].get<double>(), 14.0 / 8.0, 1e-9);
  EXPECT_TRUE(l["partition"]["partitioned"].is_null());  // no step in the distinct-line curve
  for (const auto& p : l["curve"]) EXPECT_DOUBLE_EQ(p["bytes_per_second"].get<double>(), p["bytes"].get<double>() < l2 ? 8e12 : 3e12);
  // readers per line from the tile arithmetic: 0.45 x L2 = 1474560 vectors over 528 CTAs = 2792 per
  // tile >= 512 x 4, so one reader; share:8 -> 8. At 0.05 x L2 the 2048-vector CTA step spans ~6.6 tiles.
  EXPECT_TRUE(l["peak_readers_per_line"].is_number());
  for (const auto& p : l["curve"])
    if (p["bytes"].get<double>() == 1474560.0 * 16) EXPECT_DOUBLE_EQ(p["readers_per_line"].get<double>(), 1.0);
  EXPECT_NEAR(l["shared_lines"]["readers_per_line"].get<double>(), 8.0, 1e-9);
  EXPECT_NEAR(l["curve"][0]["readers_per_line"].get<double>(), 2048.0 / 310.0, 1e-9);
}

TEST(ThroughputSections, WarpAccessVerdictsFromLatencies) {
  BenchRun r = base_run();
  auto add = [&](const std::string& mem, const std::string& pat, double lat) {
    r.entries.push_back(entry("warp_access/memory:" + mem + "/pattern:" + pat, {{"latency_cycles", lat}}));
  };
  add("shared", "broadcast", 30), add("shared", "parallel", 30), add("shared", "misaligned", 30), add("shared", "permuted", 30);
  add("constant", "broadcast", 10), add("constant", "parallel", 300), add("constant", "misaligned", 300),
      add("constant", "permuted", 300);
  add("global", "broadcast", 40), add("global", "parallel", 40), add("global", "misaligned", 60), add("global", "permuted", 40);
  add("register", "private", 4), add("local", "private", 40);
  nlohmann::json t;
  add_throughput_sections({r}, t);
  const auto& w = t["warp_access"];
  EXPECT_TRUE(w["shared"]["broadcasts"].get<bool>());
  EXPECT_TRUE(w["shared"]["serves_parallel"].get<bool>());
  EXPECT_FALSE(w["shared"]["needs_alignment"].get<bool>());
  EXPECT_TRUE(w["constant"]["broadcasts"].get<bool>());
  EXPECT_FALSE(w["constant"]["serves_parallel"].get<bool>());
  EXPECT_TRUE(w["global"]["needs_alignment"].get<bool>());
  EXPECT_FALSE(w["global"]["needs_contiguity"].get<bool>());
  EXPECT_DOUBLE_EQ(w["local_over_register"].get<double>(), 10.0);
}

TEST(ThroughputSections, NothingMeasuredGivesNullsWithReasons) {
  nlohmann::json t;
  add_throughput_sections({base_run()}, t);
  EXPECT_TRUE(t["global_memory"]["peak_read_bytes_per_second"].is_null());
  EXPECT_TRUE(t["l2_bandwidth"]["value"].is_null());
  EXPECT_FALSE(t["l2_bandwidth"]["reason"].get<std::string>().empty());
  EXPECT_TRUE(t["shared_memory"]["banks"].is_null());
  EXPECT_TRUE(t["warp_access"].contains("reason"));
  EXPECT_EQ(render_throughput_markdown(t), "");
}
