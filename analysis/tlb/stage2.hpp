// Stage 2 of the TLB inference (docs/methodology.md, inference "TLBs"): the misses per pass at
// footprints reach + j * entry reach, read as the shift over the level below divided by the miss
// penalty. The penalty is a mean over strides; the stride stage 2 runs at has its own height, which
// scales every count alike. Calibrated here on the steps where every slot misses, and capped at the
// slots, so that rounding a count does not flip the ways from run to run.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/tlb/levels.hpp"

namespace memhier::analysis {

// The relative scatter of the level's full height between the strides where it is saturated and
// agrees with the penalty (3 standard deviations over the penalty), at least 5 % (a penalty seen at
// one stride).
double tlb_height_scatter(const TlbLevel& L);

// The median fraction count / slots over the steps from the first whose count reaches its slots
// (within `tol` and 3 standard errors) on, when it lies within `tol` of 1; 1 otherwise.
// counts[j], se[j]: misses per pass and their standard errors at step j + 1 (entries + j + 1 slots).
double tlb_complete_fraction(const std::vector<double>& counts, const std::vector<double>& se,
                             std::uint64_t entries, double tol);

// `known` (the leading resolved counts) divided by the complete fraction of all measured `counts`,
// each capped at its step's slots (no step misses more often than it has slots).
std::vector<double> calibrate_tlb_counts(std::vector<double> known, const std::vector<double>& counts,
                                         const std::vector<double>& se, std::uint64_t entries, double tol);

// The first of the leading `resolved` steps (1-based) where two runs, each known to `max_se`
// misses on its own and calibrated as the pooled counts are, round to different miss counts: the
// split of the entries into sets there is not replicated. 0 where they agree (or a step has fewer
// than two such runs: a run too short to decide alone contradicts nothing). run_counts[j]: the
// misses per pass and their standard error from each run of step j + 1 alone; `calibrated` gets
// that step's decisive runs.
std::size_t tlb_unreplicated_step(const std::vector<std::vector<std::pair<double, double>>>& run_counts,
                                  const std::vector<double>& counts, const std::vector<double>& se,
                                  std::uint64_t entries, double tol, std::size_t resolved, double max_se,
                                  std::vector<double>* calibrated = nullptr);

}  // namespace memhier::analysis
