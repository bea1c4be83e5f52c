// memhier-compare library: statistics, counter directions, verdicts with and without repetitions,
// topology field comparison, device refusal.
#include <gtest/gtest.h>

#include "tests/analysis/bench_entries.hpp"

#include "analysis/gate/compare.hpp"

using namespace memhier;
using namespace memhier::analysis;

namespace {

BenchRun run_of(const std::string& gpu = "NVIDIA H100 80GB HBM3") {
  BenchRun r;
  r.path = "mem.json";
  r.context = {{"memhier_version", "0.1.0"}, {"device_backend", "cuda"}, {"gpu_name", gpu},
               {"compute_capability", "9.0"}, {"driver_version", "580.95.05"}};
  return r;
}

void add(BenchRun& r, const std::string& name, const std::map<std::string, double>& counters, int rep = 0) {
  BenchEntry e = test_support::bench_entry(name, counters);
  e.repetition_index = rep;
  r.entries.push_back(e);
}

CompareInput input(BenchRun r, std::optional<nlohmann::json> topo = std::nullopt) {
  CompareInput in;
  in.label = r.path;
  in.bench = std::move(r);
  in.topology = std::move(topo);
  return in;
}

const CompareRow* find(const CompareResult& r, const std::string& name, const std::string& field) {
  for (const auto& row : r.rows)
    if (row.name == name && row.field == field) return &row;
  return nullptr;
}

const std::string kChase = "pchase/path:global_ca/mode:count/bytes:65536/stride:32/iters:2048/warm:1/carveout:0";
const std::string kBw = "gmem_throughput/kernel:read/ctas:528/cta_size:256/ilp:4/width:16";

}  // namespace

TEST(CompareStats, ExactUTestMatchesTheRankDistribution) {
  // Complete separation of 4 against 4: 2 of the C(8,4) = 70 arrangements are as extreme.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3, 4}, {5, 6, 7, 8}), 2.0 / 70.0, 1e-12);
  EXPECT_NEAR(mann_whitney_p({5, 6, 7, 8}, {1, 2, 3, 4}), 2.0 / 70.0, 1e-12);
  // 3 against 3 can never reach 0.05 (min two-sided p = 2/20).
  EXPECT_NEAR(mann_whitney_p({1, 2, 3}, {4, 5, 6}), 0.1, 1e-12);
  // Interleaved samples: not significant.
  EXPECT_GT(mann_whitney_p({1, 3, 5, 7}, {2, 4, 6, 8}), 0.5);
}

TEST(CompareStats, NormalApproximationWithTies) {
  std::vector<double> a = {10, 10, 11, 11, 12, 12, 13}, b = {20, 20, 21, 21, 22, 22, 23};
  const double p = mann_whitney_p(a, b);
  EXPECT_LT(p, 0.01);
  EXPECT_GT(p, 0.0);
  EXPECT_DOUBLE_EQ(p, mann_whitney_p(b, a));
  EXPECT_DOUBLE_EQ(mann_whitney_p({5, 5, 5, 5}, {5, 5, 5, 5}), 1.0);
}

TEST(CompareDirections, CountersAndTopologyFields) {
  EXPECT_EQ(counter_direction("latency_cycles"), Direction::lower);
  EXPECT_EQ(counter_direction("miss_latency_cycles"), Direction::lower);
  EXPECT_EQ(counter_direction("cold_far_cycles"), Direction::lower);
  EXPECT_EQ(counter_direction("miss_rate"), Direction::lower);
  EXPECT_EQ(counter_direction("misses"), Direction::lower);
  EXPECT_EQ(counter_direction("bytes_per_second"), Direction::higher);
  EXPECT_EQ(counter_direction("pct_of_peak"), Direction::higher);
  EXPECT_EQ(counter_direction("bytes_per_clock_per_sm"), Direction::higher);
  EXPECT_EQ(counter_direction("carveout"), Direction::structure);
  EXPECT_EQ(counter_direction("sm_id"), Direction::ignore);
  EXPECT_EQ(counter_direction("frobnication"), Direction::unknown);
  EXPECT_EQ(topology_direction("caches.l1.size_bytes"), Direction::structure);
  EXPECT_EQ(topology_direction("caches.l1.ways"), Direction::structure);
  EXPECT_EQ(topology_direction("caches.l1.hit_latency_cycles"), Direction::lower);
  EXPECT_EQ(topology_direction("caches.l2.miss_penalty_cycles"), Direction::lower);
  EXPECT_EQ(topology_direction("shared_memory.latency_by_stride.128"), Direction::lower);
  EXPECT_EQ(topology_direction("global_memory.peak_read_bytes_per_second"), Direction::higher);
}

