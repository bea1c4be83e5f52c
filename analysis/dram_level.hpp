// The DRAM level of the L2-only path (docs/methodology.md, inference "DRAM latency"): of the latency
// levels beyond the L2 hit, the one that holds most of the accesses of the largest warm footprint
// (every access an L2 miss), with its median latency; slower levels that hold fewer of them (rare
// far accesses: a DRAM page or bank conflict, a far partition, refresh) are reported beside it, not
// instead of it. Whether the clustering splits such a tail off as a level of its own varies between
// runs; the dominant level's median does not depend on it.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "analysis/cache_levels.hpp"

namespace memhier::analysis {

struct DramLevel {
  std::size_t level = 0;        // index into the path's levels (>= 1)
  double median = 0;            // median latency of the footprint's accesses in that level
  double share = 0;             // their share of the footprint's accesses
  const Chase* run = nullptr;   // the footprint (null: the path's level weights decided)
  struct Slow {
    double mean = 0, share = 0;
  };
  std::vector<Slow> slower;     // levels above the dominant one, with their share
};

// nullopt when the path has no level beyond its first (hit) level.
std::optional<DramLevel> dram_level(const Dataset& data, const PathData& pd);

}  // namespace memhier::analysis
