// The guard every benchmark runs in (bench/core/guard.hpp): exceptions become failed benchmarks with
// their reason, a device fault stops later benchmarks from running, the time budget refuses and
// discards. Benchmarks are registered and run through Google Benchmark itself, as memhier-bench
// does, with a reporter that records what each run reported.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "bench/backends/backend.hpp"
#include "bench/core/guard.hpp"
#include "tests/bench/run_recorder.hpp"

using namespace memhier;

namespace {

// A backend whose device breaks on demand (device_fault() says so once `broken`).
class FaultyBackend final : public Backend {
 public:
  bool broken = false;
  std::string name() const override { return "fake"; }
  DeviceFigures figures() const override { return {}; }
  std::map<std::string, std::string> context() const override { return {}; }
  bool supports(Path) const override { return false; }
  ClockOverhead clock_overhead() override { return {}; }
  ChaseResult run_chase(const ChaseRequest&) override { return {}; }
  std::uint64_t max_array_bytes(Path) const override { return 0; }
  std::string device_fault() override { return broken ? "cudaErrorIllegalAddress (an illegal memory access)" : ""; }
};

FaultyBackend* install_backend() {
  auto b = std::make_unique<FaultyBackend>();
  FaultyBackend* raw = b.get();
  set_backend(std::move(b));
  reset_fault_log();
  return raw;
}

std::map<std::string, test::Seen> run(const std::string& prefix) { return test::run_benchmarks(prefix); }

void ok_body(benchmark::State& st) {
  for (auto _ : st) st.SetIterationTime(1e-6);
}

}  // namespace

TEST(Guard, AnExceptionFailsOneBenchmarkAndTheRunGoesOn) {
  install_backend();
  register_guarded("g1/throws", [](benchmark::State&) { throw std::runtime_error("cudaMalloc failed: out of memory"); })
      ->UseManualTime()->Iterations(1);
  register_guarded("g1/after", ok_body)->UseManualTime()->Iterations(1);
  auto seen = run("g1");
  ASSERT_EQ(seen.size(), 2u);
  const auto& t = seen["g1/throws/iterations:1/manual_time"];
  EXPECT_TRUE(t.failed);
  EXPECT_NE(t.message.find("out of memory"), std::string::npos) << t.message;
  EXPECT_FALSE(seen["g1/after/iterations:1/manual_time"].failed);
  EXPECT_EQ(fault_log().failed, 1);
  EXPECT_EQ(fault_log().device_fault, "");
}

TEST(Guard, AStickyFaultStopsLaterBenchmarksWithTheReason) {
  FaultyBackend* be = install_backend();
  register_guarded("g2/a_fault", [be](benchmark::State&) {
    be->broken = true;
    throw std::runtime_error("kernel launch failed");
  })->UseManualTime()->Iterations(1);
  register_guarded("g2/b_later", ok_body)->UseManualTime()->Iterations(1);
  auto seen = run("g2");
  const auto& f = seen["g2/a_fault/iterations:1/manual_time"];
  const auto& l = seen["g2/b_later/iterations:1/manual_time"];
  EXPECT_TRUE(f.failed);
  EXPECT_NE(f.message.find("unusable"), std::string::npos) << f.message;
  EXPECT_TRUE(l.failed);
  EXPECT_NE(l.message.find("not run: the device has been unusable since g2/a_fault"), std::string::npos) << l.message;
  EXPECT_NE(l.message.find("cudaErrorIllegalAddress"), std::string::npos) << l.message;
  EXPECT_EQ(fault_log().not_run, 1);
  EXPECT_NE(fault_log().device_fault.find("g2/a_fault"), std::string::npos);
}

TEST(Guard, APredictionOverTheBudgetIsRefusedWithoutRunning) {
  install_backend();
  set_benchmark_budget_seconds(1.0);
  bool ran = false;
  register_guarded("g3/slow", [&ran](benchmark::State& st) {
    ran = true;
    ok_body(st);
  }, [] { return 5.0; })->UseManualTime()->Iterations(1);
  register_guarded("g3/fast", ok_body, [] { return 0.5; })->UseManualTime()->Iterations(1);
  auto seen = run("g3");
  EXPECT_FALSE(ran);
  const auto& s = seen["g3/slow/iterations:1/manual_time"];
  EXPECT_TRUE(s.failed);
  EXPECT_NE(s.message.find("predicted to run 5 s, over the per-benchmark budget of 1 s"), std::string::npos) << s.message;
  EXPECT_FALSE(seen["g3/fast/iterations:1/manual_time"].failed);
  EXPECT_EQ(fault_log().over_budget, 1);
  set_benchmark_budget_seconds(60);
}

TEST(Guard, ABodyThatRunsPastTheBudgetIsDiscarded) {
  install_backend();
  set_benchmark_budget_seconds(0.05);
  register_guarded("g4/runaway", [](benchmark::State& st) {
    for (auto _ : st) {
      std::this_thread::sleep_for(std::chrono::milliseconds(120));
      st.SetIterationTime(0.12);
    }
  })->UseManualTime()->Iterations(1);
  auto seen = run("g4");
  const auto& r = seen["g4/runaway/iterations:1/manual_time"];
  EXPECT_TRUE(r.failed);
  EXPECT_NE(r.message.find("watchdog"), std::string::npos) << r.message;
  set_benchmark_budget_seconds(60);
}

TEST(Guard, ABodyThatSkipsItselfCountsAsFailedOnce) {
  install_backend();
  register_guarded("g5/skips", [](benchmark::State& st) {
    for (auto _ : st) {
      st.SkipWithError("array exceeds the path limit");
      break;
    }
  })->UseManualTime()->Iterations(1);
  auto seen = run("g5");
  EXPECT_EQ(seen["g5/skips/iterations:1/manual_time"].message, "array exceeds the path limit");
  EXPECT_EQ(fault_log().failed, 1);
}
