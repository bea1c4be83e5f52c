// Outstanding requests (002): the 3-point variance, step detection, and the MSHR / PRT
// classification on synthetic Thread-Latency series built from an MSHR model and from a PRT model
// with known entry counts (both must be recovered).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "analysis/memory/outstanding.hpp"
#include "analysis/memory/outstanding_ramp.hpp"
#include "tests/analysis/bench_entries.hpp"

using namespace memhier;
using namespace memhier::analysis;

namespace {

constexpr double kLatency = 300;  // one round trip (cycles)

// Deterministic jitter of +-3 cycles.
double jitter(std::uint64_t i) {
  i = (i ^ (i >> 33)) * 0xff51afd7ed558ccdull;
  i ^= i >> 29;
  return static_cast<double>(i % 7) - 3;
}

struct Model {
  bool prt = false;
  double entries = 128;  // E (MSHR) or P (PRT)
  int capacity = 8;      // MSHR merge capacity (threads per entry)
};

// Latency of T threads x L loads of a pattern with K threads per address: rounds of kLatency, a
// small issue ramp, a serialization ramp inside the first warp, jitter.
double model_latency(const Model& m, int k, int loads, double t, std::uint64_t seed) {
  double used;
  if (m.prt) used = loads * std::ceil(t / 32);
  else used = loads * std::ceil(t / k) * std::ceil(static_cast<double>(k) / m.capacity);
  const double rounds = std::ceil(used / m.entries);
  return kLatency * rounds + 0.02 * t * loads + std::min(t, 32.0) + jitter(seed);
}

std::vector<RequestSeries> model_series(const Model& m, const std::vector<std::string>& patterns) {
  std::vector<RequestSeries> out;
  std::uint64_t seed = 1;
  for (const auto& p : patterns)
    for (int l : {1, 2, 3, 4, 8, 16}) {
      const int k = p.rfind("merge", 0) == 0 ? std::stoi(p.substr(5)) : 1;
      std::vector<double> th, lat;
      for (int t = 2; t <= 2048; t += 2) {
        th.push_back(t);
        lat.push_back(model_latency(m, k, l, t, seed++));
      }
      RequestSeries s;
      s.benchmark = "outstanding_requests/pattern:" + p + "/loads:" + std::to_string(l);
      s.pattern = p;
      s.loads = l;
      s.merge = k;
      s.t_max = 2048;
      s.t_star = detect_spikes(th, lat).saturation_threads();
      out.push_back(s);
    }
  return out;
}

const std::vector<std::string> kAllPatterns = {"unique128", "unique32", "merge2", "merge4", "merge8", "merge16", "merge32"};

}  // namespace

TEST(ThreePointVariance, MatchesThePapersFormula) {
  const auto v = three_point_variance({0, 0, 3, 3, 3});
  ASSERT_EQ(v.size(), 5u);
  EXPECT_DOUBLE_EQ(v[0], 0);
  EXPECT_DOUBLE_EQ(v[1], 3);  // (0,0,3): mean 1, (1 + 1 + 4) / 2
  EXPECT_DOUBLE_EQ(v[2], 3);  // (0,3,3): mean 2, (4 + 1 + 1) / 2
  EXPECT_DOUBLE_EQ(v[3], 0);
  EXPECT_DOUBLE_EQ(v[4], 0);
}

TEST(DetectSpikes, SeparatesSerializationFromSaturation) {
  std::vector<double> th, lat;
  for (int t = 2; t <= 512; t += 2) {
    th.push_back(t);
    lat.push_back(300 + (t > 32 ? 40 : 0) + (t > 128 ? 300 : 0) + jitter(t));
  }
  const SpikeAnalysis a = detect_spikes(th, lat);
  ASSERT_EQ(a.steps.size(), 2u);
  EXPECT_EQ(a.saturation, 1);
  EXPECT_DOUBLE_EQ(a.saturation_threads(), 128);
  EXPECT_DOUBLE_EQ(a.steps[0].threads_before, 32);  // the serialization step comes first and is smaller
  EXPECT_LT(a.steps[0].rise, a.steps[1].rise);
}

