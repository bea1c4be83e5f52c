// CSV output that works with every family. Google Benchmark's CSVReporter (1.7.1 and 1.8.3) takes
// its column list from the first batch of runs and aborts (BM_CHECK) when a later run has a counter
// that batch lacked; memhier's families and even one family's runs set different counters
// (miss_latency_cycles only where there are misses). This reporter keeps every run and writes them
// at the end through Google Benchmark's own CSV code in one batch: the header is the union of all
// counters, a run without a counter has an empty cell (as CSVReporter writes it). The context
// block Google Benchmark writes before the table (machine, caches, load) goes to stderr for the
// display and is left out of a --benchmark_out file, which is CSV only.
#pragma once
#include <benchmark/benchmark.h>

#include <vector>

namespace memhier {

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"  // CSVReporter is marked deprecated
#endif
class UnionCsvReporter : public benchmark::CSVReporter {
 public:
  // file: the --benchmark_out reporter (no context text in the file)
  explicit UnionCsvReporter(bool file) : file_(file) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

 private:
  bool file_;
  std::vector<Run> runs_;
};
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

}  // namespace memhier
