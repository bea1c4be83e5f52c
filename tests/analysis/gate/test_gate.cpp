// The compare gate (analysis/gate/gate.hpp, headline.hpp): thresholds per kind (inclusive), the spread
// of repetitions and of pattern samples, few samples never deciding alone, structure by stated
// ranges, exit codes, and a console table within 100 columns.
#include <gtest/gtest.h>

#include "tests/analysis/bench_entries.hpp"

#include <cmath>
#include <algorithm>
#include <filesystem>
#include <sstream>

#include "analysis/gate/compare_detail.hpp"
#include "analysis/gate/gate.hpp"
#include "common/trace.hpp"

using namespace memhier;
using namespace memhier::analysis;
namespace fs = std::filesystem;

namespace {

BenchRun bench(const std::string& gpu = "NVIDIA H100 80GB HBM3", const std::string& path = "mem.json") {
  BenchRun r;
  r.path = path;
  r.context = {{"memhier_version", "0.1.0"}, {"device_backend", "cuda"}, {"gpu_name", gpu},
               {"compute_capability", "9.0"}, {"driver_version", "580.159.04"}, {"trace_dir", "traces"}};
  return r;
}

void add(BenchRun& r, const std::string& name, const std::map<std::string, double>& counters, int rep = 0) {
  BenchEntry e = test_support::bench_entry(name, counters);
  e.repetition_index = rep;
  r.entries.push_back(e);
}

const std::string kRead = "gmem_throughput/kind:read/width:16/ilp:4/cta_size:1024/ctas:1";

nlohmann::json topology(double read_bw, double l1_hit, double l2_hit, double l1_size, double l1_line) {
  return {{"schema", "memhier-topology/1"},
          {"caches",
           {{"l1", {{"size_bytes", l1_size}, {"size_bracket_bytes", {l1_size, l1_size + 32}}, {"line_bytes", l1_line},
                    {"sets", nullptr}, {"hit_latency_cycles", l1_hit}}},
            {"l2", {{"hit_latency_cycles", l2_hit}}}}},
          {"global_memory",
           {{"peak_read_bytes_per_second", read_bw}, {"throughput", {{"read", {{"benchmark", kRead}}}}}}}};
}

CompareInput in(BenchRun b, nlohmann::json t, const std::string& label = "run") {
  CompareInput c;
  c.label = label;
  c.bench = std::move(b);
  c.topology = std::move(t);
  return c;
}

const GateRow* row(const GateResult& r, const std::string& id) {
  for (const auto& x : r.rows)
    if (x.id == id) return &x;
  return nullptr;
}

const nlohmann::json kBase = topology(3.2e12, 37.0, 300.0, 245760, 128);

// A run of the spectrum `name` (path global_cg) under dir/sub: per pattern its accesses in the trace
// (labels as in archives without a `labels` key: 0 cold_far, 1 cold_near, 4 same_line), the median
// of each as its counter and as its figure in the topology.
CompareInput spectrum_run(const fs::path& dir, const std::string& sub, const std::string& name,
                          const std::map<std::string, std::vector<std::uint32_t>>& patterns) {
  const std::map<std::string, std::uint32_t> label = {{"cold_far", 0}, {"cold_near", 1}, {"same_line", 4}};
  fs::create_directories(dir / sub / "traces");
  Trace t;
  t.benchmark = name;
  std::map<std::string, double> counters;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [pattern, v] : patterns) {
    for (std::uint32_t l : v) t.index.push_back(static_cast<std::uint32_t>(t.index.size())), t.latency.push_back(l), t.label.push_back(label.at(pattern));
    std::vector<std::uint32_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    const double med = sorted[sorted.size() / 2];
    counters[pattern + "_cycles"] = med;
    list.push_back({{"pattern", pattern}, {"cycles", med}});
  }
  write_trace((dir / sub / "traces" / (sanitize_for_file(name) + ".trace")).string(), t);
  BenchRun b = bench("NVIDIA H100 80GB HBM3", (dir / sub / "bench.json").string());
  add(b, name, counters);
  nlohmann::json topo = kBase;
  topo["global_memory"]["latency_spectrum"] = {{"global_cg", list}};
  return in(b, topo, sub);
}

const char* const kSpectrum = "latency_spectrum/path:global_cg/bytes:1048576/far_stride:65536/near_stride:4096";

}  // namespace