TEST(CompareVerdicts, SingleSamplesUseTheThreshold) {
  BenchRun a = run_of(), b = run_of();
  add(a, kChase, {{"latency_cycles", 100}, {"miss_rate", 0.10}, {"accesses", 2048}, {"sm_id", 3}});
  add(b, kChase, {{"latency_cycles", 104}, {"miss_rate", 0.30}, {"accesses", 2048}, {"sm_id", 7}});
  add(a, kBw, {{"bytes_per_second", 1e12}});
  add(b, kBw, {{"bytes_per_second", 1.2e12}});
  CompareResult r = compare_runs(input(a), input(b), CompareOptions{});
  ASSERT_TRUE(r.same_device);
  auto* lat = find(r, kChase, "latency_cycles");
  ASSERT_NE(lat, nullptr);
  EXPECT_EQ(lat->verdict, Verdict::same);  // +4 % < 5 % (and 4 cycles < 10)
  EXPECT_EQ(lat->test, "threshold");
  auto* mr = find(r, kChase, "miss_rate");
  ASSERT_NE(mr, nullptr);
  EXPECT_EQ(mr->verdict, Verdict::worse);  // +0.20 absolute
  EXPECT_NEAR(*mr->change, 0.20, 1e-12);
  EXPECT_EQ(find(r, kChase, "sm_id"), nullptr);  // where it ran is not a result
  EXPECT_EQ(find(r, kChase, "accesses")->verdict, Verdict::same);
  EXPECT_EQ(find(r, kBw, "bytes_per_second")->verdict, Verdict::better);
  EXPECT_TRUE(r.worse());

  CompareOptions loose;
  loose.threshold = 0.03;  // +4 % is beyond 3 % but a latency also needs 10 cycles by default
  EXPECT_EQ(find(compare_runs(input(a), input(b), loose), kChase, "latency_cycles")->verdict, Verdict::same);
  loose.latency_floor_cycles = 0;
  EXPECT_EQ(find(compare_runs(input(a), input(b), loose), kChase, "latency_cycles")->verdict, Verdict::worse);
}

TEST(CompareVerdicts, RepetitionsUseTheUTest) {
  BenchRun a = run_of(), b = run_of(), noisy = run_of();
  const double base[] = {100, 101, 99, 100.5, 99.5}, slow[] = {115, 116, 114, 115.5, 114.5},
               wide[] = {80, 140, 106, 60, 150};
  for (int i = 0; i < 5; ++i) {
    add(a, kChase, {{"latency_cycles", base[i]}}, i);
    add(b, kChase, {{"latency_cycles", slow[i]}}, i);
    add(noisy, kChase, {{"latency_cycles", wide[i]}}, i);
  }
  const CompareResult rb = compare_runs(input(a), input(b), CompareOptions{});  // rows live in it
  auto* row = find(rb, kChase, "latency_cycles");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(row->test, "utest");
  EXPECT_EQ(row->n_base, 5);
  EXPECT_LT(*row->p_value, 0.05);
  EXPECT_EQ(row->verdict, Verdict::worse);
  EXPECT_DOUBLE_EQ(row->base.get<double>(), 100.0);  // median

  // Median +6 %, and the repetitions overlap: not significant (p) and within the threshold.
  CompareResult r = compare_runs(input(a), input(noisy), CompareOptions{});
  row = find(r, kChase, "latency_cycles");
  EXPECT_GT(*row->p_value, 0.05);
  EXPECT_EQ(row->verdict, Verdict::same);
}

