// The sequences of the cache_sequences search (docs/methodology.md, section cache_sequences), as
// pure functions of their lines: what each test is, independent of the backend that runs it.
// Lines are byte offsets into the search array; `path` is a sequence path code.
#pragma once
#include <cstdint>
#include <vector>

#include "common/sequence.hpp"

namespace memhier::seqsearch {

using Lines = std::vector<std::uint64_t>;

// Fill granularity: for each k, line fresh[k] untimed, then fresh[k] + ds[k] timed into slot k
// (latency). The smallest d whose access misses is the fill granularity.
AccessSequence granularity_probe(const Lines& fresh, const std::vector<std::uint64_t>& ds, std::uint8_t path);

// Pool check: two passes over n lines `stride` apart from offset 0; the misses of the second pass
// are counted in slot 0.
AccessSequence pool_probe(std::uint64_t n, std::uint64_t stride, std::uint8_t path, std::uint32_t threshold);

// Prime and probe for `target` over the pool of n lines: two passes (the second records pool line i
// into slot i when it misses), then `insertions` times: the target, and `probes` passes over the
// pool starting at line `rotation` (pool line i missing records into slot n + i).
struct PrimeProbe {
  std::uint64_t n = 0, stride = 0, target = 0;
  std::uint32_t rotation = 0, insertions = 1, probes = 1;
};
AccessSequence prime_probe(const PrimeProbe& p, std::uint8_t path, std::uint32_t threshold);

// Eviction tests against one set: for each victim v (slot i for victims[i]): (v, set) `warm` times,
// then (v timed, set) `rounds` times; slot i counts v's misses. The victims' tests follow each
// other in one launch (a victim that is not congruent with the set is unaffected by the state the
// tests before it left in the set's cache set; one that is, thrashes anyway).
AccessSequence eviction_tests(const Lines& victims, const Lines& set, std::uint32_t warm, std::uint32_t rounds,
                              std::uint8_t path, std::uint32_t threshold);
// The same with a set of its own for each victim (sets[i] for victims[i]).
AccessSequence eviction_tests(const Lines& victims, const std::vector<Lines>& sets, std::uint32_t warm,
                              std::uint32_t rounds, std::uint8_t path, std::uint32_t threshold);
// Runs one eviction test needs in a launch (for splitting batches).
std::size_t eviction_test_runs(std::size_t set_size);

// A policy experiment: `first_prefix` then `body`, then `repeats` − 1 times `prefix` then `body`
// (a repeat block). The prefixes are untimed (they bring the set into a defined state); body access
// j is timed when timed[j], into one slot per timed access shared by every repetition
// (miss_count: in how many repetitions it missed).
AccessSequence policy_experiment(const Lines& first_prefix, const Lines& prefix, const Lines& body,
                                 const std::vector<bool>& timed, std::uint32_t repeats, std::uint8_t path,
                                 std::uint32_t threshold);

// A policy experiment whose repetitions differ: `first_prefix` then bodies[0], then for every
// further body `prefix` then that body. A body access with a slot is timed into it (miss_count).
struct BodyAccess {
  std::uint64_t line = 0;
  std::uint32_t slot = kUntimed;
};
AccessSequence policy_rounds(const Lines& first_prefix, const Lines& prefix,
                             const std::vector<std::vector<BodyAccess>>& bodies, std::uint32_t slots,
                             std::uint8_t path, std::uint32_t threshold);

}  // namespace memhier::seqsearch
