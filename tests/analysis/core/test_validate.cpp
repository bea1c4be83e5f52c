// The analyzer's checks of what it reads (analysis/core/validate.hpp): each impossible value, bad name
// or duplicate is one problem naming its benchmark; --allow-errors leaves them out and lists them;
// an all-null topology counts zero determined values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/core/validate.hpp"

using namespace memhier;
using namespace memhier::analysis;

namespace {
BenchEntry entry(const std::string& name, std::map<std::string, double> counters) {
  BenchEntry e;
  e.name = e.run_name = name;
  e.params = *BenchName::parse(name);
  e.run_type = "iteration";
  e.iterations = 1;
  e.counters = std::move(counters);
  return e;
}
const std::string kGood = "pchase/path:global_ca/mode:count/bytes:8192/stride:32/iters:256/warm:1/carveout:0";
BenchRun run_of(std::vector<BenchEntry> es) {
  BenchRun r;
  r.path = "bench.json";
  r.entries = std::move(es);
  return r;
}
std::string problem_of(const BenchEntry& e) {
  auto p = check_bench_run(run_of({entry(kGood, {{"latency_cycles", 30}}), e}));
  return p.empty() ? "" : p.front().text;
}
}  // namespace

TEST(Validate, AGoodEntryHasNoProblem) {
  EXPECT_TRUE(check_bench_run(run_of({entry(kGood, {{"latency_cycles", 30}, {"miss_rate", 0.5}, {"misses", 1}, {"accesses", 2}})}))
                  .empty());
}

TEST(Validate, ImpossibleCountersAreNamedWithTheirBenchmark) {
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    std::map<std::string, double> counters;
    std::string says;
  } cases[] = {
      {{{"latency_cycles", -3}}, "counter latency_cycles = -3 is negative"},
      {{{"latency_cycles", 1e308}}, "beyond any measured quantity"},
      {{{"latency_cycles", 2e9}}, "beyond any chase's time budget"},
      {{{"latency_cycles", inf}}, "not finite"},
      {{{"latency_cycles", std::nan("")}}, "not finite"},
      {{{"miss_rate", 1.5}}, "miss_rate = 1.5 is above 1"},
      {{{"miss_rate", -0.1}}, "negative"},
      {{{"misses", 5}, {"accesses", 4}}, "more misses"},
      {{{"bytes_per_second", -1}}, "negative"},
  };
  for (const auto& c : cases) {
    const std::string p = problem_of(entry("pchase/path:texture/mode:count/bytes:4096/stride:32", c.counters));
    EXPECT_NE(p.find("bench.json: benchmark 'pchase/path:texture/mode:count/bytes:4096/stride:32': "), std::string::npos) << p;
    EXPECT_NE(p.find(c.says), std::string::npos) << p;
  }
}

TEST(Validate, NamesWhoseParametersDoNotParse) {
  struct Case {
    std::string name, says;
  } cases[] = {
      {"pchase/path:global_ca/bytes:8192/stride:-32", "parameter stride: '-32' is negative"},
      {"pchase/path:global_ca/bytes:abc1/stride:32", "parameter bytes: 'abc1' is not a non-negative integer"},
      {"pchase/path:global_ca/bytes:12x/stride:32", "parameter bytes: '12x' is not a number"},
      {"pchase/path:global_ca/bytes/stride:32", "parameter 'bytes' has no value"},
      {"pchase/path:global_ca/stride:32", "needs a positive integer bytes"},
      {"pchase/bytes:4096/stride:32", "needs a path"},
      {"tlb/bytes:1e999/stride:4096", "not a number"},
      {"gmem_throughput/kind:read/width:-16", "is negative"},
      // counts and sizes of the other families: an integer or an error, never skipped or misread
      {"l1_throughput/bytes:x/cta_size:256/ctas:8/ilp:4", "parameter bytes: 'x' is not a non-negative integer"},
      {"gmem_throughput/kind:read/width:16/ctas:x", "parameter ctas: 'x' is not a non-negative integer"},
      {"cache_sharing/victim:l1/bytes:1e3", "parameter bytes: '1e3' is not a non-negative integer"},
      {"l2_throughput/bytes:1048576/ilp:2.5", "parameter ilp: '2.5' is not a non-negative integer"},
  };
  for (const auto& c : cases) {
    const std::string p = problem_of(entry(c.name, {{"latency_cycles", 30}}));
    EXPECT_NE(p.find(c.says), std::string::npos) << c.name << " -> " << p;
  }
}

TEST(Validate, TextParametersAndKnownFamiliesPass) {
  EXPECT_EQ(problem_of(entry("gmem_throughput/kind:read/layout:oneshot/access:cs/ctas:16", {{"bytes_per_second", 1e12}})), "");
  EXPECT_EQ(problem_of(entry("smem_bank_conflict/width:4/stride:0", {{"latency_cycles", 30}})), "");
}