TEST(CompareVerdicts, TwoOrThreeRepetitionsUseTheSpread) {
  BenchRun a = run_of(), b = run_of(), c = run_of();
  for (int i = 0; i < 3; ++i) {
    add(a, kBw, {{"bytes_per_second", 1.00e12 + i * 1e10}}, i);
    add(b, kBw, {{"bytes_per_second", 0.80e12 + i * 1e10}}, i);  // -20 %, ranges apart
    add(c, kBw, {{"bytes_per_second", i == 1 ? 0.85e12 : 1.01e12 - i * 0.3e12}}, i);
  }
  const CompareResult rb = compare_runs(input(a), input(b), CompareOptions{});  // rows live in it
  auto* row = find(rb, kBw, "bytes_per_second");
  EXPECT_EQ(row->test, "spread");
  EXPECT_EQ(row->verdict, Verdict::worse);
  CompareResult rc = compare_runs(input(a), input(c), CompareOptions{});
  row = find(rc, kBw, "bytes_per_second");
  EXPECT_EQ(row->verdict, Verdict::same);
  EXPECT_NE(row->note.find("spread"), std::string::npos);
}

TEST(CompareVerdicts, FailuresAndMissingBenchmarks) {
  BenchRun a = run_of(), b = run_of();
  add(a, kChase, {{"latency_cycles", 100}});
  add(b, kChase, {});
  b.entries.back().error = true;
  b.entries.back().error_message = "cudaErrorIllegalAddress";
  add(a, kBw, {{"bytes_per_second", 1e12}});
  CompareResult r = compare_runs(input(a), input(b), CompareOptions{});
  auto* failed = find(r, kChase, "");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ(failed->verdict, Verdict::worse);
  EXPECT_NE(failed->note.find("cudaErrorIllegalAddress"), std::string::npos);
  auto* gone = find(r, kBw, "");
  ASSERT_NE(gone, nullptr);
  EXPECT_EQ(gone->verdict, Verdict::changed);
  EXPECT_EQ(r.only_base, 1);

  CompareOptions common;
  common.common_only = true;
  CompareResult rc = compare_runs(input(a), input(b), common);
  EXPECT_EQ(find(rc, kBw, ""), nullptr);
  EXPECT_EQ(rc.only_base, 1);
}

TEST(CompareTopology, FieldByField) {
  nlohmann::json t = {{"schema", "memhier-topology/1"},
                      {"caches",
                       {{"l1", {{"size_bytes", 229376}, {"ways", {4, 4}}, {"replacement", "lru"},
                                {"hit_latency_cycles", 33.0}, {"evidence", {"x"}}}},
                        {"l1_tlb", nullptr}}}};
  nlohmann::json u = t;
  u["caches"]["l1"]["ways"] = {4, 4, 4, 4};
  u["caches"]["l1"]["replacement"] = "fifo";
  u["caches"]["l1"]["hit_latency_cycles"] = 45.0;  // +12 cycles: beyond max(10 cycles, 5 %)
  u["caches"]["l1"]["evidence"] = {"y"};
  u["caches"]["l1_tlb"] = {{"size_bytes", 65536}};
  BenchRun a = run_of();
  CompareResult r = compare_runs(input(a, t), input(a, u), CompareOptions{});
  EXPECT_EQ(find(r, "caches.l1.size_bytes", "")->verdict, Verdict::same);
  EXPECT_EQ(find(r, "caches.l1.ways", "")->verdict, Verdict::changed);
  EXPECT_EQ(find(r, "caches.l1.replacement", "")->verdict, Verdict::changed);
  EXPECT_EQ(find(r, "caches.l1.hit_latency_cycles", "")->verdict, Verdict::worse);
  EXPECT_EQ(find(r, "caches.l1.evidence", ""), nullptr);  // which benchmarks decided: not compared
  auto* tlb = find(r, "caches.l1_tlb.size_bytes", "");
  ASSERT_NE(tlb, nullptr);
  EXPECT_EQ(tlb->verdict, Verdict::info);  // determined in one run only: no contradiction
  EXPECT_EQ(tlb->note, "only in new");
  EXPECT_EQ(r.structure(), "CHANGED");
  EXPECT_EQ(compare_runs(input(a, t), input(a, t), CompareOptions{}).count(Verdict::changed), 0);
  EXPECT_EQ(compare_runs(input(a, t), input(a, t), CompareOptions{}).structure(), "SAME");
}

