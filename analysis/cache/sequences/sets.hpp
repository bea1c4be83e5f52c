// Ways, sets and the index function from the cache_sequences traces (docs/methodology.md, inference
// "Eviction sets and index"): ways = the size of a minimal eviction set (every test without one of
// its lines did not evict); lines known to share the target's set (evicted by that set, or by an
// insertion) and known not to; their address differences span the kernel of the index matrix H
// (set(x) = H x over GF(2)); H's rows are a basis of the kernel's annihilator over the address bits
// the tests could flip; sets = capacity / (ways x line), checked against 2^rank(H).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/core/field.hpp"
#include "analysis/core/gf2.hpp"
#include "analysis/cache/sequences/evidence.hpp"

namespace memhier::analysis {

struct SeqStructure {
  bool has_set = false;             // an evicting set was seen
  bool minimal = false;             // confirmed minimal: every test without one of its lines did not evict
  std::uint64_t target = 0;
  std::vector<std::uint64_t> eviction_set;
  std::vector<std::uint64_t> same_set;   // line addresses known in the target's set (incl. E and t)
  std::size_t other_lines = 0;           // lines known outside it
  // Index: over line-address bits line_bit .. top_bit (byte-address bits).
  unsigned line_bit = 0, top_bit = 0;
  gf2::Basis kernel;                     // line-address differences that keep a line in its set
  std::vector<std::uint64_t> rows;       // H's rows as byte-address masks, reduced row echelon form
  std::size_t contradictions = 0;        // differences known to leave the set that lie in the kernel
  std::size_t uncorroborated = 0;        // weak claims (one miss) no other claim supports: not used
  std::vector<unsigned> leaving_bits;    // byte-address bits whose single flip is known to leave the set
  std::string benchmark, note;
  const SeqEvidence* evidence = nullptr;
  int ways() const { return minimal ? static_cast<int>(eviction_set.size()) : 0; }
  int rank() const { return static_cast<int>(rows.size()); }
  // Address bits line_bit..top_bit whose single flip is known to keep (kernel) or leave the set.
  int decided_bits() const;
  bool every_bit_decided() const { return top_bit >= line_bit && decided_bits() == static_cast<int>(top_bit - line_bit + 1); }
};
// line_bytes: the cache's line (the analyzer's); 0: the lowest bit whose flip leaves the set.
// noise: spurious misses per access of the cache's level (capacity sweep); above 0, a claim resting
// on one miss counts only where the other claims span its difference too.
SeqStructure analyze_sets(const std::vector<SeqEvidence>& traces, std::uint64_t line_bytes, double noise = 0);

// Whether a chase from offset 0 over `footprint` bytes at `stride` overflows a set (more than `ways`
// of its lines in one of H's sets): what the index predicts for a footprint of a capacity sweep.
bool predicts_overflow(const SeqStructure& s, std::uint64_t ways, std::uint64_t line, std::uint64_t stride,
                       std::uint64_t footprint);

// The index as topology values: [lo, hi] when H selects consecutive bits, else "hashed".
nlohmann::json index_of(const SeqStructure& s);
// H's rows as hex strings (byte-address masks).
nlohmann::json matrix_json(const SeqStructure& s);

}  // namespace memhier::analysis