TEST(Gate, BackToBackIsNoChange) {
  const GateResult r = gate_compare(in(bench(), kBase), in(bench(), topology(3.19e12, 36.0, 305.0, 245776, 128)), {});
  EXPECT_TRUE(r.headline);
  EXPECT_EQ(r.worse(), 0);
  EXPECT_EQ(r.structural_changes(), 0);  // 16 bytes apart: the stated brackets overlap
  EXPECT_EQ(gate_exit_code(r, true, true), 0);
  EXPECT_EQ(r.undetermined.at("l1"), std::vector<std::string>{"sets"});  // null in both: said once
}

TEST(Gate, ABandwidthDropOfFivePercentIsWorseAndOfLessIsNot) {
  GateResult r = gate_compare(in(bench(), kBase), in(bench(), topology(3.2e12 * 0.95, 37, 300, 245760, 128)), {});
  EXPECT_EQ(row(r, "global_memory.peak_read_bytes_per_second")->verdict, Verdict::worse);
  EXPECT_EQ(gate_exit_code(r, true, true), 1);
  EXPECT_EQ(gate_exit_code(r, false, true), 0);  // relaxed: --fail-on=structure
  r = gate_compare(in(bench(), kBase), in(bench(), topology(3.2e12 * 0.951, 37, 300, 245760, 128)), {});
  EXPECT_EQ(row(r, "global_memory.peak_read_bytes_per_second")->verdict, Verdict::same);
}

TEST(Gate, LatencyNeedsTenCyclesAndFivePercent) {
  const GateResult r = gate_compare(in(bench(), kBase), in(bench(), topology(3.2e12, 47, 314, 245760, 128)), {});
  EXPECT_EQ(row(r, "caches.l1.hit_latency_cycles")->verdict, Verdict::worse);  // +10 cycles
  EXPECT_EQ(row(r, "caches.l2.hit_latency_cycles")->verdict, Verdict::same);   // +14 < 5 % of 300
  const GateResult s = gate_compare(in(bench(), kBase), in(bench(), topology(3.2e12, 46, 300, 245760, 128)), {});
  EXPECT_EQ(row(s, "caches.l1.hit_latency_cycles")->verdict, Verdict::same);  // +9 cycles
}

TEST(Gate, RepetitionsSpreadHoldsBackAChangeWithinIt) {
  BenchRun a = bench(), b = bench();
  const double reps[] = {3.0e12, 3.2e12, 3.4e12, 3.6e12};  // 2 x MAD = 0.4e12, about 12 %
  for (int i = 0; i < 4; ++i) {
    add(a, kRead, {{"bytes_per_second", reps[i]}}, i);
    add(b, kRead, {{"bytes_per_second", reps[i] * 0.93}}, i);
  }
  const GateResult r = gate_compare(in(a, kBase), in(b, topology(3.2e12 * 0.93, 37, 300, 245760, 128)), {});
  const GateRow* x = row(r, "global_memory.peak_read_bytes_per_second");
  EXPECT_EQ(x->verdict, Verdict::same);
  EXPECT_NE(x->note.find("within the runs' spread (repetitions"), std::string::npos) << x->note;
  EXPECT_NEAR(x->spread, 0.4e12, 1e9);
}

TEST(Gate, APatternOfFewAccessesNeverDecidesAlone) {
  const fs::path dir = fs::path(MEMHIER_BINARY_DIR) / "test_gate_spectrum";
  fs::remove_all(dir);
  auto make = [&](const std::string& sub, std::uint32_t shift) {
    std::vector<std::uint32_t> far, same(6, 300 + shift);  // 194 accesses of cold_far, 6 of same_line
    for (std::uint32_t i = 0; i < 194; ++i) far.push_back(700 + i % 5 + shift);
    return spectrum_run(dir, sub, kSpectrum, {{"cold_far", far}, {"same_line", same}});
  };
  const GateResult r = gate_compare(make("a", 0), make("b", 40), {});
  EXPECT_EQ(row(r, "spectrum.global_cg.cold_far")->verdict, Verdict::worse);  // 194 accesses, IQR 2
  const GateRow* few = row(r, "spectrum.global_cg.same_line");
  EXPECT_EQ(few->verdict, Verdict::info);
  EXPECT_NE(few->note.find("not decisive alone"), std::string::npos);
  EXPECT_EQ(few->samples_base, 6);
}

