// One cache being inferred from the chases of its load path: the state the question modules
// (capacity, line_sector, eviction_sets, replacement) read and extend, in that order.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/cache/latency_levels.hpp"

namespace memhier::analysis {

struct CacheJob {
  InferContext& ctx;
  const std::string& path;
  const PathData& pd;
  const CacheLevel& cl;
  nlohmann::json& cache;  // caches.<name> of the topology
  int primary = -1;       // the carveout of size_bytes (-1: the path has none)
  // Spurious misses per access the structure steps allow for (an upper bound from the primary sweep
  // below where its misses begin: cache_infer.cpp noise_of).
  double noise_per_access = 0;
  // The candidates the access sequences found consistent (every class member, then the randomized
  // ones), set where they simulated the candidates (empty: none consistent); the stream judgement
  // joins them (analysis/cache/streams).
  std::optional<std::vector<std::string>> seq_consistent = std::nullopt;

  const Dataset& data() const { return ctx.data; }
  // A chase counts for the structure steps when it ran at the primary carveout.
  bool at_primary(const Chase& c) const { return c.carveout == primary || primary < 0; }
  // The warm count run of exactly this stride and footprint at the primary carveout, with a trace.
  const Chase* count_run(std::uint64_t stride, std::uint64_t bytes) const;
  // Accesses of a run slower than the cache's level, as a fraction and per pass over its chain.
  double miss_fraction(const Chase& c) const;
  double misses_per_pass(const Chase& c) const;
};

}  // namespace memhier::analysis