TEST(DetectSpikes, AStepWhereTwoCtasTakeOverIsNoSaturation) {
  std::vector<double> th, lat;
  for (int t = 2; t <= 2048; t += 2) {
    th.push_back(t);
    lat.push_back(300 + (t > 1024 ? 250 : 0) + (t > 1536 ? 200 : 0) + jitter(t));  // both cost a round trip
  }
  const SpikeAnalysis a = detect_spikes(th, lat, 1024);
  ASSERT_EQ(a.steps.size(), 2u);
  EXPECT_TRUE(a.steps[0].mode_change);
  EXPECT_DOUBLE_EQ(a.saturation_threads(), 1536);  // the step after it, not the launch mode's
  EXPECT_EQ(detect_spikes(th, lat).saturation_threads(), 1024);  // without the hint it would be taken
}

TEST(DetectSpikes, OutliersAndRampsAreNoSteps) {
  std::vector<double> th, lat;
  for (int t = 2; t <= 512; t += 2) {
    th.push_back(t);
    lat.push_back(300 + 1.5 * t + (t == 200 ? 400 : 0) + jitter(t));  // a ramp with one slow sample
  }
  const SpikeAnalysis a = detect_spikes(th, lat);
  EXPECT_TRUE(a.steps.empty());
  EXPECT_EQ(a.saturation, -1);
  EXPECT_GT(a.knee_threads, 0);  // the ramp leaves the few-request level
}

TEST(ClassifyDesign, RecoversAnMshrTableAndItsMergeCapacity) {
  const auto series = model_series({false, 128, 8}, kAllPatterns);
  const DesignFit f = classify_design(series);
  ASSERT_EQ(f.design, "mshr") << f.reason;
  EXPECT_LE(f.entries_lo, 128);
  EXPECT_GE(f.entries_hi, 128);
  EXPECT_NEAR(f.entries_lo, 128, 8);
  EXPECT_EQ(f.merge_lo, 8);
  EXPECT_EQ(f.merge_hi, 8);
  EXPECT_EQ(f.unit, "sector");
  EXPECT_NEAR(f.max_outstanding, 128, 8);
}

TEST(ClassifyDesign, RecoversAnotherMshrSize) {
  const auto series = model_series({false, 256, 4}, kAllPatterns);
  const DesignFit f = classify_design(series);
  ASSERT_EQ(f.design, "mshr") << f.reason;
  EXPECT_NEAR(f.entries_lo, 256, 16);
  EXPECT_EQ(f.merge_lo, 4);
}

TEST(ClassifyDesign, RecoversAPendingRequestTable) {
  const auto series = model_series({true, 45, 0}, kAllPatterns);
  const DesignFit f = classify_design(series);
  ASSERT_EQ(f.design, "prt") << f.reason;
  EXPECT_LE(f.entries_lo, 45);
  EXPECT_GE(f.entries_hi, 45);
  EXPECT_DOUBLE_EQ(f.max_outstanding, 32 * f.entries_lo);  // 002 §5.2: entries x 32 requests
}

TEST(ClassifyDesign, UniquePatternsAloneDoNotDecide) {
  // 128 entries and loads 1, 2, 4 saturate at 128, 64, 32 threads: warp boundaries too, so a
  // four-entry PRT explains them as well as a 128-entry MSHR.
  std::vector<RequestSeries> s;
  for (int l : {1, 2, 4}) {
    RequestSeries r;
    r.benchmark = "u" + std::to_string(l);
    r.pattern = "unique128";
    r.loads = l;
    r.t_max = 2048;
    r.t_star = 128.0 / l;
    s.push_back(r);
  }
  const DesignFit f = classify_design(s);
  EXPECT_TRUE(f.design.empty());
  EXPECT_NE(f.reason.find("both"), std::string::npos) << f.reason;
}

TEST(ClassifyDesign, NoSaturationGivesALowerBound) {
  std::vector<RequestSeries> s(2);
  s[0] = {"a", "unique128", 4, 1, 2, 2048, -1};
  s[1] = {"b", "merge32", 16, 32, 2, 2048, -1};
  const DesignFit f = classify_design(s);
  EXPECT_TRUE(f.design.empty());
  EXPECT_TRUE(f.max_is_lower_bound);
  EXPECT_DOUBLE_EQ(f.max_outstanding, 4 * 2048);
}

