// Cache structure inference from P-chase data (000 §4.2 two-stage procedure, Fig. 6; 003 §3-4):
//   levels     latency classes of one load path (stats.hpp cluster_levels)
//   size C     change point over the capacity sweep (geometric mapping, Opt, KS), then the exact
//              boundary: the largest size without capacity misses next to the smallest with them;
//              a bracket wider than the sweep stride asks for sizes in between (003 §3.2)
//   fill g     distance between consecutive misses of a stride-4 fine trace above C (003 §4.3)
//   stage 2    fine runs N = C + j*g, s = g: lines that miss at step j; a step that adds more than
//              the new line opens a new set whose ways are the added lines minus one (000 §4.2
//              step 3, §4.4 unequal sets); address bits that reproduce the sets, or "hashed"
//   policy     the N = C + g run: periodic misses of every member -> LRU/FIFO; otherwise the
//              victims' slots give per-way replacement probabilities (000 §4.2 step 4, Fig. 11)
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/dataset.hpp"
#include "analysis/field.hpp"
#include "analysis/requests.hpp"
#include "analysis/stats.hpp"

namespace memhier::analysis {

// Latency samples of one trace or histogram.
std::vector<WeightedValue> samples_of(const Trace& t);

// Level means from exact data where there is some: the latencies of fine traces (every access
// recorded as measured) and the mean latency (`latency_cycles`) of count runs whose whole histogram
// lies in one level. Histogram bin centres (bin width 4) bias a mean by up to 2 cycles otherwise.
void refine_level_means(std::vector<Level>& levels, const Dataset& data, const std::vector<const Chase*>& chases);

// Result of the size search for one cache over one capacity series.
// The baseline of a path (its smallest warm footprint, far below every cache: common/levels.hpp)
// shows one level only; levels that each hold >= kBaselineShare of its accesses are that level's
// spread (count mode on the H100 alternates 34- and 42-cycle L1 hits), merged into one.
constexpr double kBaselineShare = 0.1;
void merge_baseline_levels(std::vector<Level>& levels, const std::vector<WeightedValue>& baseline);

// Misses are decided by rates, not absolute counts (docs/methodology.md, inference "soft edges"):
// the noise of a path is the miss rate of the longest prefix of its sweep consistent with itself
// (per access, with a per-run floor: real GPUs show an odd slow access per run whatever its
// length; none at all: a noise-free path, where one miss is evidence); a footprint has excess
// misses when its count is improbable under Poisson(noise) at kMissAlpha. Excess misses of
// footprints that clean ones follow are bursts of noise; capacity misses exceed the largest burst.
// C's bracket [lo, hi): hi = the first footprint from which every larger one misses beyond the
// bursts, lo = the largest footprint below it without excess misses. Footprints between them
// (excess misses within the bursts: not distinguishable from noise) make the edge soft: the
// bracket is the size's uncertainty and no narrowing inside it is asked for.
constexpr double kMissAlpha = 0.01;
constexpr double kNoiseAlpha = 0.1;  // a footprint this improbable under the noise ends the noise prefix
struct SizeResult {
  enum class State { none, exact, bracket, above, below } state = State::none;
  std::uint64_t lo = 0, hi = 0;  // exact: lo == C; bracket: C in [lo, hi)
  std::uint64_t stride = 0;
  bool soft = false;             // footprints with excess misses within the bursts lie in (lo, hi)
  std::vector<std::uint64_t> soft_sizes;  // those footprints
  std::vector<std::uint64_t> isolated;    // footprints below lo with excess misses, followed by clean ones
  double burst = 0;              // their largest excess (misses above the noise expectation)
  double noise_rate = 0;         // misses per access at the small footprints
  double noise_per_run = 0;      // misses per run there (the floor of a run's expected noise)
  ChangePoint cp;
  Evidence evidence;
  std::string reason;
};
// sizes ascending; miss[i] = fraction of accesses slower than the cache's level; vec[i] = the
// per-size vector for the change-point detection; n[i] = accesses; runs[i] = runs pooled at the
// size (empty: one each).
SizeResult find_size(const std::vector<std::uint64_t>& sizes, const std::vector<double>& miss,
                     const std::vector<std::vector<double>>& vec, const std::vector<double>& n,
                     std::uint64_t stride, const std::vector<double>& runs = {});

// Stage 2 from line memberships: missing[j-1] = lines (index*4/g) that missed at N = C + j*g.
struct SetsResult {
  bool complete = false;                 // every line misses at the last step: all sets opened
  std::vector<int> ways;                 // per opened set, in order of opening
  std::vector<std::vector<std::uint64_t>> members;  // lines known to be in each set
  std::vector<std::uint64_t> opening_lines;         // the new line that opened each set
};
SetsResult sets_from_membership(const std::vector<std::vector<std::uint64_t>>& missing,
                                std::uint64_t lines_at_c);
// Stage 2 from miss counts per pass (LRU): misses[j-1] at N = C + j*unit, lines = N/unit.
SetsResult sets_from_counts(const std::vector<double>& misses_per_pass, std::uint64_t lines_at_c);

// Address bits (byte address = line * line_bytes) that select the sets: {lo, hi} inclusive, or
// nullopt ("hashed") when no bit range reproduces the observed sets. ambiguous: several ranges fit.
struct IndexBits {
  bool bits = false;
  int lo = 0, hi = -1;
  bool ambiguous = false;
};
IndexBits index_bits_of(const SetsResult& s, std::uint64_t line_bytes);

// Replacement from the N = C + g fine trace: per-access line and miss flag.
struct PolicyResult {
  std::string policy;        // "lru_or_fifo", "random", "non-lru", "" (undetermined)
  std::vector<double> way_probabilities;  // sorted descending (way numbering is not observable)
  std::vector<double> way_counts;
  double replacements = 0;
  std::string reason;
};
PolicyResult replacement_of(const std::vector<std::uint64_t>& line, const std::vector<bool>& miss,
                            std::uint64_t period);

struct InferContext {
  const Dataset& data;
  Requests& requests;
};

// Mean latency of an L2 hit (the fastest level of the global_cg path), nullopt when not measured.
std::optional<double> l2_hit_latency(const Dataset& data);

// Infers every cache seen through one load path and writes caches.<name> into `caches`.
// cache_names: the caches of the path by level ("l1"; "constant_l1","constant_l15"; "l2").
void infer_path_caches(InferContext& ctx, const std::string& path, const std::vector<std::string>& cache_names,
                       bool last_level_is_miss, nlohmann::json& caches);

}  // namespace memhier::analysis
