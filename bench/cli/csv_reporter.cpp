#include "bench/cli/csv_reporter.hpp"

#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

namespace memhier {

bool UnionCsvReporter::ReportContext(const Context& context) {
  if (file_) return true;
  return benchmark::CSVReporter::ReportContext(context);
}

void UnionCsvReporter::ReportRuns(const std::vector<Run>& runs) { runs_.insert(runs_.end(), runs.begin(), runs.end()); }

void UnionCsvReporter::Finalize() {
  if (!runs_.empty()) benchmark::CSVReporter::ReportRuns(runs_);
  runs_.clear();
  benchmark::CSVReporter::Finalize();
}

}  // namespace memhier