TEST(OutstandingSection, ReadsSeriesFromTracesAndNamesEvidence) {
  const Model m{false, 128, 8};
  BenchRun run;
  run.path = "synthetic.json";
  run.context = {{"memhier_version", "test"}};
  std::vector<std::pair<std::string, Trace>> traces;
  std::uint64_t seed = 5;
  for (const std::string p : {"unique128", "merge4", "merge16", "merge32"})
    for (int l : {1, 2, 4}) {
      const std::string name = "outstanding_requests/pattern:" + p + "/loads:" + std::to_string(l);
      run.entries.push_back(test_support::bench_entry(name, {{"beyond_warp_limit", 0}, {"latency_cycles", 300}}));
      Trace t;
      t.benchmark = name;
      const int k = p.rfind("merge", 0) == 0 ? std::stoi(p.substr(5)) : 1;
      for (int th = 2; th <= 2048; th += 2) {
        t.index.push_back(th);
        t.latency.push_back(static_cast<std::uint32_t>(model_latency(m, k, l, th, seed++)));
      }
      traces.emplace_back(name, t);
    }
  Dataset d = Dataset::from_runs({run});
  for (auto& [n, t] : traces) d.add_trace(n, t);
  const auto o = outstanding_section(d);
  ASSERT_TRUE(o.is_object());
  EXPECT_EQ(o["design"], "mshr");
  EXPECT_NEAR(o["entries_per_sm"].get<double>(), 128, 8);
  EXPECT_EQ(o["merge_capacity"], 8);
  EXPECT_EQ(o["series"].size(), 12u);
  EXPECT_FALSE(o["provenance"]["design"]["evidence"].empty());
  EXPECT_TRUE(o["warp_load_limit"].is_null());  // no probe entry: null with a reason
}

// ---- ramps (the H100: no saturation step; the latency grows by a fixed cost per request unit) ----
namespace {

struct RampModel {
  double per_thread = 0.37, per_instruction = 0.33, per_line = 1.0, per_sector = 0;
  double base_l2 = 415, base_dram = 700;
  bool table = false;  // DRAM slope scaled by the latency ratio (an entry table), else the same slope
  std::string stepped;  // this series (pattern/loads) jumps by 600 cycles past 100 threads (one odd step, before its ramp)
};

double ramp_latency(const RampModel& m, const std::string& p, int loads, double t, bool dram, std::uint64_t seed) {
  double per_line = 1, per_sector = 1;
  pattern_units(p, &per_line, &per_sector);
  double slope = m.per_thread + loads * (m.per_instruction / 32 + m.per_line / per_line + m.per_sector / per_sector);
  if (dram && m.table) slope *= m.base_dram / m.base_l2;
  return (dram ? m.base_dram : m.base_l2) + slope * t + jitter(seed);
}

// One CTA up to 1024 threads (as the H100's first run), every pattern, loads 1-16; DRAM: unique128
// x4, x16 and unique32 x16, as the family registers them.
Dataset ramp_dataset(const RampModel& m) {
  BenchRun run;
  run.path = "synthetic.json";
  run.context = {{"memhier_version", "test"}};
  std::vector<std::pair<std::string, Trace>> traces;
  std::uint64_t seed = 11;
  auto add = [&](const std::string& p, int l, bool dram) {
    const std::string name = "outstanding_requests/pattern:" + p + "/loads:" + std::to_string(l) + (dram ? "/source:dram" : "");
    run.entries.push_back(test_support::bench_entry(name, {{"beyond_warp_limit", 0}}));
    Trace t;
    t.benchmark = name;
    const bool step = !dram && m.stepped == p + "/" + std::to_string(l);
    for (int th = 2; th <= 1024; th += 2) {
      t.index.push_back(th);
      t.latency.push_back(static_cast<std::uint32_t>(ramp_latency(m, p, l, th, dram, seed++) + (step && th > 100 ? 600 : 0)));
    }
    traces.emplace_back(name, t);
  };
  for (const auto& p : kAllPatterns)
    for (int l : {1, 2, 4, 8, 16}) add(p, l, false);
  add("unique128", 4, true);
  add("unique128", 16, true);
  add("unique32", 16, true);
  Dataset d = Dataset::from_runs({run});
  for (auto& [n, t] : traces) d.add_trace(n, t);
  return d;
}

}  // namespace

