// The DRAM level of the L2-only path (docs/methodology.md, inference "DRAM latency"): of the latency
// levels beyond the L2 hit, those up to the last one that holds >= 10 % of the accesses of the
// largest warm footprint (every access an L2 miss), with the median latency of their accesses;
// slower levels that hold fewer (rare far accesses: a DRAM page or bank conflict, refresh) are
// reported beside it, not instead of it. Whether the clustering splits such a tail off, or the
// main mass into two levels, varies between runs; this median does not depend on it.
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

#include "analysis/cache/latency_levels.hpp"

namespace memhier::analysis {

struct DramLevel {
  std::size_t level = 0;        // index into the path's levels (>= 1): the main mass's highest
  double median = 0;            // median latency of the footprint's accesses in the main mass
  double share = 0;             // their share of the footprint's accesses
  const Chase* run = nullptr;   // the footprint (null: the path's level weights decided)
  struct Slow {
    double mean = 0, share = 0;
  };
  std::vector<Slow> slower;     // rarer levels above the main mass, with their share
};

// nullopt when the path has no level beyond its first (hit) level.
std::optional<DramLevel> dram_level(const Dataset& data, const PathData& pd);

}  // namespace memhier::analysis
