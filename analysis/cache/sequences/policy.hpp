// The replacement policy from the cache_sequences traces (docs/methodology.md, inference
// "Replacement"; nanoBench, Abel & Reineke RTAS 2013): every sequence whose lines all lie in the
// target's set is simulated under each candidate policy of common/policy (one model, two users:
// candidate_policies(W, true), every QLRU variant, then random and brrip) with the eviction set's
// ways, from an empty set; a deterministic candidate is consistent when it predicts every record
// exactly (up to misses the measured noise explains), random when every record lies within four
// standard deviations of its expected misses, brrip the same where its seeded runs disagree and,
// where they all agree, with no more departures than outcomes that rare (below 1 in the runs)
// explain. Consistent deterministic candidates are grouped into classes of identical predicted
// records. None consistent: "none of the known policies", with the hit probability per age
// (distinct lines of the set accessed since the line's previous access) and the candidates that
// predict the most records. Always: the share of records LRU and FIFO (the policies GPGPU-Sim can
// express) predict exactly.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/cache/job.hpp"
#include "analysis/cache/sequences/sets.hpp"

namespace memhier::analysis {

struct SeqPolicy {
  // One per class of identical outcomes (its first member in candidate order: the named policies
  // before the QLRU parametrisations), then random / brrip; at most kListedPolicies.
  std::vector<std::string> consistent;
  std::vector<std::vector<std::string>> classes;  // every consistent deterministic candidate, by class
  std::size_t consistent_total = 0;              // consistent candidates, class members included
  std::size_t candidates = 0, sequences = 0, timed = 0, records = 0;  // records: timed record slots
  // Records predicted exactly (|observed - predicted| < 0.5): lru and fifo always; when none is
  // consistent, the deterministic candidates that predict the most (up to kListedPolicies).
  std::vector<std::pair<std::string, std::size_t>> gpgpusim, nearest;
  std::map<std::size_t, std::pair<double, double>> age_hits;  // age -> (hits, timed accesses)
  std::string note;
};
// noise: spurious misses per access of the cache's level (the capacity sweep's small footprints).
SeqPolicy analyze_policy(const SeqStructure& s, double noise = 0);
// Excess misses over a deterministic candidate's prediction this improbable under the noise reject it.
constexpr double kNoiseFitAlpha = 0.001;
constexpr std::size_t kListedPolicies = 8;
// replacement (one name, a class or the shortest list), replacement_consistent, replacement_gpgpusim,
// and where none is consistent hit_probability_by_age and replacement_nearest (docs/formats.md).
void write_seq_replacement(CacheJob& job, const SeqStructure& s, const SeqPolicy& p);
// The same into any topology object `c` (the L2's l2_sets section).
void write_seq_replacement(nlohmann::json& c, const SeqStructure& s, const SeqPolicy& p);

}  // namespace memhier::analysis
