// TLB inference from the tlb family (000 §4.4; docs/methodology.md, inference "TLBs"):
// whole-memory chases of the L2-only path per allocation mode, stride and footprint. The rises of
// each latency curve (tlb_steps) are chained across strides into levels (tlb_levels): per level the
// miss penalty, the reach of one entry (the stride from which every access misses), the total reach
// and entries; the page from the VMM sweep with holes (no entry can cover more than one chunk);
// sets and ways by 000 §4.4 at the entry stride, N = reach + j * entry, from miss counts per pass
// (mean shift / penalty). Requests narrow the reach to one entry and run stage 2, within a budget.
#pragma once
#include <nlohmann/json.hpp>

#include "analysis/cache/infer_caches.hpp"

namespace memhier::analysis {

// Writes caches.l1_tlb and caches.l2_tlb and returns the `address_translation` section (the
// whole map: levels, page, steps with intervals, resolution, coverage).
nlohmann::json infer_tlbs(InferContext& ctx, nlohmann::json& caches);

}  // namespace memhier::analysis