TEST(Gate, ABimodalPatternsMedianFlippingModesIsWithinItsInterval) {
  // The H100's cold_near DRAM accesses: 64 of them, ~540 or ~730 cycles, near half each. The
  // median of one run lands in the lower mode, of the next in the upper one (575 vs 730 at 20:49Z
  // and 21:00Z): the same memory, SAME. A unimodal pattern moved by 40 cycles stays a change.
  const fs::path dir = fs::path(MEMHIER_BINARY_DIR) / "test_gate_bimodal";
  fs::remove_all(dir);
  auto make = [&](const std::string& sub, std::uint32_t low, std::uint32_t shift) {
    std::vector<std::uint32_t> near, far;  // cold_near: `low` of 64 in the lower mode; cold_far: 200
    for (std::uint32_t i = 0; i < 64; ++i) near.push_back(i < low ? 540 + i % 7 : 730 + i % 7);
    for (std::uint32_t i = 0; i < 200; ++i) far.push_back(700 + i % 5 + shift);
    return spectrum_run(dir, sub, kSpectrum, {{"cold_near", near}, {"cold_far", far}});
  };
  const GateResult r = gate_compare(make("a", 34, 0), make("b", 30, 40), {});
  const GateRow* flip = row(r, "spectrum.global_cg.cold_near");
  ASSERT_TRUE(flip->change.has_value());
  EXPECT_GT(std::fabs(*flip->change), 0.2);  // 540-ish vs 730-ish
  EXPECT_EQ(flip->verdict, Verdict::same) << flip->note;
  // 64 accesses in two modes (common/two_class): the median's spread is the distance of the modes,
  // and each mode is a figure of its own, unchanged here.
  EXPECT_NE(flip->note.find("two modes"), std::string::npos) << flip->note;
  for (const char* m : {"spectrum.global_cg.cold_near.lower", "spectrum.global_cg.cold_near.upper"}) {
    const GateRow* mode = row(r, m);
    ASSERT_NE(mode, nullptr) << m;
    EXPECT_EQ(mode->verdict, Verdict::same) << m << ": " << mode->note;
  }
  EXPECT_EQ(row(r, "spectrum.global_cg.cold_far")->verdict, Verdict::worse);
  EXPECT_EQ(row(r, "spectrum.global_cg.cold_far.lower"), nullptr) << "one mode: no mode figures";
}

TEST(Gate, ABimodalPatternsModeThatMovesIsAChange) {
  // Both runs' cold_near accesses in two modes of the same shares; in the second the upper mode is
  // 15 % slower: the median (in the upper mode in both) moves within the modes' distance, the
  // upper mode's figure is WORSE (from 10 %).
  const fs::path dir = fs::path(MEMHIER_BINARY_DIR) / "test_gate_bimodal_moved";
  fs::remove_all(dir);
  auto make = [&](const std::string& sub, std::uint32_t upper) {
    std::vector<std::uint32_t> v;
    for (std::uint32_t i = 0; i < 128; ++i) v.push_back(i < 56 ? 540 + i % 7 : upper + i % 7);
    return spectrum_run(dir, sub, kSpectrum, {{"cold_near", v}});
  };
  const GateResult r = gate_compare(make("a", 730), make("b", 840), {});
  ASSERT_NE(row(r, "spectrum.global_cg.cold_near.upper"), nullptr);
  EXPECT_EQ(row(r, "spectrum.global_cg.cold_near.upper")->verdict, Verdict::worse);
  EXPECT_EQ(row(r, "spectrum.global_cg.cold_near.lower")->verdict, Verdict::same);
  EXPECT_EQ(row(r, "spectrum.global_cg.cold_near")->verdict, Verdict::same) << row(r, "spectrum.global_cg.cold_near")->note;
}

TEST(Gate, StructureChangesFailWithExitThree) {
  GateResult r = gate_compare(in(bench(), kBase), in(bench(), topology(3.2e12, 37, 300, 245760, 64)), {});
  EXPECT_EQ(row(r, "caches.l1.line_bytes")->verdict, Verdict::changed);
  EXPECT_EQ(gate_exit_code(r, true, true), 3);
  EXPECT_EQ(gate_exit_code(r, true, false), 0);
  r = gate_compare(in(bench(), kBase), in(bench(), topology(3.2e12, 37, 300, 122880, 128)), {});
  EXPECT_EQ(row(r, "caches.l1.size_bytes")->verdict, Verdict::changed);
  EXPECT_EQ(row(r, "caches.l1.size_bytes")->test, "range");
  nlohmann::json none = kBase;
  none["caches"]["l1"]["line_bytes"] = nullptr;
  r = gate_compare(in(bench(), kBase), in(bench(), none), {});
  EXPECT_EQ(row(r, "caches.l1.line_bytes")->verdict, Verdict::info);  // determined in one run only
  EXPECT_EQ(gate_exit_code(r, true, true), 0);
}

