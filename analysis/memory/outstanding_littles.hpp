// Outstanding misses per SM by Little's law (issue 20 item 6): in flight = rate x time in flight.
// Past the knee a Thread-Latency series is at the SM's saturation: a batch of N lines takes
// R + N / X cycles (X lines per cycle leave the SM, each arrives R cycles after it left), so the
// ramp's straight line gives the rate (1 / slope per line) and the loaded latency (its intercept)
// from one experiment, per source (L2, DRAM). Beside it the whole GPU's saturated rate per SM
// (throughput families) at that latency: the lines each SM must keep in flight for it.
// docs/methodology.md, section requests_sharing_partitions ("Little's law").
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "analysis/memory/outstanding_ramp.hpp"

namespace memhier::analysis {

// One series' figures at its saturation (per 128-byte line).
struct LittleSeries {
  std::string benchmark, source;
  double cycles_per_line = 0;   // the ramp's slope per distinct line
  double lines_per_cycle = 0;   // X
  double loaded_latency = 0;    // R: the ramp's intercept (cycles)
  double unloaded_latency = 0;  // the series' first point (two threads)
  double lines = 0;             // X x R: lines in flight
  double lines_max = 0;         // the largest batch of the series, in lines
  double bytes_moved_per_line = 0;  // sectors of a line the pattern reads x 32 B
  bool deep = false;            // linear ramp, largest batch >= 4 x its own X x R
};

// Per-series figures (series with a positive slope and intercept) from their ramps.
std::vector<LittleSeries> little_series(const std::vector<SeriesRamp>& ramps);

// The section's `littles_law` object: per source ("l2", "dram") the figures or null with the
// reason, the larger source's `outstanding_lines_per_sm` (with provenance), the method text.
nlohmann::json littles_law_section(const std::vector<SeriesRamp>& ramps);

// Adds, per source with a figure, `all_sms`: the whole GPU's saturated bytes per cycle per SM from
// the topology's l2_bandwidth (peak per clock per SM) and global_memory (read peak / SMs / clock),
// and the lines per SM that rate needs in flight at the source's loaded latency.
void add_littles_law_all_sms(nlohmann::json& outstanding, const nlohmann::json& topology);

}  // namespace memhier::analysis