TEST(CompareTopology, ClassifiesFields) {
  EXPECT_EQ(topology_class("caches.l2.size_bytes"), FieldClass::structural);
  EXPECT_EQ(topology_class("caches.l1.size_bytes_by_carveout.50"), FieldClass::structural);
  EXPECT_EQ(topology_class("shared_memory.banks"), FieldClass::structural);
  EXPECT_EQ(topology_class("warp_access.global.serves_parallel"), FieldClass::structural);
  EXPECT_EQ(topology_class("l2_bandwidth.partition.partitioned"), FieldClass::structural);
  EXPECT_EQ(topology_class("caches.l1.hit_latency_cycles"), FieldClass::measured);
  EXPECT_EQ(topology_class("caches.l2.prefetch.runs[0].miss_rate_after"), FieldClass::measured);
  EXPECT_EQ(topology_class("l2_bandwidth.peak_bytes_per_second"), FieldClass::measured);
  EXPECT_EQ(topology_class("l2_bandwidth.peak_benchmark", true), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("l2_bandwidth.curve[3].bytes_per_second"), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("l2_bandwidth.steps[0].ratio"), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("global_memory.throughput.write.configuration.ctas"), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("caches.l1.provenance.size_bytes.confidence"), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("refinement_pending.pchase"), FieldClass::bookkeeping);
}

// Disjoint brackets of a value stated at low confidence (the L2 TLB's total reach on the H100:
// 0.4, 61.7 vs 68.7 GB between two runs, each bracket 0.07 GB wide) are no structural change.
TEST(CompareTopology, DisjointBracketsAtLowConfidenceAreNoChange) {
  auto topo = [](std::uint64_t lo, double conf) {
    nlohmann::json c = {{"size_bytes", lo},
                        {"size_bracket_bytes", {lo, lo + 67108864}},
                        {"provenance", {{"size_bytes", {{"confidence", conf}}}}}};
    return nlohmann::json{{"schema", "memhier-topology/1"}, {"caches", {{"l2_tlb", c}}}};
  };
  BenchRun a = run_of();
  const CompareResult unsure = compare_runs(input(a, topo(61740154880ull, 0.4)), input(a, topo(68719476736ull, 0.4)), CompareOptions{});
  EXPECT_NE(find(unsure, "caches.l2_tlb.size_bytes", "")->verdict, Verdict::changed);
  EXPECT_EQ(unsure.count(Verdict::changed), 0);
  const CompareResult sure = compare_runs(input(a, topo(61740154880ull, 0.9)), input(a, topo(68719476736ull, 0.9)), CompareOptions{});
  EXPECT_EQ(find(sure, "caches.l2_tlb.size_bytes", "")->verdict, Verdict::changed);
}