TEST(Gate, DifferentGpusAreRefusedOrShownSideBySide) {
  const GateResult r = gate_compare(in(bench(), kBase), in(bench("NVIDIA H200"), kBase), {});
  EXPECT_TRUE(r.refused());
  EXPECT_EQ(gate_exit_code(r, true, true), 4);
  GateOptions o;
  o.ignore_device = true;
  const GateResult s = gate_compare(in(bench(), kBase), in(bench("NVIDIA H200"), topology(4.6e12, 37, 300, 245760, 128)), o);
  EXPECT_EQ(gate_exit_code(s, true, true), 0);
  const std::string text = render_gate_console(s, false);
  EXPECT_NE(text.find("new/base"), std::string::npos);
  EXPECT_NE(text.find("x1.438"), std::string::npos) << text;  // 4.6 / 3.2
}

TEST(Gate, ConsoleTableFitsOneHundredColumnsAndNamesTheDrivers) {
  BenchRun b = bench();
  b.context["driver_version"] = "575.57.08";
  const GateResult r = gate_compare(in(bench(), kBase, std::string(150, 'x')), in(b, topology(3.0e12, 50, 300, 245760, 64)), {});
  const std::string text = render_gate_console(r, false);
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) EXPECT_LE(l.size(), 100u) << l;
  EXPECT_NE(text.find("driver: 580.159.04 -> 575.57.08"), std::string::npos);
  EXPECT_NE(text.find("gate: FAIL"), std::string::npos);
  const nlohmann::json j = render_gate_json(r, false);
  EXPECT_EQ(j["gate"]["exit_code"], 3);
  EXPECT_EQ(j["format"], "memhier-compare/2");
}

TEST(Gate, AMinorityOfSamplesFromAnotherLevelDoesNotWidenTheSpread) {
  // Hit latencies of a path's chases: most at the level (280), a few far-partition ones (420).
  BenchRun a = bench(), b = bench();
  const double lat[] = {280, 281, 279, 280, 282, 420, 421};
  for (int i = 0; i < 7; ++i) {
    const std::string n = "pchase/path:global_cg/mode:count/bytes:" + std::to_string(1 << (20 + i)) + "/stride:128";
    add(a, n, {{"hit_latency_cycles", lat[i]}, {"accesses", 1000}, {"misses", 10}});
    add(b, n, {{"hit_latency_cycles", lat[i] + 40}, {"accesses", 1000}, {"misses", 10}});
  }
  nlohmann::json ta = kBase, tb = kBase;
  ta["caches"]["l2"]["latency_levels_global_cg"] = nlohmann::json::array({{{"mean_cycles", 300.0}, {"accesses", 50000}}});
  tb["caches"]["l2"] = ta["caches"]["l2"];
  tb["caches"]["l2"]["hit_latency_cycles"] = 340.0;
  const GateResult r = gate_compare(in(a, ta), in(b, tb), {});
  const GateRow* x = row(r, "caches.l2.hit_latency_cycles");
  EXPECT_LT(x->spread, 10);                 // 2 x MAD of the chases, not their range
  EXPECT_EQ(x->verdict, Verdict::worse);    // +40 cycles: beyond max(10, 15) and the spread
  EXPECT_EQ(x->samples_base, 50000);        // the accesses of its latency level
}

