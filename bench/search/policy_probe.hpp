// Replacement-policy experiments on one cache set (docs/methodology.md, section cache_sequences,
// step 7; Abel & Reineke RTAS 2013, nanoBench): age experiments (fill the set, insert n fresh
// lines, probe every filled line) and sequences chosen so that the candidate policies of
// common/policy.hpp still consistent predict different hits. Each experiment is one launch of
// `repeats` repetitions (a clearing prefix, then the body) whose timed accesses count their misses.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bench/search/eviction.hpp"

namespace memhier::seqsearch {

struct PolicyLines {
  Lines set;    // a minimal eviction set: W lines of the target's set
  std::uint64_t target = 0;
  Lines fresh;  // further distinct lines of the same set
};

struct PolicyProbe {
  unsigned experiments = 0;
  // Deterministic candidates whose simulation (from an empty set) predicts every experiment's miss
  // counts: the family's own check, for its log; the analyzer decides from the trace.
  std::vector<std::string> consistent;
};

// `start_empty`: a launch begins with the set empty (the simulated device, or an L1 that a launch
// invalidates), so the first repetition needs no clearing prefix.
PolicyProbe probe_policy(Session& s, const PolicyLines& lines, unsigned repeats, std::uint64_t seed, bool start_empty);

}  // namespace memhier::seqsearch
