// Every benchmark of every family runs inside a guard (docs/methodology.md, section reliability):
//   - refused (SkipWithError) when the device became unusable earlier in the run (a sticky CUDA
//     error), or when its predicted run time exceeds the per-benchmark budget;
//   - any exception of its body (a CUDA error, out of memory, a refused configuration) becomes
//     SkipWithError with the reason, after which the backend is asked whether the device is still
//     usable; the run goes on either way;
//   - a body that ran longer than the budget is marked failed (watchdog), never reported as a result.
// Families register through register_guarded (tests/cli/reliability checks that none calls
// benchmark::RegisterBenchmark itself).
#pragma once
#include <benchmark/benchmark.h>

#include <functional>
#include <string>
#include <vector>

namespace memhier {

using BenchBody = std::function<void(benchmark::State&)>;
// Predicted device (or simulation) seconds of one run of the body; 0: unknown.
using BenchPredict = std::function<double()>;

// "0.00463", "12", "1e+06": seconds for messages.
std::string seconds_text(double s);

// The per-benchmark time budget (seconds, --memhier_budget_s).
void set_benchmark_budget_seconds(double s);
double benchmark_budget_seconds();

// MEMHIER_MIN_WORK=1 (sanitizer runs): families whose kernels repeat their work to reach a timing
// resolution run the fewest repetitions instead; every access pattern still occurs, the figures
// mean nothing (compute-sanitizer's racecheck instruments every shared-memory access).
bool min_work();

// What went wrong during this run (recorded in the JSON context after the run).
struct FaultLog {
  int failed = 0;            // benchmarks marked failed (any reason)
  int not_run = 0;           // of them: refused because the device had become unusable
  int over_budget = 0;       // of them: refused or stopped by the budget
  std::string device_fault;  // "<benchmark>: <reason>" of the sticky error, "" while the device is usable
};
const FaultLog& fault_log();
void reset_fault_log();  // tests

benchmark::internal::Benchmark* register_guarded(const std::string& name, BenchBody body,
                                                 BenchPredict predict = {});
// Device buffers a family keeps between its benchmarks (stream buffers, working sets): each is
// registered with how to free it (it is made again on its next use). The whole-memory chases
// (tlb, latency_spectrum) free them all first, so that their group can map nearly all free memory
// (before: the latency spectrum was refused on the H100, 8.6 GB held by earlier families).
void keep_device_cache(std::function<void()> release);
void release_device_caches();

// Names registered through register_guarded so far (in order), for --memhier_progress=auto.
const std::vector<std::string>& registered_names();
// Forgets every registration (Google Benchmark's and the names above): --memhier_serve registers
// each refinement round, and the deferred families after it, anew.
void clear_registrations();
// The guard itself (what a registered benchmark runs), for tests.
void run_guarded(benchmark::State& state, const std::string& name, const BenchBody& body,
                 const BenchPredict& predict);

}  // namespace memhier
