// A TLB level's miss penalty (docs/methodology.md, inference "TLBs"): the full height of its rise
// where every access misses, with its 95 % interval, once the level saturates (two strides at the
// same height). A level whose heights still grow with the stride at the largest stride that shows
// it has only a lower bound: the penalty is null with the reason, the bound beside it
// (miss_penalty_lower_bound_cycles). A rise with no plateau above it (its curve's last footprint
// alone, or the last two still apart) may stand on a footprint at the reach itself, which misses
// only in part: the H100's 64 GiB footprints gave 4.8-24 cycles at 32 MiB in three back-to-back runs.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "analysis/core/field.hpp"
#include "analysis/tlb/levels.hpp"

namespace memhier::analysis {

// The rise has no plateau above it in its curve.
bool tlb_rise_at_curve_end(const std::vector<TlbSeries>& series, const TlbSteps& st, const TlbRise& r);
// Every own rise of the level is such a rise.
bool tlb_rests_on_last_footprints(const std::vector<TlbSeries>& series, const TlbSteps& st, const TlbLevel& L);
// miss_penalty_cycles (+ ci95) of a saturated level; null, the reason and the lower bound otherwise.
void write_tlb_penalty(nlohmann::json& c, const TlbLevel& L, const std::vector<TlbSeries>& series, const TlbSteps& st,
                       const Evidence& ev);

}  // namespace memhier::analysis