TEST(Validate, FamiliesTheAnalyzerDoesNotReadAreCountedWarnings) {
  auto run = run_of({entry("future_family/bytes:4096", {{"latency_cycles", 30}}),
                     entry("future_family/bytes:8192", {{"latency_cycles", 30}}), entry(kGood, {{"latency_cycles", 30}})});
  const auto w = unknown_family_warnings({run});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], "2 entries of family 'future_family', which this analyzer does not read: skipped");
  EXPECT_TRUE(unknown_family_warnings({run_of({entry(kGood, {{"latency_cycles", 30}})})}).empty());
}

TEST(Validate, DuplicatesInOneFileButNotRepetitions) {
  auto a = entry(kGood, {{"latency_cycles", 30}});
  auto p = check_bench_run(run_of({a, a}));
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].entry, 1u);
  EXPECT_NE(p[0].text.find("appears twice"), std::string::npos);
  auto b = a;
  b.repetition_index = 1;
  EXPECT_TRUE(check_bench_run(run_of({a, b})).empty());
}

TEST(Validate, ScreenRefusesOrLeavesOutAndAlwaysDropsThrottledSamples) {
  std::vector<BenchRun> runs = {run_of({entry(kGood, {{"latency_cycles", -1}}),
                                        entry("tlb/bytes:4096/stride:4096", {{"latency_cycles", 300}, {"clock_throttled", 1}}),
                                        entry("tlb/bytes:8192/stride:4096", {{"latency_cycles", 300}})})};
  std::vector<std::string> left;
  auto copy = runs;
  try {
    screen_runs(copy, false, &left);
    FAIL() << "no error without --allow-errors";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--allow-errors"), std::string::npos) << e.what();
  }
  screen_runs(runs, true, &left);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_NE(left[0].find("invalid input"), std::string::npos);
  EXPECT_NE(left[1].find("throttled"), std::string::npos);
  EXPECT_TRUE(runs[0].entries[0].error);
  EXPECT_TRUE(runs[0].entries[1].error);
  EXPECT_FALSE(runs[0].entries[2].error);
  std::vector<BenchRun> empty = {run_of({})};
  EXPECT_THROW(screen_runs(empty, true, &left), std::runtime_error);
}

TEST(Validate, CountsDeterminedValuesOutsideTheBookkeeping) {
  nlohmann::json t = {{"schema", "memhier-topology/1"},
                      {"device", {{"gpu_name", "x"}}},
                      {"caches", {{"l1", {{"size_bytes", nullptr}, {"per_sm", true}, {"confidence", 0.0},
                                           {"provenance", {{"size_bytes", {{"reason", "no data"}}}}}}}}},
                      {"warp_access", {{"reason", "no entries"}, {"value", nullptr}}},
                      {"outstanding_requests_reason", "not evaluated"},
                      {"measurement", {{"skipped_benchmarks", {"a"}}}}};
  EXPECT_EQ(count_determined_values(t), 0u);
  t["caches"]["l1"]["size_bytes"] = 16384;
  EXPECT_EQ(count_determined_values(t), 1u);
}

#include "analysis/core/requests.hpp"

TEST(Validate, RequestsStayWithinTheSharedMemoryOfACudaBlock) {
  Requests r;
  r.set_limits({{"device_backend", "cuda"}, {"smem_per_block_optin_bytes", "49152"}, {"chase_limit_bytes_shared", "49152"}});
  ChaseWish fine;
  fine.path = "global_ca";
  fine.mode = "fine";
  fine.bytes = 1 << 20;
  fine.stride = 128;
  fine.max_records = 6144;  // 48 KiB of records
  EXPECT_TRUE(r.fits(fine));
  fine.max_records = 6145;
  EXPECT_FALSE(r.fits(fine));
  ChaseWish shared = fine;
  shared.path = "shared";
  shared.mode = "count";
  shared.bytes = 49152 - 4096;
  EXPECT_TRUE(r.fits(shared));
  shared.bytes += 4;
  EXPECT_FALSE(r.fits(shared));
  Requests sim;  // the simulator keeps records elsewhere
  sim.set_limits({{"device_backend", "sim:x"}, {"smem_per_block_optin_bytes", "49152"}});
  EXPECT_TRUE(sim.fits(fine));
}

// The analysis reads run_name; a name that says something else (an edited file) is an error naming
// the entry, an aggregate's name is run_name + "_" + its aggregate, and a file without run_name
// (older Google Benchmark) reads name alone.
TEST(Validate, NameAndRunNameMustAgree) {
  BenchEntry e = entry(kGood, {{"latency_cycles", 30}});
  e.name = "pchase/path:global_ca/mode:count/bytes:8192/stride:-32/iters:256/warm:1/carveout:0";
  const std::string p = problem_of(e);
  EXPECT_NE(p.find("benchmark '" + e.name + "': its name and run_name disagree (run_name '" + kGood), std::string::npos) << p;
  BenchEntry agg = entry(kGood, {{"latency_cycles", 30}});
  agg.run_type = "aggregate";
  agg.aggregate_name = "median";
  agg.name = kGood + "_median";
  EXPECT_EQ(problem_of(agg), "");
  agg.name = kGood + "_mean";
  EXPECT_NE(problem_of(agg).find("with aggregate 'median'"), std::string::npos) << problem_of(agg);
}
