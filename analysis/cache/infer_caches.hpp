// Cache structure inference from P-chase data (000 §4.2 two-stage procedure, Fig. 6; 003 §3-4), one
// module per question, run in this order for every cache of a load path:
//   cache_levels   latency classes of one load path, the level a cache's hits take
//   capacity       size C: change point over the capacity sweep, then the boundary on miss rates
//   line_sector    fill granularity g (sector) and the line
//   eviction_sets  sets, ways and the index function (stage 2: N = C + j*u)
//   replacement    the policy (the N = C + u run)
// This header is the orchestration and includes every module's interface.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/cache/latency_levels.hpp"
#include "analysis/cache/capacity.hpp"
#include "analysis/cache/eviction_sets.hpp"
#include "analysis/cache/line_sector.hpp"
#include "analysis/cache/replacement.hpp"

namespace memhier::analysis {

// Infers every cache seen through one load path and writes caches.<name> into `caches`.
// cache_names: the caches of the path by level ("l1"; "constant_l1","constant_l15"; "l2").
void infer_path_caches(InferContext& ctx, const std::string& path, const std::vector<std::string>& cache_names,
                       bool last_level_is_miss, nlohmann::json& caches);

}  // namespace memhier::analysis
