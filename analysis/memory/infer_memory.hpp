// Global-memory, shared-memory and measurement sections of the topology: L2 prefetching from the
// cold (warm:0) fine traces of the L2-only path (000 §4.6), the latency spectrum (000 §5.2), DRAM
// latency, shared-memory latency (000 §6.2), clock overhead.
#pragma once
#include <nlohmann/json.hpp>

#include "analysis/cache/infer_caches.hpp"

namespace memhier::analysis {

void infer_prefetch(InferContext& ctx, nlohmann::json& l2);
void infer_global_memory(InferContext& ctx, nlohmann::json& gm);
void infer_shared_memory(InferContext& ctx, nlohmann::json& sm);
void infer_measurement(InferContext& ctx, nlohmann::json& m);

}  // namespace memhier::analysis
