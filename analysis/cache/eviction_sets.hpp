// Eviction sets, ways, sets and the index function (docs/methodology.md, inference "Eviction sets
// and index"; 000 §4.2 step 3, §4.4). Stage 2 of the P-chase method: runs N = C + j*u at stride u
// (the line); a step that adds more misses than its own new line opens a set whose ways are the
// added lines minus one (unequal sets come out as they are); address bits that reproduce the sets,
// or "hashed".
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/cache/job.hpp"
#include "analysis/cache/line_sector.hpp"

namespace memhier::analysis {

// Stage 2 from line memberships: missing[j-1] = lines (index*4/g) that missed at N = C + j*g.
struct SetsResult {
  bool complete = false;                 // every line misses at the last step: all sets opened
  std::vector<int> ways;                 // per opened set, in order of opening
  std::vector<std::vector<std::uint64_t>> members;  // lines known to be in each set
  std::vector<std::uint64_t> opening_lines;         // the new line that opened each set
};
SetsResult sets_from_membership(const std::vector<std::vector<std::uint64_t>>& missing,
                                std::uint64_t lines_at_c);
// Stage 2 from miss counts per pass (LRU): misses[j-1] at N = C + j*unit, lines = N/unit.
SetsResult sets_from_counts(const std::vector<double>& misses_per_pass, std::uint64_t lines_at_c);

// Address bits (byte address = line * line_bytes) that select the sets: {lo, hi} inclusive, or
// nullopt ("hashed") when no bit range reproduces the observed sets. ambiguous: several ranges fit.
struct IndexBits {
  bool bits = false;
  int lo = 0, hi = -1;
  bool ambiguous = false;
};
IndexBits index_bits_of(const SetsResult& s, std::uint64_t line_bytes);

// The stage-2 runs of one cache (fine traces, or count runs when C/u lines are too many for one).
struct Stage2 {
  std::uint64_t C = 0, u = 0, lines_c = 0;
  bool use_fine = true;
  SetsResult sets;
  std::uint64_t have = 0;              // steps j = 1..have measured
  const Chase* first_step = nullptr;   // the j = 1 run (the replacement's evidence)
  Evidence evidence;
  // Fine traces while C/u lines and the 256 steps after them fit one trace of 4000 records.
  static Stage2 at(std::uint64_t C, std::uint64_t u) {
    Stage2 s;
    s.C = C;
    s.u = u;
    s.lines_c = u ? C / u : 0;
    s.use_fine = s.lines_c + 256 <= 4000;
    return s;
  }
};
// Reads the measured steps and asks for the next ones until every set has opened.
Stage2 measure_stage2(CacheJob& job, std::uint64_t C, std::uint64_t u);
// Writes sets, ways and index_bits from stage 2 (or nulls them with the reason).
void write_sets(CacheJob& job, const Stage2& s2);

}  // namespace memhier::analysis
