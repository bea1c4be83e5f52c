// Capacity (docs/methodology.md, inference "Capacity"; 003 §3.2-3.3, 000 §4.2 step 1): per load
// path and carveout, the count-mode capacity sweep at its stride, a change point (geometric mapping,
// Opt, KS) and the boundary decided on miss rates against the measured noise; refinement requests
// (doubling, halving, narrowing a bracket) until the bracket is one sweep stride wide.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/cache/job.hpp"
#include "analysis/cache/capacity_curve.hpp"
#include "analysis/cache/capacity_model.hpp"

namespace memhier::analysis {

// Misses are decided by rates, not absolute counts (docs/methodology.md, inference "soft edges"):
// the noise of a path is the miss rate of the longest prefix of its sweep consistent with itself
// (per access, with a per-run floor: real GPUs show an odd slow access per run whatever its
// length; none at all: a noise-free path, where one miss is evidence); a footprint has excess
// misses when its count is improbable under Poisson(noise) at kMissAlpha. Excess misses of
// footprints that clean ones follow are bursts of noise; capacity misses exceed the largest burst.
// C's bracket [lo, hi): hi = the first footprint from which every larger one misses beyond the
// bursts, lo = the largest footprint below it without excess misses. Footprints between them
// (excess misses within the bursts: not distinguishable from noise) make the edge soft: the
// bracket is the size's uncertainty and no narrowing inside it is asked for. On a noisy path hi
// stands only when the next footprint measured above it lies within kConfirmSpan bracket widths
// (a lone excess footprint may be an unrecognised burst): else hi moves up to it, and the
// bracket, unconfirmed, is the onset's uncertainty like a soft edge's (no narrowing asked for).
constexpr double kMissAlpha = 0.01;
// hi of a noisy path's bracket needs the next footprint measured above it within this many widths.
constexpr std::uint64_t kConfirmSpan = 2;
constexpr double kNoiseAlpha = 0.1;  // a footprint this improbable under the noise ends the noise prefix
struct SizeResult {
  enum class State { none, exact, bracket, above, below } state = State::none;
  std::uint64_t lo = 0, hi = 0;  // exact: lo == C; bracket: C in [lo, hi)
  std::uint64_t stride = 0;
  bool soft = false;             // footprints with excess misses within the bursts lie in (lo, hi)
  std::vector<std::uint64_t> soft_sizes;  // those footprints
  std::vector<std::uint64_t> isolated;    // footprints below lo with excess misses, followed by clean ones
  // Excess footprints that would have been hi, each with the next footprint measured above it farther
  // away than the bracket was wide (noisy paths only): hi moved past them.
  std::vector<std::uint64_t> unconfirmed;
  double burst = 0;              // their largest excess (misses above the noise expectation)
  double noise_rate = 0;         // misses per access at the small footprints
  double noise_per_run = 0;      // misses per run there (the floor of a run's expected noise)
  // Misses and accesses of every footprint up to lo (noise and the bursts set aside: none of them
  // capacity misses): the spurious misses the structure steps allow for.
  double spurious_misses = 0, spurious_accesses = 0;
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

// A size search that decided a value (exact or a bracket).
bool size_decided(const SizeResult& r);

// One carveout's capacity sweep: where misses begin (the size search above) and the 50 % point.
struct Capacity {
  SizeResult onset;
  HalfPoint half;
  HalfPoint half_plan;  // from the plan's runs alone (the first input): what later rounds derive from
  // The sweep itself (footprints at the sweep stride, miss fractions, accesses) and how many passes
  // its runs timed after the warm pass: what a model fit reads.
  std::vector<std::uint64_t> sizes;
  std::vector<double> miss, n;
  double timed_passes = 1;
};
// The capacity sweeps of a cache's path, one per carveout (count mode, warm), each with its size
// search; asks for the sizes that decide the onset's bracket (003 §3.2: doubling, then narrowing).
// Sets job.primary (the smallest carveout measured).
std::map<int, Capacity> measure_capacity(CacheJob& job);

// The cache's sets and ways come from another experiment than the P-chase's stage 2 (a GPU's L2
// measured by its eviction sets, l2_evsets, in the data or deferred by the plan): its onset is not
// narrowed to the line and no stage 2 runs for it.
bool structure_measured_elsewhere(const CacheJob& job);
// Writes onset_size_bytes (where misses begin) and size_bytes (the capacity: the 50 % point until
// the structure decides it), their intervals, size_carveout and the per-carveout values.
void write_capacity(CacheJob& job, const std::map<int, Capacity>& sizes);
// Asks for footprints between the two around the 50 % point when fewer than
// kHalfPointMinTransition of the transition were measured (one round: 7 sizes).
void request_half_point(CacheJob& job, int carveout, const Capacity& cap);
// The capacity fitted to the primary sweep with the policy (and the ways, when known) the cache
// showed, replacing the 50 % point when the fit describes the curve; false when it does not or the
// policy or line is not known.
// models: the set models to try (empty: from the cache's replacement and ways values).
bool fit_capacity_to_policy(CacheJob& job, const Capacity& cap, std::vector<SetModel> models = {});
// A curve that read as non-LRU (random, non-lru): the capacity fitted with every policy whose cyclic
// curve rises gradually (random, tree-PLRU, bit-PLRU, NRU, RRIP) at 2-128 ways; size_bytes from the
// best fit, its interval over every policy that fits as well; replacement named only where one
// policy fits uniquely best, else null with replacement_candidates. False when no model describes
// the curve (replacement null then too: the reading that called for the fit is not confirmed).
bool fit_capacity_over_policies(CacheJob& job, const Capacity& cap);
// The capacity from the structure: sets x ways x line, replacing the 50 % point (size_bytes).
void write_structure_capacity(CacheJob& job, std::uint64_t bytes, const std::string& how, const Evidence& ev);

}  // namespace memhier::analysis
