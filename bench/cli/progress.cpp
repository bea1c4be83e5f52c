#include "bench/cli/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace memhier {

void ProgressReporter::line(bool final) {
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  if (total_ > 0)
    std::fprintf(stderr, "\r  %-22s %5ld/%ld benchmarks  %6.1f s%s", family_.c_str(), done_, total_, s,
                 final ? "\n" : "");
  else
    std::fprintf(stderr, "\r  %-22s %5ld benchmarks  %6.1f s%s", family_.c_str(), done_, s, final ? "\n" : "");
  std::fflush(stderr);
}

void ProgressReporter::ReportRuns(const std::vector<Run>& runs) {
  static const bool tty = isatty(2);
  for (const Run& r : runs) {
    if (r.run_type == Run::RT_Aggregate) continue;
    std::string name = r.benchmark_name();
    std::string fam = name.substr(0, name.find('/'));
    if (fam != family_) {
      if (!family_.empty()) line(true);
      family_ = fam;
    }
    ++done_;
  }
  // on a terminal the line updates in place; in a log only the per-family lines appear
  if (tty) line(false);
}

void ProgressReporter::Finalize() {
  if (!family_.empty()) line(true);
}

}  // namespace memhier
