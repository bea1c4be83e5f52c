// Congruence with a minimal eviction set (docs/methodology.md, section cache_sequences, step 6):
// which address bits keep a line in the target's set (single-bit and two-bit flips of the target,
// tested as "the set evicts the flipped line"), which pool lines each flipped line's set holds
// (prime and probe: its column of the index matrix in terms of the pool's bits), and further lines
// of the target's set from other regions (for the policy experiments).
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "bench/search/eviction.hpp"

namespace memhier::seqsearch {

// Per victim: does `set` (a minimal eviction set of `target`) evict it, i.e. is it in the target's
// cache set? A victim that is a line of the set is tested against the set with the target in its
// place. Batched into as few launches as the run limit allows; victims with some misses, fewer
// than eviction_misses, are asked again with three times the rounds.
std::optional<std::vector<bool>> same_set(Session& s, const Lines& victims, const Lines& set, std::uint64_t target,
                                          const Tags& tags);

struct Congruence {
  std::vector<unsigned> bits;                            // bits flipped (log2 stride … top)
  std::vector<unsigned> congruent_bits;                  // t ^ 2^b stays in t's set
  std::vector<std::pair<unsigned, unsigned>> congruent_pairs;  // t ^ 2^a ^ 2^b does (a, b not alone)
  unsigned line_bit = 0;  // the lowest bit >= log2 stride that moves t out of its set (the family's
                          // reading of the line: the index starts right above it)
};

// Flips every bit b of `target` with log2(stride) <= b and target ^ 2^b inside the array, then
// pairs of non-congruent bits from line_bit up. nullopt when the search stopped.
std::optional<Congruence> test_congruence(Session& s, std::uint64_t target, const Lines& set, std::uint64_t stride);

struct Pool {
  std::uint64_t bytes = 0;  // pool size in bytes (from offset 0, and in each region)
  std::uint64_t region = 0; // power of two >= bytes: region r starts at r * region
};

// Prime and probe over region 0 at stride 2^line_bit for the target and each flipped line of a
// non-congruent bit: which pool lines share its set (recorded in the trace). Skipped (false) when
// the pool holds more than `max_lines` lines.
bool probe_columns(Session& s, std::uint64_t target, const Congruence& c, const Pool& pool, std::uint64_t max_lines);

// Lines of the target's set from regions 1, 2, ... (prime and probe at stride 2^line_bit; not a region
// whose pool holds the target) until `wanted` are found or `max_regions` were searched; never a line
// of `exclude`.
Lines fresh_lines(Session& s, std::uint64_t target, unsigned line_bit, const Pool& pool, std::size_t wanted,
                  const Lines& exclude, unsigned max_regions);

}  // namespace memhier::seqsearch