TEST(DetectSpikes, AWarpPerSchedulerStaircaseIsNoSaturation) {
  // merge32 on the H100: +60 cycles every 128 threads (one more warp on each of 4 schedulers)
  std::vector<double> th, lat;
  for (int t = 2; t <= 1024; t += 2) {
    th.push_back(t);
    lat.push_back(420 + 60 * ((t - 1) / 128) + jitter(t));
  }
  const SpikeAnalysis a = detect_spikes(th, lat);
  EXPECT_FALSE(a.steps.empty());  // the steps are seen ...
  EXPECT_EQ(a.saturation, -1);    // ... but none costs a round trip
}

TEST(RampFit, CostPerLineNotPerSectorOrInstruction) {
  std::vector<SeriesRamp> rs;
  for (const auto& p : kAllPatterns)
    for (int l : {1, 2, 4, 8, 16}) {
      SeriesRamp r;
      r.pattern = p;
      r.loads = l;
      pattern_units(p, &r.threads_per_line, &r.threads_per_sector);
      r.slope = 0.37 + l * (0.33 / 32 + 1.0 / r.threads_per_line);
      rs.push_back(r);
    }
  const RampFit f = fit_ramp_units(rs);
  ASSERT_TRUE(f.ok);
  ASSERT_GE(f.chosen, 0) << f.reason;
  EXPECT_EQ(f.models[f.chosen].unit, "line");
  EXPECT_NEAR(f.models[f.chosen].per_unit, 1.0, 0.01);
  EXPECT_GT(f.models[2].rms_relative, 2 * f.models[0].rms_relative);  // warp instructions alone do not fit
}

TEST(OutstandingSection, RampsWithAnIssueRateGiveALowerBoundByLittlesLaw) {
  const auto o = outstanding_section(ramp_dataset({}));
  ASSERT_TRUE(o.is_object());
  EXPECT_EQ(o["design"], "mshr");
  EXPECT_EQ(o["design_basis"], "ramp");
  EXPECT_EQ(o["request_unit"], "line");
  EXPECT_TRUE(o["entries_per_sm"].is_null());
  EXPECT_EQ(o["merge_capacity"], 32);
  EXPECT_TRUE(o["merge_capacity_is_lower_bound"].get<bool>());
  EXPECT_EQ(o["ramp"]["source_comparison"]["limit"], "issue_rate");
  EXPECT_TRUE(o["max_outstanding_is_lower_bound"].get<bool>());
  // the DRAM latency (first point: 700 + a few lines) over ~1 cycle per line
  EXPECT_NEAR(o["max_outstanding_requests_per_sm"].get<double>(), 700, 60);
  for (const auto& s : o["series"]) EXPECT_TRUE(s["saturation_threads"].is_null()) << s["benchmark"];
}

TEST(OutstandingSection, RampsWhoseDramSlopeFollowsTheLatencyAreATable) {
  RampModel m;
  m.table = true;
  const auto o = outstanding_section(ramp_dataset(m));
  ASSERT_TRUE(o.is_object());
  EXPECT_EQ(o["ramp"]["source_comparison"]["limit"], "entry_table");
  EXPECT_EQ(o["design"], "mshr");
  // entries = the L2 latency over the cycles per line (~415 + a few issue cycles)
  EXPECT_NEAR(o["entries_per_sm"].get<double>(), 420, 40);
  EXPECT_FALSE(o["max_outstanding_is_lower_bound"].get<bool>());
}

TEST(OutstandingSection, RampsByWarpInstructionAreAPrt) {
  RampModel m;
  m.per_line = 0;
  m.per_instruction = 40;  // every warp load instruction costs the same, whatever its lines
  const auto o = outstanding_section(ramp_dataset(m));
  ASSERT_TRUE(o.is_object());
  EXPECT_EQ(o["design"], "prt");
  EXPECT_EQ(o["design_basis"], "ramp");
  EXPECT_TRUE(o["merge_capacity"].is_null());
}

TEST(OutstandingSection, OneOddStepDoesNotHideTheRamps) {
  RampModel m;
  m.stepped = "unique128/2";
  const auto o = outstanding_section(ramp_dataset(m));
  ASSERT_TRUE(o.is_object());
  EXPECT_EQ(o["ramp"]["series_with_steps"], 1);
  EXPECT_EQ(o["design"], "mshr");
  EXPECT_EQ(o["design_basis"], "ramp");
  EXPECT_NE(o["provenance"]["entries_per_sm"]["reason"].get<std::string>().find("no table explains the steps of 1 series"),
            std::string::npos);
}

