// Outstanding memory requests (002): Thread-Latency series, the 3-point unbiased variance of 002
// §3.2, step (spike) detection separating serialization steps from the saturation step, and the
// MSHR / PRT classification with entries, merge capacity and the maximum outstanding requests.
// docs/methodology.md, section requests_sharing_partitions.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/core/dataset.hpp"

namespace memhier::analysis {

// 002 §3.2: Var(T) over the point and its two neighbours, divided by 2; 0 at both ends.
std::vector<double> three_point_variance(const std::vector<double>& latency);

struct LatencyStep {
  std::size_t index = 0;     // the step lies between points index and index + 1
  double threads_before = 0, threads_after = 0;
  double rise = 0;           // level after - level before (cycles)
  bool mode_change = false;  // at the switch from one CTA to two pinned CTAs: never the saturation
  double level_before = 0;   // median latency of the points before the step (cycles)
};

struct SpikeAnalysis {
  std::vector<LatencyStep> steps;  // every accepted step, in thread order
  int saturation = -1;             // index into steps; -1: no saturation (censored series)
  double noise_cycles = 0;         // robust deviation of the jumps between neighbouring points
  double noise_variance = 0;       // median of the 3-point variances
  double knee_threads = -1;        // where the latency leaves the few-request level (-1: never)
  double saturation_threads() const { return saturation < 0 ? -1 : steps[saturation].threads_before; }
};

// Steps of one series (threads ascending): a jump between neighbours beyond 8 robust deviations
// of the local jumps, with the 3-point variance there above 25 x its median, and a level change
// that persists over the next 4 points. The saturation step is the first with at least half the
// largest rise, at least half the few-request latency (a wait for a free entry costs a round
// trip) and at least half the queueing the latency already carries before it (the level before
// the step above the few-request latency, less the earlier steps' rises): a table fills before the
// latency ramps, and on a ramp many round trips high a round trip's jump is the queue's scatter,
// not a table; the steps before it, and every smaller step, are serialization steps.
// `mode_change_after`: the last thread count measured with one CTA when larger counts use two
// pinned CTAs (a step right there may be the launch mode's, so it cannot be the saturation step);
// -1 when the series has no such switch.
SpikeAnalysis detect_spikes(const std::vector<double>& threads, const std::vector<double>& latency,
                            double mode_change_after = -1);

// One Thread-Latency series as the classifier sees it.
struct RequestSeries {
  std::string benchmark;
  std::string pattern;    // unique128, unique32, merge<K>
  int loads = 1;          // L
  int merge = 1;          // K: threads per address (merge patterns), 1 otherwise
  double step_threads = 2;
  double t_max = 0;       // largest thread count measured
  double t_star = -1;     // last thread count before the saturation step; -1: censored
  std::string source = "l2";  // l2, or dram (.../source:dram: only the ramps' rate-or-table test reads it)
};

// The fitted design: "mshr", "prt", or "" (not determined, `reason` says why).
struct DesignFit {
  std::string design, reason;
  std::string basis = "saturation";       // or "ramp": no series saturated, the ramps' cost unit decided
  std::string entries_reason;             // why entries_per_sm is null (entries_lo == 0) with a design
  bool merge_is_lower_bound = false;
  double entries_lo = 0, entries_hi = 0;  // entries per SM (interval)
  std::string unit;                       // mshr: "sector" or "line"
  int merge_lo = 0, merge_hi = 0;         // mshr: merge capacities that fit (threads per entry)
  double max_outstanding = 0;             // unique requests (mshr) or thread requests (prt)
  bool max_is_lower_bound = false;
  std::vector<std::string> evidence;
  std::vector<std::string> models_fitting;  // every (model, parameters) that fits, for the report
};

// A design from saturation steps needs two series or more that step, explained by one table (a
// table shows in every series that reaches its entries); one series alone that steps is not
// confirmed: no design, and the largest request count of the series without a step, a lower bound.
DesignFit classify_design(const std::vector<RequestSeries>& series);

// The topology's `outstanding_requests` section from the outstanding_requests entries and traces
// (null with the reason when there are none).
nlohmann::json outstanding_section(const Dataset& data);

}  // namespace memhier::analysis
