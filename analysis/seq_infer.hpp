// Ways, sets, index function and replacement of one cache from its cache_sequences traces
// (docs/methodology.md, inference "Eviction sets and index" and "Replacement"), where the P-chase
// (000 stage 2) could not decide them: hashed indexes, non-LRU policies, soft edges.
#pragma once
#include <map>
#include <memory>

#include "analysis/capacity.hpp"

namespace memhier::analysis {

// What the traces of one cache show (loaded and analyzed once per cache).
struct SeqFindings;
std::shared_ptr<SeqFindings> analyze_sequences(CacheJob& job);
// pchase_decided: stage 2 of the P-chase decided sets, ways and the index (they are kept; the
// sequences then only refine the replacement). Returns true when the sequences decided the sets.
bool infer_from_sequences(CacheJob& job, const Capacity& cap, const std::shared_ptr<SeqFindings>& f,
                          bool pchase_decided);

}  // namespace memhier::analysis