TEST(Gate, AStructuralCountWithAStatedRangeIsJudgedByItsRange) {
  nlohmann::json a = kBase, b = kBase;
  a["outstanding_requests"] = {{"design", "mshr"}, {"entries_per_sm", 256}, {"entries_per_sm_range", {240, 272}}};
  b["outstanding_requests"] = {{"design", "mshr"}, {"entries_per_sm", 264}, {"entries_per_sm_range", {248, 280}}};
  GateResult r = gate_compare(in(bench(), a), in(bench(), b), {});
  EXPECT_EQ(row(r, "outstanding_requests.entries_per_sm")->verdict, Verdict::same);  // ranges overlap
  EXPECT_EQ(row(r, "outstanding_requests.entries_per_sm")->test, "range");
  b["outstanding_requests"] = {{"design", "prt"}, {"entries_per_sm", 128}, {"entries_per_sm_range", {120, 136}}};
  r = gate_compare(in(bench(), a), in(bench(), b), {});
  EXPECT_EQ(row(r, "outstanding_requests.entries_per_sm")->verdict, Verdict::changed);
  EXPECT_EQ(row(r, "outstanding_requests.design")->verdict, Verdict::changed);
  EXPECT_EQ(gate_exit_code(r, true, true), 3);
}

TEST(Gate, ALowerBoundIsChangedOnlyByAValueBelowIt) {
  nlohmann::json a = kBase, b = kBase;
  const std::string k = "outstanding_requests.max_outstanding_requests_per_sm";
  a["outstanding_requests"] = {{"max_outstanding_requests_per_sm", 32768}, {"max_outstanding_is_lower_bound", true}};
  b["outstanding_requests"] = {{"max_outstanding_requests_per_sm", 1200}, {"max_outstanding_is_lower_bound", true}};
  GateResult r = gate_compare(in(bench(), a), in(bench(), b), {});
  EXPECT_EQ(row(r, k)->verdict, Verdict::same) << row(r, k)->note;  // two bounds never contradict
  EXPECT_EQ(row(r, k)->test, "bound");
  b["outstanding_requests"] = {{"max_outstanding_requests_per_sm", 40000}, {"max_outstanding_is_lower_bound", false}};
  r = gate_compare(in(bench(), a), in(bench(), b), {});
  EXPECT_EQ(row(r, k)->verdict, Verdict::same) << row(r, k)->note;  // a table beyond the bound
  b["outstanding_requests"] = {{"max_outstanding_requests_per_sm", 20576}, {"max_outstanding_is_lower_bound", false}};
  r = gate_compare(in(bench(), a), in(bench(), b), {});
  EXPECT_EQ(row(r, k)->verdict, Verdict::changed) << row(r, k)->note;  // a table the bound rules out
}

// Two bench.json files (no topology.json): a difference between single samples has no noise model
// and is no verdict (exit 5), never WORSE; with repetitions on both sides the U test or spread
// decides; a benchmark that fails only now is WORSE whatever the samples.
TEST(Gate, BenchJsonFilesJudgeOnlyWhatANoiseModelDecides) {
  auto file = [](double bw, int reps, bool fails = false) {
    BenchRun r = bench();
    for (int i = 0; i < reps; ++i) add(r, kRead, {{"bytes_per_second", bw * (1 + 0.001 * i)}}, i);
    if (fails) {
      BenchEntry e = test_support::bench_entry("gmem_throughput/kind:write/width:16/ilp:4/cta_size:1024/ctas:1", {});
      e.error = true;
      e.error_message = "out of memory";
      r.entries.push_back(e);
    } else {
      add(r, "gmem_throughput/kind:write/width:16/ilp:4/cta_size:1024/ctas:1", {{"bytes_per_second", 1e12}});
    }
    return r;
  };
  auto no_topo = [](BenchRun b) {
    CompareInput c;
    c.label = "bench.json";
    c.bench = std::move(b);
    return c;
  };
  const GateOptions o;
  // single samples 8 % apart: INFO rows, no verdict, exit 5 (0 with --survey)
  GateResult single = gate_compare(no_topo(file(3.2e12, 1)), no_topo(file(2.944e12, 1)), o);
  EXPECT_TRUE(single.no_verdict());
  EXPECT_EQ(single.worse(), 0);
  EXPECT_EQ(single.unjudged, 1);
  EXPECT_EQ(gate_exit_code(single, true, true), 5);
  EXPECT_EQ(gate_exit_code(single, false, false), 0);
  EXPECT_NE(render_gate_console(single, false).find("gate: NO VERDICT"), std::string::npos);
  EXPECT_EQ(render_gate_json(single, false)["gate"]["result"], "no_verdict");
  // identical single samples: nothing to judge, PASS
  GateResult same = gate_compare(no_topo(file(3.2e12, 1)), no_topo(file(3.2e12, 1)), o);
  EXPECT_FALSE(same.no_verdict());
  EXPECT_EQ(gate_exit_code(same, true, true), 0);
  // four repetitions a side 8 % apart: the U test decides, WORSE
  GateResult reps = gate_compare(no_topo(file(3.2e12, 4)), no_topo(file(2.944e12, 4)), o);
  EXPECT_FALSE(reps.no_verdict());
  EXPECT_EQ(reps.worse(), 1);
  EXPECT_EQ(gate_exit_code(reps, true, true), 1);
  // a benchmark that fails only now: WORSE even between single samples
  GateResult fails = gate_compare(no_topo(file(3.2e12, 1)), no_topo(file(3.2e12, 1, true)), o);
  EXPECT_FALSE(fails.no_verdict());
  EXPECT_EQ(gate_exit_code(fails, true, true), 1);
}

