// Hit/miss split of a latency distribution. With `baseline` (the path's first-level hit latency,
// measured on a footprint far below any cache) a miss is an access slower than kLevelRatio x the
// baseline: neighbouring levels of a memory hierarchy differ by more than that factor (H100: L1 34,
// L2 281, DRAM ~690 cycles; constant L1 28, L1.5 ~70), while one level's spread stays well inside
// it. A two-class split of the distribution alone (Otsu) is not used there: with three levels in
// one histogram (L1 hits, L2 hits, DRAM) it would call the L2 hits "hits" in one run and "misses"
// in the next. Without a baseline (0), Otsu's split is used, accepted only when the classes are
// >= 4 Fisher units and two bins apart and the slower is >= kLevelRatio x the faster.
// Used by memhier-bench for the `misses`/`hit_latency_cycles` counters; the analyzer clusters
// levels across whole sweeps with its own methods.
#pragma once
#include <cstdint>
#include <vector>

#include "common/trace.hpp"

namespace memhier {

struct HitMissSplit {
  bool separated = false;     // false: one class only (all accesses count as hits)
  double threshold = 0;       // latencies >= threshold are misses
  double hit_mean = 0, miss_mean = 0;
  std::uint64_t hits = 0, misses = 0;
};

constexpr double kLevelRatio = 1.5;

HitMissSplit split_hit_miss(const Histogram& h, double baseline = 0);
Histogram histogram_of(const std::vector<std::uint32_t>& latencies, std::uint32_t bin_width = 1);

}  // namespace memhier
