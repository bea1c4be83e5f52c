// TLB levels from the rises of the tlb sweep (docs/methodology.md, inference "TLBs"; 000 §4.4).
// One level is one chain of rises across strides: its reach stays the same in bytes while several
// slots share an entry (or while a set-indexed level spreads the slots over its sets), and the same
// in slots once every slot takes an entry of its own in one set. Its height grows with the stride
// (a fraction stride / entry_reach of the accesses miss) up to the miss penalty, reached at the
// stride that equals the reach of one entry. Penalty, reach per entry, total reach and entries
// follow; each with the reason when the data do not decide it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/tlb/steps.hpp"

namespace memhier::analysis {

struct TlbLevel {
  std::string alloc;
  std::vector<TlbRise> rises;     // one per stride, strides ascending (shared ones marked)
  double penalty = 0, penalty_ci95 = 0;
  bool saturated = false;         // the full height holds at two strides or more
  std::uint64_t s_sat = 0;        // smallest stride with the full height
  std::uint64_t entry_bytes = 0;  // reach of one entry (0: not determined)
  double entry_estimate = 0;      // stride * penalty / height at the largest stride below s_sat
  std::string entry_note;         // how, or why not
  std::uint64_t reach_lo = 0, reach_hi = 0;  // total reach in [lo, hi) bytes, at the entry stride
  // An unsaturated level (penalty a bound): every stride that shows it lies below the entry reach,
  // so its reach is one footprint in bytes at all of them: [onset_lo, onset_hi) from its own rises
  // (hi: the first footprint where any shows misses; lo: the largest plateau footprint below it).
  std::uint64_t onset_lo = 0, onset_hi = 0;
  bool onset_agree = false;       // every own rise's bracket holds [onset_lo, onset_hi)
  // The first footprint with misses when they are few there (infer_tlbs.cpp, hold_partial_onset):
  // the level still holds it; onset_hi is then the next footprint with misses. 0: none such.
  std::uint64_t onset_held = 0;
  double onset_held_share = 0;    // its misses as a share of the full height, pooled over the own strides
  // Why the heights are not this level's alone (empty: they are). A height that neither stays nor
  // doubles with the stride, or that grows past the level's own plateau, holds another level's
  // misses at the same footprint: those rises are `combined`, the penalty comes from the rises
  // below them, and without a plateau there it is null with this reason (no lower bound: the
  // heights below may already hold a share of the other level's misses).
  std::string mixed;
  bool mixed_unresolved = false;  // no plateau below the first combined rise: penalty not determined
  const TlbRise* at(std::uint64_t stride) const;
  double min_slots() const;       // smallest reach in slots over the chain (orders the levels)
};

// Chains the rises of one allocation mode into levels, ordered by reach (first: the smallest).
// Chains seen at a single stride are not levels: they come back in *single.
std::vector<TlbLevel> link_tlb_levels(const TlbSteps& st, const std::string& alloc, std::vector<TlbRise>* single);
// Penalty, saturation, reach per entry and total reach of a chain, from its own (unshared) rises.
void derive_tlb_level(TlbLevel& L);
// The onset bracket of an unsaturated level (no-op for a saturated or mixed one).
void tlb_onset(TlbLevel& L);
// Two levels whose reaches coincide at a stride show one rise of both heights there: when exactly
// one combination (each level saturated or still doubling) explains it, the levels saturate where
// that says (e.g. 87 + 155 = 242 cycles: both full at the stride below).
void resolve_shared_rises(std::vector<TlbLevel>& levels);

}  // namespace memhier::analysis
