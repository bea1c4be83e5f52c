// Latency levels of one load path (docs/methodology.md, inference "Levels"): the samples of every
// trace, clustered into levels (stats.hpp cluster_levels), merged where the path's baseline shows
// one level, with means from exact data; the level a cache's hits take and the boundary above it.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/core/dataset.hpp"
#include "analysis/core/field.hpp"
#include "analysis/core/requests.hpp"
#include "analysis/cache/sequences/evidence.hpp"
#include "analysis/core/stats.hpp"

namespace memhier::analysis {

// What every inference step reads (the data) and adds to (the chases it wants measured next).
struct InferContext {
  const Dataset& data;
  Requests& requests;
  // Spurious misses and accesses below where misses begin, pooled over the caches inferred so far
  // (the L1-side paths first, with the largest sweeps): the device's noise, which a path whose own
  // sweep is too short to show it (the constant caches) shares.
  double spurious_misses = 0, spurious_accesses = 0;
  // Every cache's cache_sequences evidence, read at once (load_all_sequence_evidence) when the
  // first cache asks for its own and read_all_sequences is set (build_topology); otherwise (tests)
  // each cache reads its own.
  bool read_all_sequences = false;
  std::optional<std::map<std::string, std::vector<SeqEvidence>>> sequence_evidence = std::nullopt;
  std::set<std::string> sequence_evidence_taken = {};
};

// Latency samples of one trace or histogram.
std::vector<WeightedValue> samples_of(const Trace& t);
// The measurement granularity of a trace: 1 cycle for fine traces, the bin width of histograms.
double resolution_of(const Trace& t);
// Ten weighted quantiles of the samples, clamped to [lo, hi] (the vectors of the change-point test).
std::vector<double> clamped_quantiles(std::vector<WeightedValue> s, double lo, double hi);
// Weight of the samples above `boundary` (the misses); *total (optional) gets the whole weight.
double weight_above(const std::vector<WeightedValue>& s, double boundary, double* total);

// Level means from exact data where there is some: the latencies of fine traces (every access
// recorded as measured) and the mean latency (`latency_cycles`) of count runs whose whole histogram
// lies in one level. Histogram bin centres (bin width 4) bias a mean by up to 2 cycles otherwise.
void refine_level_means(std::vector<Level>& levels, const Dataset& data, const std::vector<const Chase*>& chases);

// The baseline of a path (its smallest warm footprint, far below every cache: common/levels.hpp)
// shows one level only; levels that each hold >= kBaselineShare of its accesses are that level's
// spread (count mode on the H100 alternates 34- and 42-cycle L1 hits), merged into one.
constexpr double kBaselineShare = 0.1;
void merge_baseline_levels(std::vector<Level>& levels, const std::vector<WeightedValue>& baseline);

// Every P-chase of one load path and its latency levels.
struct PathData {
  std::vector<const Chase*> all;
  std::vector<Level> levels;
};
PathData path_data(const Dataset& data, const std::string& path, double* resolution);

// The mean latency beyond a path's first level: the largest warm count run, when (almost) all of
// its accesses lie beyond the level (its `latency_cycles`, exact), else nullopt.
struct BeyondRun {
  const Chase* run = nullptr;
  double mean = 0;
};
std::optional<BeyondRun> beyond_first_level(const Dataset& data, const PathData& pd);

// Mean latency of an L2 hit (the fastest level of the global_cg path), nullopt when not measured.
std::optional<double> l2_hit_latency(const Dataset& data);

// The level of a path that one cache's hits take.
struct CacheLevel {
  std::string name;
  double boundary = 0;   // latencies above are misses
  double hit_mean = 0;   // hit latency
  double miss_mean = 0;  // latency of the next level
  std::string miss_note;
  Evidence miss_evidence;
  double clamp_lo = 0, clamp_hi = 0;
};

}  // namespace memhier::analysis
