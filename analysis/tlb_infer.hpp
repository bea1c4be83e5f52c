// TLB inference from the tlb family (000 §4.4): count-mode chases over the L2-only path with strides
// of 64 KiB..32 MiB. Latency levels: TLB hit, L1 TLB miss, L2 TLB miss. Per stride, the reach (largest
// footprint without misses of a level); the page size is the smallest stride from which the reach in
// strides stays constant (the entries); stage 2 at stride = page, N = C + j*page, gives sets and ways
// from the miss count increments (unequal sets: 000 Fig. 8).
#pragma once
#include <nlohmann/json.hpp>

#include "analysis/cache_infer.hpp"

namespace memhier::analysis {

void infer_tlbs(InferContext& ctx, nlohmann::json& caches);

}  // namespace memhier::analysis
