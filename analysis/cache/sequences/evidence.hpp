// What the cache_sequences traces of one cache show (docs/methodology.md, inference "Eviction sets
// and index", "Replacement"), read from the runs and records of every sequence alone (the tags are
// the family's hints and are not used):
//   eviction tests  a timed slot all of whose accesses (two or more) are to one line v with the
//                   same lines in between since v's previous access (the set S): "S evicted v" k of
//                   n times
//   insertions      a sequence that touches one line x untimed among timed lines: a line whose
//                   timed access hit before x came and missed after it shares x's set
//   sequences       the expanded accesses and records of every sequence (for policy simulation)
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/core/dataset.hpp"
#include "common/seqtrace.hpp"

namespace memhier::analysis {

struct EvictionTest {
  std::uint64_t victim = 0;
  std::vector<std::uint64_t> set;  // sorted, without the victim
  std::uint32_t rounds = 0;        // timed accesses of the victim
  std::uint32_t misses = 0;        // how many missed (miss_any: 1 when any)
  bool any_only = false;           // the record says only whether any missed
};
// A sure eviction: two or more misses, or the only timed access missed. A sure non-eviction: none.
bool evicted(const EvictionTest& t);
bool not_evicted(const EvictionTest& t);

struct Insertion {
  std::uint64_t line = 0;                   // x
  std::vector<std::uint64_t> same_set;      // lines evicted by x's insertion (hit before, missed after)
};

// One sequence as it ran: every access (offset, slot or kUntimed) and which slots missed.
struct RanSequence {
  std::vector<std::uint64_t> offset;
  std::vector<std::uint32_t> id;     // index of the offset in `lines`
  std::vector<std::uint64_t> lines;  // the distinct offsets, ascending
  std::vector<std::uint32_t> slot;
  std::vector<bool> slot_missed;
  std::vector<std::uint32_t> records;
  RecordMode mode = RecordMode::latency;
  std::uint32_t threshold = 0;
  bool complete = true;  // every access expanded (false: long repeat blocks cut to a few repetitions)
};

struct SeqEvidence {
  std::string benchmark, cache, path, start_state;
  std::string stopped;               // the search's own word on why it ended early ("no": it did not)
  std::uint64_t stride = 0;          // the benchmark's stride argument (0: the search measured its own)
  std::uint64_t array_bytes = 0;
  std::uint32_t threshold = 0;
  std::vector<EvictionTest> tests;   // identical (victim, set) tests merged
  std::vector<Insertion> insertions;
  std::vector<RanSequence> sequences;
};

// Reads one trace (sequences that could not run are skipped).
SeqEvidence read_evidence(const SeqTrace& t);
// Whether the data holds a cache_sequences benchmark of cache `name` whose search reached a minimal
// eviction set by its own reading (the `minimal` counter; for scheduling requests only: conclusions
// come from the trace).
bool has_sequence_runs(const Dataset& data, const std::string& name);
// The cache_sequences traces of cache `name` (header cache = name) in the data; empty when none.
std::vector<SeqEvidence> load_sequence_evidence(const Dataset& data, const std::string& name);
// The same for every cache at once, by cache name (one parallel pass over all their sequences:
// what build_topology reads before the caches are inferred one after the other).
std::map<std::string, std::vector<SeqEvidence>> load_all_sequence_evidence(const Dataset& data);

}  // namespace memhier::analysis