// ---- one run's scatter is no table (the H100's five back-to-back runs, issues 12 and 13) ----
namespace {

// An H100-like series: 2 ... 2048 threads (two CTAs from 1026), the latency ramps by ~1 cycle per
// line from the first warps, +-18 cycles of scatter (jumps' robust deviation ~22 cycles; the
// H100's ~33). `bump`: run 20261123T163538Z's unique128 x 16 series, which stood 200-300 cycles
// above its ramp for 20 thread counts past 1286 threads (21 349 -> 21 623 cycles).
RequestSeries h100_like_series(const std::string& p, int loads, bool bump, SpikeAnalysis* out = nullptr) {
  double per_line = 1, per_sector = 1;
  pattern_units(p, &per_line, &per_sector);
  const double slope = 0.37 + loads * (0.33 / 32 + 1.0 / per_line);
  std::vector<double> th, lat;
  std::uint64_t seed = 1000 * loads + p.size();
  for (int t = 2; t <= 2048; t += 2) {
    const double base = 560 + slope * t;
    th.push_back(t);
    lat.push_back(std::round(base + 6 * jitter(seed++) + (bump && t > 1286 && t <= 1326 ? 300 : 0)));
  }
  const SpikeAnalysis a = detect_spikes(th, lat, 1024);
  if (out) *out = a;
  RequestSeries s;
  s.benchmark = "outstanding_requests/pattern:" + p + "/loads:" + std::to_string(loads);
  s.pattern = p;
  s.loads = loads;
  s.merge = p.rfind("merge", 0) == 0 ? std::stoi(p.substr(5)) : 1;
  s.t_max = 2048;
  s.t_star = a.saturation_threads();
  return s;
}

}  // namespace

TEST(DetectSpikes, AJumpOnARampManyRoundTripsHighIsNoSaturation) {
  SpikeAnalysis a;
  h100_like_series("unique128", 16, true, &a);
  ASSERT_FALSE(a.steps.empty());  // the jump is seen as a step (it was run 2's "saturation") ...
  bool at_bump = false;
  for (const auto& s : a.steps) at_bump |= s.threads_before >= 1284 && s.threads_before <= 1290;
  EXPECT_TRUE(at_bump);
  EXPECT_GT(a.steps.front().rise, 0.5 * 560);  // ... it rises by more than half a round trip ...
  EXPECT_EQ(a.saturation, -1);                 // ... but stands on ~21 000 cycles of queueing
}

TEST(ClassifyDesign, OneRunsJumpOnTheH100sRampsGivesNoDesign) {
  std::vector<RequestSeries> series;
  for (const auto& p : kAllPatterns)
    for (int l : {1, 2, 3, 4, 8, 16}) series.push_back(h100_like_series(p, l, p == "unique128" && l == 16));
  const DesignFit f = classify_design(series);
  EXPECT_TRUE(f.design.empty()) << f.design << " " << f.entries_lo;
  EXPECT_TRUE(f.max_is_lower_bound);
  EXPECT_DOUBLE_EQ(f.max_outstanding, 16 * 2048);  // unique128 x 16 at 2048 threads: no step
}

TEST(ClassifyDesign, OneSeriesAloneThatStepsIsNoTable) {
  std::vector<RequestSeries> s(3);
  s[0] = {"a", "unique128", 16, 1, 2, 2048, 1286};  // steps: 20 576 lines
  s[1] = {"b", "unique128", 8, 1, 2, 2048, -1};     // 16 384 lines without a step
  s[2] = {"c", "merge32", 16, 32, 2, 2048, -1};
  const DesignFit f = classify_design(s);
  EXPECT_TRUE(f.design.empty());
  EXPECT_NE(f.reason.find("one series alone"), std::string::npos) << f.reason;
  EXPECT_TRUE(f.max_is_lower_bound);
  EXPECT_DOUBLE_EQ(f.max_outstanding, 8 * 2048);  // the series without a step, not the one with it
  s.push_back({"d", "unique128", 12, 1, 2, 2048, 1714});  // a second series at ~20 576 lines: a table
  EXPECT_EQ(classify_design(s).design, "mshr") << classify_design(s).reason;
}