// A run memhier-bench marked contended (another process shared the GPU) or throttled gets no
// verdict: exit 7 naming the run and the evidence, unless allow_contended; a clean pair is judged.
TEST(Gate, AContendedOrThrottledRunIsRefusedUnlessAllowed) {
  BenchRun clean = bench(), busy = bench(), hot = bench();
  for (BenchRun* b : {&clean, &busy, &hot}) {
    add(*b, kRead, {{"bytes_per_second", 3.2e12}});
    b->context["measurement_contended"] = "false";
    b->context["measurement_throttled"] = "false";
  }
  busy.context["measurement_contended"] = "true";
  busy.context["measurement_evidence"] = "other compute processes during gmem_throughput (1)";
  hot.context["measurement_throttled"] = "true";
  hot.context["measurement_evidence"] = "clock-event reasons during pchase (sw_power_cap, SM 1755 MHz)";
  GateOptions o;
  GateResult r = gate_compare(in(clean, kBase, "clean"), in(busy, kBase, "busy"), o);
  ASSERT_TRUE(r.refused_conditions());
  EXPECT_EQ(gate_exit_code(r, true, true), 7);
  EXPECT_TRUE(r.rows.empty());
  ASSERT_EQ(r.untrusted.size(), 1u);
  EXPECT_NE(r.untrusted[0].find("new: contended (other compute processes during gmem_throughput"), std::string::npos);
  EXPECT_NE(render_gate_console(r, false).find("gate: REFUSED - not measured on an idle, unthrottled GPU"), std::string::npos);
  EXPECT_EQ(render_gate_json(r, false)["gate"]["result"], "refused_conditions");
  GateResult t = gate_compare(in(hot, kBase, "hot"), in(clean, kBase, "clean"), o);
  EXPECT_EQ(gate_exit_code(t, true, true), 7);
  EXPECT_NE(t.untrusted[0].find("base: throttled"), std::string::npos);
  o.allow_contended = true;
  GateResult allowed = gate_compare(in(clean, kBase, "clean"), in(busy, kBase, "busy"), o);
  EXPECT_FALSE(allowed.refused_conditions());
  EXPECT_EQ(gate_exit_code(allowed, true, true), 0);
  EXPECT_FALSE(allowed.rows.empty());
  GateResult fine = gate_compare(in(clean, kBase, "a"), in(clean, kBase, "b"), GateOptions{});
  EXPECT_TRUE(fine.untrusted.empty());
  EXPECT_EQ(gate_exit_code(fine, true, true), 0);
}

// A TLB's entries are its reach counted in entries: within the size tolerance they are the same
// structure (2042 vs 2047 of a 2048-entry level), beyond it CHANGED (16 vs 17).
TEST(Gate, TlbEntriesAreJudgedAsTheReachTheyCount) {
  auto topo = [](double l1, double l2) {
    nlohmann::json t = kBase;
    t["caches"]["l1_tlb"] = {{"entries", l1}, {"provenance", {{"entries", {{"confidence", 0.9}}}}}};
    t["caches"]["l2_tlb"] = {{"entries", l2}, {"provenance", {{"entries", {{"confidence", 0.9}}}}}};
    return t;
  };
  GateOptions o;
  GateResult same = gate_compare(in(bench(), topo(16, 2042), "a"), in(bench(), topo(16, 2047), "b"), o);
  ASSERT_NE(row(same, "caches.l2_tlb.entries"), nullptr);
  EXPECT_EQ(row(same, "caches.l2_tlb.entries")->verdict, Verdict::same) << row(same, "caches.l2_tlb.entries")->note;
  EXPECT_EQ(gate_exit_code(same, true, true), 0);
  GateResult changed = gate_compare(in(bench(), topo(16, 2042), "a"), in(bench(), topo(17, 2042), "b"), o);
  EXPECT_EQ(row(changed, "caches.l1_tlb.entries")->verdict, Verdict::changed);
  EXPECT_EQ(gate_exit_code(changed, true, true), 3);
  GateResult halved = gate_compare(in(bench(), topo(16, 2048), "a"), in(bench(), topo(16, 1024), "b"), o);
  EXPECT_EQ(row(halved, "caches.l2_tlb.entries")->verdict, Verdict::changed);
}

