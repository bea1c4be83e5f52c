// Ways, sets, index function and replacement of one cache from its cache_sequences traces
// (docs/methodology.md, inference "Eviction sets and index" and "Replacement"), where the P-chase
// (000 stage 2) could not decide them: hashed indexes, non-LRU policies, soft edges.
#pragma once
#include <map>
#include <memory>
#include <string>

#include "analysis/cache/capacity.hpp"

namespace memhier::analysis {

// What the traces of one cache show (loaded and analyzed once per cache).
struct SeqFindings;
std::shared_ptr<SeqFindings> analyze_sequences(CacheJob& job);
// What to take from the sequences: sets, ways and index only with a matrix that holds (`exact`);
// also sets = capacity / (ways x line) where the matrix is incomplete (`partial`); only the
// replacement (`replacement`: stage 2 of the P-chase decided the rest). Every use writes the eviction
// set and the replacement. True when the sets were decided.
enum class SeqUse { exact, partial, replacement };
bool infer_from_sequences(CacheJob& job, const Capacity& cap, const std::shared_ptr<SeqFindings>& f, SeqUse use);
// Why the sequences decided no structure, for the reasons of the fields left null ("" when they
// found a minimal eviction set or there were none): "the access sequences found no minimal
// eviction set (<what they showed>; <benchmark>: search stopped: '<its word>')".
std::string sequences_shortfall(const std::shared_ptr<SeqFindings>& f);

}  // namespace memhier::analysis
