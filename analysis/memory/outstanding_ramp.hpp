// The ramp of a Thread-Latency series (002's model assumes a flat latency until a request table
// fills; the H100 ramps from the first warp instead): per series the slope of latency against
// threads, over all series the cost per request unit (128-byte line, 32-byte sector) and per warp
// load instruction that explains the slopes, and the DRAM-against-L2 comparison that tells an
// issue rate (the slope does not follow the latency) from an entry table (it does, by Little's law).
// docs/methodology.md, section requests_sharing_partitions.
#pragma once
#include <string>
#include <vector>

namespace memhier::analysis {

// One series' ramp: latency ~ intercept + slope x threads over the upper three quarters of the
// thread counts (the first warps are the issue serialization of one instruction).
struct SeriesRamp {
  std::string benchmark, pattern, source = "l2";
  int loads = 1;
  double threads_per_line = 1;    // threads reading one 128-byte line per load (unique32: 4, merge<K>: K)
  double threads_per_sector = 1;  // threads reading one 32-byte sector per load (unique32: 1)
  double slope = 0, intercept = 0, r2 = 0;  // cycles per thread
  double first_latency = 0;       // at the smallest thread count (two threads: one round trip)
  double threads_max = 0;         // the largest thread count measured
};

// Fits one series (threads ascending); false when fewer than 8 points.
bool fit_series_ramp(const std::vector<double>& threads, const std::vector<double>& latency, SeriesRamp* r);

// Threads per line and per sector of a pattern (unique128, unique32, merge<K>).
void pattern_units(const std::string& pattern, double* per_line, double* per_sector);

// slope = per_thread + loads x (per_instruction / 32 + per_unit / threads_per_unit), least squares
// over the L2 series, for unit = line, sector, and none (warp instructions alone: a PRT-like cost).
struct UnitModel {
  std::string unit;               // line, sector, instruction
  double per_thread = 0, per_instruction = 0, per_unit = 0;
  double rms_relative = 0;        // rms of (fit - slope) / slope over the series
  double worst_relative = 0;
};
struct RampFit {
  bool ok = false;
  std::string reason;             // why no unit was chosen
  std::vector<UnitModel> models;  // line, sector, instruction
  int chosen = -1;                // index into models
  int series = 0;
};
// Instructions alone are chosen when they fit within 15 % rms and no unit term halves the rms;
// else line or sector when it fits within 15 % and the other unit's rms is >= 2 x larger.
RampFit fit_ramp_units(const std::vector<SeriesRamp>& ramps);

// DRAM against L2 for the same pattern and loads: a table of E entries gives a slope of latency / E
// (slope ratio = latency ratio), an issue rate the same slope (ratio 1).
struct SourceComparison {
  std::string benchmark_dram, benchmark_l2;
  double slope_ratio = 0, latency_ratio = 0;
};
struct SourceVerdict {
  std::string limit;              // "issue_rate", "entry_table", "" (not determined)
  std::string reason;
  std::vector<SourceComparison> pairs;
  double latency_l2 = 0, latency_dram = 0;  // smallest first latency of each source
};
SourceVerdict compare_sources(const std::vector<SeriesRamp>& ramps);

}  // namespace memhier::analysis