// The host link's figures count from 15 % (the link's state is not the GPU's: the lowest of 3
// latency chases and the copies vary by up to ~9 % between back-to-back processes): a 10 % slower
// copy or latency is no change, 20 % is; a 10 % drop of the GPU's own read bandwidth still is.
TEST(Gate, TheHostLinkCountsFromFifteenPercent) {
  auto host = [](double h2d, double d2h, double lat, double read_bw) {
    nlohmann::json t = kBase;
    t["global_memory"]["peak_read_bytes_per_second"] = read_bw;
    t["host_memory"] = {{"latency_cycles", lat},
                        {"copy", {{"h2d", {{"bytes_per_second", h2d}}}, {"d2h", {{"bytes_per_second", d2h}}}}}};
    return t;
  };
  const nlohmann::json a = host(55e9, 55e9, 2400, 3.2e12);
  GateResult r = gate_compare(in(bench(), a), in(bench(), host(55e9 * 0.9, 55e9 * 0.9, 2400 * 1.1, 3.2e12 * 0.9)), {});
  for (const char* id : {"host_memory.copy.h2d.bytes_per_second", "host_memory.copy.d2h.bytes_per_second",
                         "host_memory.latency_cycles"}) {
    ASSERT_NE(row(r, id), nullptr) << id;
    EXPECT_EQ(row(r, id)->verdict, Verdict::same) << id;
  }
  EXPECT_EQ(row(r, "global_memory.peak_read_bytes_per_second")->verdict, Verdict::worse);
  r = gate_compare(in(bench(), a), in(bench(), host(55e9 * 0.8, 55e9 * 0.8, 2400 * 1.2, 3.2e12)), {});
  for (const char* id : {"host_memory.copy.h2d.bytes_per_second", "host_memory.copy.d2h.bytes_per_second",
                         "host_memory.latency_cycles"})
    EXPECT_EQ(row(r, id)->verdict, Verdict::worse) << id;
}

// Issue 31: the console is verdict-first, SAME rows only with --all, names never cut, units by
// magnitude; topologies of different analyzers compared as archived make ANALYZER-CHANGED.
TEST(Gate, ConsoleVerdictFirstSameRowsOnlyWithAll) {
  GateResult r = gate_compare(in(bench(), kBase), in(bench(), topology(3.2e12, 50, 300, 245760, 128)), {});
  std::string text = render_gate_console(r, false);
  EXPECT_EQ(text.rfind("gate: FAIL - 1 worse", 0), 0u) << text;
  EXPECT_NE(text.substr(0, text.find('\n')).find("l1 hit latency +13.0 cy"), std::string::npos) << text;
  EXPECT_EQ(text.find("SAME"), text.find("rows SAME not shown") + 5) << text;  // no SAME row, only the count
  r.detail_all = true;
  text = render_gate_console(r, false);
  EXPECT_NE(text.find("SAME"), std::string::npos);
  EXPECT_EQ(text.find("not shown"), std::string::npos) << text;
}

TEST(Gate, UnitsByMagnitudeAndNamesWhole) {
  using compare_detail::unit_text;
  EXPECT_EQ(unit_text("caches.l2_tlb.size_bytes", false, 65472.0 * 1048576), "63.9 GiB");
  EXPECT_EQ(unit_text("caches.l1.size_bytes", false, 229376), "224.0 KiB");
  EXPECT_EQ(unit_text("caches.l1.line_bytes", false, 128), "128 B");
  EXPECT_EQ(unit_text("caches.l2.size_bytes", false, 50.0 * 1048576), "50.0 MiB");
  EXPECT_EQ(unit_text("global_memory.peak_read_bytes_per_second", false, 3.35e12), "3.35 TB/s");
  EXPECT_EQ(unit_text("host_memory.copy.h2d.bytes_per_second", false, 55.1e9), "55.1 GB/s");
  const std::string id = "address_translation.levels[1].reach_per_entry_bytes_of_a_very_long_field";
  EXPECT_EQ(figure_label(id).find("..."), std::string::npos) << figure_label(id);
  nlohmann::json b = kBase, n = kBase;
  b["caches"]["l1"]["replacement"] = "none of the known policies";
  n["caches"]["l1"]["replacement"] = "slru";
  const std::string text = render_gate_console(gate_compare(in(bench(), b), in(bench(), n), {}), false);
  EXPECT_NE(text.find("none of the known policies"), std::string::npos) << text;
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);) EXPECT_LE(l.size(), 100u) << l;
}

