// Hit/miss split of a latency distribution without a fixed latency threshold: Otsu's two-class
// split of the histogram, accepted only when the two classes are well separated (Fisher distance
// >= 4, at least two bins apart, and the slower class at least kLevelRatio times the faster one:
// neighbouring levels of a memory hierarchy differ by such factors, while one level's spread does
// not). When the distribution is one class, `baseline` (the path's hit latency, measured on a
// footprint far below any cache) says whether that class is hits (closer to the baseline) or
// misses. Used by memhier-bench for the `misses`/`hit_latency_cycles` counters; the analyzer
// clusters levels across whole sweeps with its own methods.
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
