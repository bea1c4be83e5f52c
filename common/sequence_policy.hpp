// What a replacement policy (common/policy.hpp) predicts for an access sequence
// (common/sequence.hpp) on one cache set: the per-slot record a miss-count sequence would give.
// Every distinct offset is taken for a distinct line of the set (the cache_sequences family's
// policy sequences are built so: trace tag lines=distinct). The search uses it to choose its
// sequences; the analyzer to test candidate policies against recorded outcomes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/sequence.hpp"

namespace memhier {

// Misses per slot under a deterministic `policy` with `ways` ways, the set starting empty.
std::vector<std::uint32_t> predict_misses(const std::string& policy, std::uint32_t ways, const AccessSequence& seq);

// Mean misses per slot over `runs` seeded runs (seed, seed + 1, ...); any policy (random with
// per-way `weights`, default uniform).
std::vector<double> expected_misses(const std::string& policy, std::uint32_t ways, const AccessSequence& seq,
                                    unsigned runs, std::uint64_t seed = 1, const std::vector<double>& weights = {});

}  // namespace memhier
