// The L2's replacement policy from the l2_evsets family's policy sequences (issue 20 item 3;
// docs/methodology.md, "l2_evsets", the policy): per class target the benchmark read sequences over
// the lines of one set (the ways + 1 lines its leave-one-out check found) from an empty set (the
// lines thrashed, then discarded from the L2), each load timed, each sequence twice. A load above
// the sequences' own threshold missed: above the answers of the set itself (as fast as a repeated
// access), so that slower answers of the L2 (a copy elsewhere of a line the set evicted) and DRAM
// are misses of the set (policy_threshold in the .cpp). Every sequence is then
// simulated under every candidate policy of common/policy.hpp with the decided ways, by the same
// machinery that names the L1's policy (analysis/cache/sequences/policy.hpp): one consistent class
// is named, several are listed, none gives "none of the known policies" with the hit probability by
// age and the nearest candidates. Not decided (null with the reason) where the ways are not, where
// the first accesses after the discard are not slower than the sure hits (the reset did not empty
// the set: the model's start state does not hold), or where the sequences hold no more lines than
// the ways (nothing is evicted).
// Spurious misses per access (the noise the deterministic candidates are allowed) come from the two
// runs of each sequence: where they differ one of them missed spuriously.
#pragma once
#include <nlohmann/json.hpp>

#include "analysis/core/field.hpp"
#include "analysis/l2/l2_evsets.hpp"

namespace memhier::analysis {

// replacement (and replacement_consistent, replacement_gpgpusim, hit_probability_by_age,
// replacement_nearest as the L1's) and policy_sequences into the l2_sets section `s`.
void decide_l2_policy(const EvsetData& d, int ways, const Evidence& ev, nlohmann::json& s);

}  // namespace memhier::analysis
