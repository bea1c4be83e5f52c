#include "bench/core/guard.hpp"
#include "bench/cli/conditions.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "bench/backends/backend.hpp"
#include "bench/core/registry.hpp"

namespace memhier {
namespace {

double& budget_slot() {
  static double b = 60.0;
  return b;
}
FaultLog& log_slot() {
  static FaultLog l;
  return l;
}

// After a failure: is the device still usable? A sticky error (an illegal address, a kernel
// that trapped) leaves the context unusable; every later CUDA call would fail with it.
void note_failure(benchmark::State& state, const std::string& name, const std::string& why) {
  FaultLog& log = log_slot();
  ++log.failed;
  std::string msg = why;
  std::string fault;
  try {
    if (has_backend()) fault = backend().device_fault();
  } catch (const std::exception& e) {
    fault = e.what();
  }
  if (!fault.empty() && log.device_fault.empty()) {
    log.device_fault = name + ": " + fault;
    msg += " [the device is unusable now (" + fault + "): later benchmarks are not run]";
    std::fprintf(stderr, "memhier-bench: device fault in %s: %s; later benchmarks are not run\n", name.c_str(),
                 fault.c_str());
  }
  if (!state.error_occurred()) state.SkipWithError(msg.c_str());
}

}  // namespace

std::string seconds_text(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, s < 10 || s >= 1e7 ? "%.3g" : "%.0f", s);
  return buf;
}

bool min_work() {
  static const bool on = [] {
    const char* v = std::getenv("MEMHIER_MIN_WORK");
    return v != nullptr && *v != '\0' && std::string(v) != "0";
  }();
  return on;
}

void set_benchmark_budget_seconds(double s) { budget_slot() = s; }
double benchmark_budget_seconds() { return budget_slot(); }
const FaultLog& fault_log() { return log_slot(); }
void reset_fault_log() { log_slot() = FaultLog{}; }

void run_guarded(benchmark::State& state, const std::string& name, const BenchBody& body,
                 const BenchPredict& predict) {
  // MEMHIER_ANNOUNCE=1: a line before each benchmark (stderr, unbuffered), so that what a tool
  // wrapped around the run reports (compute-sanitizer) or a hang can be tied to its benchmark
  static const bool announce = std::getenv("MEMHIER_ANNOUNCE") != nullptr;
  if (announce) std::fprintf(stderr, "memhier-bench: running %s\n", name.c_str());
  conditions_on_benchmark(name);  // a look at the device at each family's start (bench/cli/conditions.hpp)
  FaultLog& log = log_slot();
  if (!log.device_fault.empty()) {
    ++log.failed;
    ++log.not_run;
    state.SkipWithError(("not run: the device has been unusable since " + log.device_fault).c_str());
    return;
  }
  const double budget = budget_slot();
  try {
    const double predicted = predict ? predict() : 0.0;
    if (budget > 0 && predicted > budget) {
      ++log.failed;
      ++log.over_budget;
      state.SkipWithError(("refused: predicted to run " + seconds_text(predicted) +
                           " s, over the per-benchmark budget of " + seconds_text(budget) +
                           " s (--memhier_budget_s)").c_str());
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    body(state);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (state.error_occurred()) {
      ++log.failed;
    } else if (budget > 0 && took > budget) {
      ++log.failed;
      ++log.over_budget;
      state.SkipWithError(("watchdog: ran " + seconds_text(took) + " s, over the per-benchmark budget of " +
                           seconds_text(budget) + " s (--memhier_budget_s); result discarded").c_str());
    }
  } catch (const std::bad_alloc&) {
    note_failure(state, name, "out of host memory");
  } catch (const std::exception& e) {
    note_failure(state, name, e.what());
  } catch (...) {
    note_failure(state, name, "unknown exception");
  }
}

namespace {
std::vector<std::string>& names_slot() {
  static std::vector<std::string> v;
  return v;
}
}  // namespace

const std::vector<std::string>& registered_names() { return names_slot(); }

void clear_registrations() {
  benchmark::ClearRegisteredBenchmarks();
  names_slot().clear();
}

namespace {
std::vector<std::function<void()>>& caches_slot() {
  static std::vector<std::function<void()>> v;
  return v;
}
}  // namespace

void keep_device_cache(std::function<void()> release) { caches_slot().push_back(std::move(release)); }

void release_device_caches() {
  auto v = std::move(caches_slot());
  caches_slot().clear();
  for (auto& f : v) f();
}

namespace {
// What register_guarded returns for a benchmark the plan leaves out (--plan=check): a benchmark
// Google Benchmark never sees, so that the caller's ->Iterations(...)->UseManualTime() still work.
class LeftOut final : public benchmark::internal::Benchmark {
 public:
  LeftOut() : Benchmark("left-out") {}
  void Run(benchmark::State&) override {}
};
}  // namespace

benchmark::internal::Benchmark* register_guarded(const std::string& name, BenchBody body, BenchPredict predict) {
  if (plan() == Plan::check && !in_check_plan(name)) {
    static LeftOut* left_out = new LeftOut;  // one for all, never run; kept to the end of the process
    return left_out;
  }
  names_slot().push_back(name);
  return benchmark::RegisterBenchmark(name.c_str(), [name, body = std::move(body), predict = std::move(predict)](
                                                        benchmark::State& state) {
    run_guarded(state, name, body, predict);
  });
}

}  // namespace memhier