// A value longer than a line (an index matrix: a JSON list without spaces) wraps after its commas
// within 100 columns, each part printed once (cli_gate_sim printed a 116-column line and a piece of
// it again).
TEST(Gate, ALongValueWrapsWithinTheLine) {
  nlohmann::json b = kBase, n = kBase;
  n["caches"]["l2"]["index_matrix"] = {"0x40201000", "0x20100800", "0x10080400", "0x8040200", "0x4020100",
                                       "0x2010080",  "0x1008000",  "0x804000",   "0x402000"};
  const std::string text = render_gate_console(gate_compare(in(bench(), b), in(bench(), n), {}), false);
  std::istringstream lines(text);
  std::string all;
  for (std::string l; std::getline(lines, l);) {
    EXPECT_LE(l.size(), 100u) << l;
    all += l;
  }
  EXPECT_NE(all.find("0x40201000"), std::string::npos) << text;
  EXPECT_EQ(all.find("0x402000"), all.rfind("0x402000")) << "a piece printed twice:\n" << text;
  EXPECT_EQ(compare_detail::wrap(std::string(250, 'x'), 100, 6).find(std::string(101, 'x')), std::string::npos);
}

TEST(Gate, DifferentAnalyzersMakeAnalyzerChangedNotAFailure) {
  nlohmann::json a = kBase, b = topology(3.2e12, 37.0, 300.0, 245760, 64);  // the L1 line differs
  a["analyzer"] = {{"name", "memhier-infer"}, {"version", "0.1.0"}, {"revision", "aaaa"}};
  b["analyzer"] = {{"name", "memhier-infer"}, {"version", "0.2.0"}, {"revision", "bbbb"}};
  GateResult r = gate_compare(in(bench(), a), in(bench(), b), {});
  EXPECT_TRUE(r.analyzers_differ);
  EXPECT_EQ(row(r, "caches.l1.line_bytes")->verdict, Verdict::analyzer_changed);
  EXPECT_EQ(r.structural_changes(), 0);
  EXPECT_EQ(r.analyzer_changes(), 1);
  EXPECT_EQ(gate_exit_code(r, true, true), 0);
  EXPECT_NE(render_gate_console(r, false).find("ANALYZER-CHANGED"), std::string::npos);
  EXPECT_EQ(render_gate_json(r, false)["gate"]["analyzer_changes"].size(), 1u);
  b["analyzer"] = a["analyzer"];  // one analyzer: the same difference is the GPU's
  r = gate_compare(in(bench(), a), in(bench(), b), {});
  EXPECT_EQ(row(r, "caches.l1.line_bytes")->verdict, Verdict::changed);
  EXPECT_EQ(gate_exit_code(r, true, true), 3);
  b.erase("analyzer");  // one stamped, one not: different analyzers
  EXPECT_EQ(gate_exit_code(gate_compare(in(bench(), a), in(bench(), b), {}), true, true), 0);
}

TEST(Gate, SameInputIsSaidOnce) {
  CompareInput a = in(bench(), kBase, "/tmp/archive"), b = in(bench(), kBase, "/tmp/archive/");
  const PairAnalysis pa = prepare_pair(a, b, false);
  EXPECT_FALSE(pa.same_input.empty());
  EXPECT_FALSE(pa.reanalyzed);
  const std::string text = render_gate_console(gate_compare(a, b, {}, pa), false);
  EXPECT_EQ(text.rfind("gate: PASS - same input", 0), 0u) << text;
  std::size_t n = 0;
  for (std::size_t p = 0; (p = text.find("same input", p)) != std::string::npos; ++p) ++n;
  EXPECT_EQ(n, 1u) << text;
  EXPECT_EQ(text.find("new:"), std::string::npos) << text;  // one input: named once
}