TEST(CompareTopology, StatedUncertaintyDecidesStructure) {
  auto topo = [](std::uint64_t lo, std::uint64_t hi, double ways_conf) {
    nlohmann::json c = {{"size_bytes", lo},
                        {"size_bracket_bytes", {lo, hi}},
                        {"ways", {16}},
                        {"provenance", {{"ways", {{"confidence", ways_conf}}}}}};
    return nlohmann::json{{"schema", "memhier-topology/1"},
                          {"caches", {{"l2", c}}},
                          {"refinement_pending", {{"pchase", lo % 7}}},
                          {"l2_bandwidth", {{"peak_benchmark", "x" + std::to_string(lo)}}}};
  };
  BenchRun a = run_of();
  // Overlapping brackets: SAME although the values differ; bookkeeping differences are INFO.
  CompareResult same = compare_runs(input(a, topo(19660672, 23592960, 0.9)), input(a, topo(21626880, 21627008, 0.9)),
                                    CompareOptions{});
  EXPECT_EQ(find(same, "caches.l2.size_bytes", "")->verdict, Verdict::same);
  EXPECT_EQ(find(same, "caches.l2.size_bytes", "")->test, "range");
  EXPECT_EQ(find(same, "caches.l2.size_bracket_bytes", "")->verdict, Verdict::same);
  EXPECT_EQ(find(same, "l2_bandwidth.peak_benchmark", "")->verdict, Verdict::info);
  EXPECT_EQ(same.structure(), "SAME");
  EXPECT_EQ(same.count(Verdict::changed), 0);
  // Disjoint brackets: CHANGED.
  CompareResult moved = compare_runs(input(a, topo(19660672, 19660800, 0.9)), input(a, topo(21626880, 21627008, 0.9)),
                                     CompareOptions{});
  EXPECT_EQ(find(moved, "caches.l2.size_bytes", "")->verdict, Verdict::changed);
  EXPECT_EQ(moved.structure(), "CHANGED");
  // Disjoint brackets closer than the size tolerance (5 % by default; the H100's ~21 KiB L1 edge
  // at carveout 100 moved by up to 2.4 % between back-to-back runs): SAME; with no tolerance:
  // CHANGED; 10 % apart: CHANGED.
  CompareResult near = compare_runs(input(a, topo(21088, 21504, 0.9)), input(a, topo(20992, 21024, 0.9)),
                                    CompareOptions{});
  EXPECT_EQ(find(near, "caches.l2.size_bytes", "")->verdict, Verdict::same);
  CompareOptions strict;
  strict.size_tolerance = 0;
  EXPECT_EQ(find(compare_runs(input(a, topo(21088, 21504, 0.9)), input(a, topo(20992, 21024, 0.9)), strict),
                 "caches.l2.size_bytes", "")->verdict,
            Verdict::changed);
  EXPECT_EQ(find(compare_runs(input(a, topo(21088, 21100, 0.9)), input(a, topo(23300, 23310, 0.9)), CompareOptions{}),
                 "caches.l2.size_bytes", "")->verdict,
            Verdict::changed);
  // A structural value stated at low confidence on one side: INFO, not CHANGED.
  nlohmann::json w = topo(100, 200, 0.3);
  w["caches"]["l2"]["ways"] = {8};
  CompareResult low = compare_runs(input(a, topo(100, 200, 0.9)), input(a, w), CompareOptions{});
  EXPECT_EQ(find(low, "caches.l2.ways", "")->verdict, Verdict::info);
  EXPECT_EQ(low.structure(), "SAME");
  nlohmann::json j = render_json(low);
  EXPECT_EQ(j["structure"], "SAME");
  EXPECT_TRUE(j["summary"].contains("info"));
}

TEST(CompareDevice, RefusesAnotherGpuAndNamesTheKeys) {
  BenchRun a = run_of(), b = run_of("NVIDIA A100-SXM4-40GB");
  b.context["driver_version"] = "575.57.08";
  add(a, kChase, {{"latency_cycles", 100}});
  add(b, kChase, {{"latency_cycles", 300}});
  CompareResult r = compare_runs(input(a), input(b), CompareOptions{});
  EXPECT_FALSE(r.same_device);
  EXPECT_TRUE(r.rows.empty());
  ASSERT_EQ(r.identity_keys_differing.size(), 1u);
  EXPECT_EQ(r.identity_keys_differing[0], "gpu_name");
  ASSERT_FALSE(r.context_diffs.empty());
  EXPECT_EQ(r.context_diffs[0].key, "driver_version");
  EXPECT_NE(render_console(r, false).find("--ignore-device"), std::string::npos);

  CompareOptions o;
  o.ignore_device = true;
  CompareResult forced = compare_runs(input(a), input(b), o);
  EXPECT_TRUE(forced.worse());
  nlohmann::json j = render_json(forced);
  EXPECT_EQ(j["format"], "memhier-compare/1");
  EXPECT_EQ(j["summary"]["worse"], 1);
}
