// A display reporter for long runs: one line per family with how far the run is and how long it
// has taken so far (stderr), instead of one console line per benchmark. The JSON file reporter
// (--benchmark_out) is unaffected.
#pragma once
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

namespace memhier {

class ProgressReporter : public benchmark::BenchmarkReporter {
 public:
  explicit ProgressReporter(long total) : total_(total), t0_(std::chrono::steady_clock::now()) {}
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  void line(bool final);
  long total_;
  long done_ = 0;
  std::string family_;
  std::chrono::steady_clock::time_point t0_;
};

// No display at all (Google Benchmark prints to the console when given none): the deferred
// families' chunks while serving, whose progress serve() prints per family.
class SilentReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

}  // namespace memhier
