// The replacement policy from the cache_sequences traces (docs/methodology.md, inference
// "Replacement"; nanoBench, Abel & Reineke RTAS 2013): every sequence whose lines all lie in the
// target's set is simulated under each candidate policy of common/policy (one model, two users) with
// the eviction set's ways, from an empty set; a deterministic candidate is consistent when it
// predicts every record exactly (up to misses the measured noise explains), random when every record lies within four standard deviations of
// its expected misses. None consistent: "none of the known policies", with the hit probability per
// age (distinct lines of the set accessed since the line's previous access).
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/cache/sequences/sets.hpp"

namespace memhier::analysis {

struct SeqPolicy {
  std::vector<std::string> consistent;       // candidates consistent with every sequence
  std::size_t candidates = 0, sequences = 0, timed = 0;
  std::map<std::size_t, std::pair<double, double>> age_hits;  // age -> (hits, timed accesses)
  std::string note;
};
// noise: spurious misses per access of the cache's level (the capacity sweep's small footprints).
SeqPolicy analyze_policy(const SeqStructure& s, double noise = 0);
// Excess misses over a deterministic candidate's prediction this improbable under the noise reject it.
constexpr double kNoiseFitAlpha = 0.001;

}  // namespace memhier::analysis
