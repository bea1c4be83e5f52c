// Runs registered benchmarks through Google Benchmark, as memhier-bench does, and records what each
// run reported (failed or not, the message). Shared by the guard tests (CPU and GPU).
#pragma once
#include <benchmark/benchmark.h>

#include <map>
#include <string>
#include <vector>

namespace memhier::test {

// Google Benchmark 1.7 says error_occurred/error_message, 1.8 skipped/skip_message.
template <class R>
auto run_failed(const R& r, int) -> decltype(r.skipped, bool()) {
  return static_cast<bool>(r.skipped);
}
template <class R>
auto run_failed(const R& r, long) -> decltype(r.error_occurred, bool()) {
  return r.error_occurred;
}
template <class R>
auto run_message(const R& r, int) -> decltype(r.skip_message, std::string()) {
  return r.skip_message;
}
template <class R>
auto run_message(const R& r, long) -> decltype(r.error_message, std::string()) {
  return r.error_message;
}

struct Seen {
  bool failed = false;
  std::string message;
};

class Recorder : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const auto& r : runs) seen[r.benchmark_name()] = {run_failed(r, 0), run_message(r, 0)};
  }
  std::map<std::string, Seen> seen;
};

// Runs the benchmarks whose names start with prefix + "/"; keys are the names Google Benchmark
// reports (with /iterations:1/manual_time where registered so).
inline std::map<std::string, Seen> run_benchmarks(const std::string& prefix) {
  Recorder rec;
  benchmark::RunSpecifiedBenchmarks(&rec, "^" + prefix + "/");
  return rec.seen;
}

}  // namespace memhier::test
