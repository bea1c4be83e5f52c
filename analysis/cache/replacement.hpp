// Replacement policy (docs/methodology.md, inference "Replacement"; 000 §4.2 step 4, Fig. 11): from
// the stage-2 run N = C + u: periodic misses of every member of the overflowed set -> LRU or FIFO;
// otherwise the victims' slots give per-way replacement probabilities.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/cache/eviction_sets.hpp"

namespace memhier::analysis {

// Replacement from the N = C + g fine trace: per-access line and miss flag.
struct PolicyResult {
  std::string policy;        // "lru_or_fifo", "random", "non-lru", "" (undetermined)
  std::vector<double> way_probabilities;  // sorted descending (way numbering is not observable)
  std::vector<double> way_counts;
  double replacements = 0;
  std::size_t spurious_misses = 0;  // isolated misses set aside as noise (see noise below)
  std::string reason;
};
// noise: spurious misses per access of the cache's level; above 0, a trace that departs from a
// periodic pattern only by extra misses as rare as the noise counts as that pattern.
// ways: the ways of a set where another experiment decided them (0: unknown). The reading assumes
// one overflowed set, whose ways + 1 lines miss; more missing lines (an index that spreads the
// overflow over many sets, as a hashed one does at N = C + b) leave the policy undetermined.
PolicyResult replacement_of(const std::vector<std::uint64_t>& line, const std::vector<bool>& miss,
                            std::uint64_t period, double noise = 0, std::uint64_t ways = 0);
constexpr double kNoiseFitAlphaTrace = 0.001;

// Writes replacement (and the per-way probabilities) from the stage-2 runs.
void write_replacement(CacheJob& job, const Stage2& s2);
// Where the access sequences found a random policy: the per-way probabilities from the N = C + u
// fine run (000 Fig. 11; requested when missing, only when C/u lines fit a trace of several passes).
void per_way_probabilities(CacheJob& job, std::uint64_t C, std::uint64_t u);

}  // namespace memhier::analysis
