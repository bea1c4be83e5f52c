// The capacity from the whole miss-rate curve of a capacity sweep (docs/methodology.md, inference
// "Capacity"): where the miss rate reaches half of its plateau (the 50 % point), with an interval
// from the scatter of the footprints measured around it. On a soft edge (a hashed index, a non-LRU
// policy, noise) the first miss says where some set overflows first, not how much the cache holds.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace memhier::analysis {

// Weighted isotonic (non-decreasing) regression by pool-adjacent-violators.
std::vector<double> isotonic_fit(const std::vector<double>& y, const std::vector<double>& w);

struct HalfPoint {
  enum class State { none, found, above, below } state = State::none;
  double plateau = 0;             // the miss rate the curve saturates at (1 when lines >= stride)
  bool saturated = false;         // the largest footprints agree on the plateau
  std::uint64_t bytes = 0;        // the crossing of plateau/2 (interpolated, rounded down to the stride)
  std::uint64_t lo = 0, hi = 0;   // measured footprints around it: below the level at lo, at or above at hi
  std::uint64_t ilo = 0, ihi = 0; // its interval: [ilo, ihi]
  int transition = 0;             // footprints near the crossing between 10 % and 90 % of the plateau
  double sigma = 0;               // scatter of their miss rates about a local line (>= the binomial error)
  std::string note;
};
// sizes ascending, miss[i] = fraction of accesses beyond the cache's level, n[i] = accesses.
HalfPoint half_point(const std::vector<std::uint64_t>& sizes, const std::vector<double>& miss,
                     const std::vector<double>& n, std::uint64_t stride);
// At least this many transition footprints make a scatter (fewer: the interval is [lo, hi]).
constexpr int kHalfPointMinTransition = 4;

}  // namespace memhier::analysis
