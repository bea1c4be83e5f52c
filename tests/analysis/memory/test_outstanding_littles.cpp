// Outstanding lines per SM by Little's law (analysis/memory/outstanding_littles): synthetic
// Thread-Latency series that ramp at a known rate X from a known loaded latency R must give X x R
// per source; series at another rate or not deep in the saturation are left out; a source without
// a saturated series is null with the reason; the whole GPU's rate per SM comes from the topology.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/memory/outstanding_littles.hpp"
#include "analysis/memory/outstanding_ramp.hpp"

using namespace memhier::analysis;

namespace {

double jitter(std::uint64_t i) { return static_cast<double>((i * 2654435761u) % 9) - 4; }  // +-4 cycles

// Threads 2..t_max (step 2) x `loads` loads of `pattern`: a few warps' batch takes the unloaded
// latency, a batch of N lines past the knee loaded + N / rate cycles.
SeriesRamp series(const std::string& pattern, int loads, const std::string& source, double unloaded, double loaded,
                  double rate, double t_max = 2048) {
  SeriesRamp r;
  r.benchmark = "outstanding_requests/pattern:" + pattern + "/loads:" + std::to_string(loads) +
                (source == "dram" ? "/source:dram" : "");
  r.pattern = pattern;
  r.loads = loads;
  r.source = source;
  pattern_units(pattern, &r.threads_per_line, &r.threads_per_sector);
  std::vector<double> th, lat;
  for (double t = 2; t <= t_max; t += 2) {
    const double lines = t * loads / r.threads_per_line;
    th.push_back(t);
    lat.push_back((t <= 8 ? unloaded + 0.1 * t : loaded + lines / rate) + jitter(static_cast<std::uint64_t>(t)));
  }
  EXPECT_TRUE(fit_series_ramp(th, lat, &r));
  return r;
}

}  // namespace

TEST(OutstandingLittles, RecoversRateTimesLoadedLatencyPerSource) {
  const double x = 0.5, r_l2 = 700, r_dram = 1500;
  std::vector<SeriesRamp> ramps = {
      series("unique128", 16, "l2", 450, r_l2, x), series("unique128", 8, "l2", 440, r_l2, x),
      series("merge4", 16, "l2", 450, r_l2, x),    series("unique32", 16, "l2", 460, r_l2, x),
      series("unique128", 16, "dram", 900, r_dram, x), series("unique128", 4, "dram", 880, r_dram, x),
      // another rate (a per-instruction cost dominates): deep, but not this saturation
      series("merge32", 16, "l2", 450, 300, x / 3)};
  const nlohmann::json o = littles_law_section(ramps);
  ASSERT_TRUE(o["l2"].is_object()) << o.dump();
  ASSERT_TRUE(o["dram"].is_object()) << o.dump();
  EXPECT_NEAR(o["l2"]["lines_per_cycle_per_sm"].get<double>(), x, 0.02 * x);
  EXPECT_NEAR(o["l2"]["loaded_latency_cycles"].get<double>(), r_l2, 0.03 * r_l2);
  EXPECT_NEAR(o["l2"]["outstanding_lines_per_sm"].get<double>(), x * r_l2, 0.04 * x * r_l2);
  EXPECT_NEAR(o["dram"]["outstanding_lines_per_sm"].get<double>(), x * r_dram, 0.04 * x * r_dram);
  EXPECT_NEAR(o["dram"]["unloaded_latency_cycles"].get<double>(), 890, 10);
  EXPECT_NEAR(o["l2"]["bytes_per_cycle_per_sm"].get<double>(), 128 * x, 0.03 * 128 * x);
  EXPECT_EQ(o["l2"]["series"].size(), 4u);  // merge32 at a third of the rate is left out
  EXPECT_EQ(o["l2"]["deepest_benchmark"], "outstanding_requests/pattern:unique128/loads:16");
  // the section's figure is the larger source's, with its provenance
  EXPECT_NEAR(o["outstanding_lines_per_sm"].get<double>(), x * r_dram, 0.04 * x * r_dram);
  EXPECT_GT(o["provenance"]["outstanding_lines_per_sm"]["confidence"].get<double>(), 0);
}

TEST(OutstandingLittles, NoSaturatedSeriesIsNullWithTheReason) {
  // DRAM batches of at most 256 lines against ~750 in flight: never deep in the saturation
  std::vector<SeriesRamp> ramps = {series("unique128", 16, "l2", 450, 700, 0.5),
                                   series("unique128", 1, "dram", 900, 1500, 0.5, 256)};
  const nlohmann::json o = littles_law_section(ramps);
  EXPECT_TRUE(o["l2"].is_object());
  EXPECT_TRUE(o["dram"].is_null());
  EXPECT_NE(o.value("dram_reason", std::string()).find("straight line"), std::string::npos) << o.dump();
  const nlohmann::json none = littles_law_section({});
  EXPECT_TRUE(none["outstanding_lines_per_sm"].is_null());
  EXPECT_FALSE(none["provenance"]["outstanding_lines_per_sm"].value("reason", std::string()).empty());
}

TEST(OutstandingLittles, AllSmsRateFromTheThroughputSections) {
  nlohmann::json out = {{"littles_law", littles_law_section({series("unique128", 16, "l2", 450, 700, 0.5),
                                                             series("unique128", 16, "dram", 900, 1500, 0.5)})}};
  const nlohmann::json topo = {{"l2_bandwidth", {{"peak_bytes_per_clock_per_sm", 64.0}, {"sm_clock_mhz", 1000.0}}},
                               {"global_memory", {{"peak_read_bytes_per_second", 1.28e12}}},
                               {"device", {{"sm_count", "100"}}}};
  add_littles_law_all_sms(out, topo);
  const auto& ll = out["littles_law"];
  const double r2 = ll["l2"]["loaded_latency_cycles"], rd = ll["dram"]["loaded_latency_cycles"];
  EXPECT_DOUBLE_EQ(ll["l2"]["all_sms"]["bytes_per_cycle_per_sm"].get<double>(), 64);
  EXPECT_DOUBLE_EQ(ll["l2"]["all_sms"]["outstanding_lines_per_sm_needed"].get<double>(), std::round(0.5 * r2));
  EXPECT_NEAR(ll["dram"]["all_sms"]["bytes_per_cycle_per_sm"].get<double>(), 12.8, 1e-9);  // 1.28e12 / 100 / 1e9
  EXPECT_DOUBLE_EQ(ll["dram"]["all_sms"]["outstanding_lines_per_sm_needed"].get<double>(), std::round(0.1 * rd));
  nlohmann::json bare = {{"littles_law", littles_law_section({series("unique128", 16, "dram", 900, 1500, 0.5)})}};
  add_littles_law_all_sms(bare, nlohmann::json::object());
  EXPECT_TRUE(bare["littles_law"]["dram"]["all_sms"].is_null());
}
