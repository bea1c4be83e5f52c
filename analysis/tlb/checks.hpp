// Checks that a chain of rises is a translation level (docs/methodology.md, inference "TLBs"),
// where its heights do not already show it (doubling with the stride below its saturation).
// A level's misses never vanish at a larger stride: the fraction of accesses that miss grows with
// the stride (fewer slots share an entry) and its reach in bytes does not shrink (the same entries,
// or fewer sets used), so where a larger stride's curve spans the footprints at which the level
// must show again, a rise at least as high must be there. Data placement does not behave so: on
// the H100 a 0.5-cycle drift at 512 KiB-1 MiB strides past 1 GiB (the near/far L2 mix of a few
// thousand lines) shows at no larger stride.
#pragma once
#include <string>
#include <vector>

#include "analysis/tlb/levels.hpp"

namespace memhier::analysis {

struct RejectedLevel {
  TlbLevel level;
  std::string reason;
};

// The levels that pass, in order; the others go to *rejected with the reason.
std::vector<TlbLevel> keep_translation_levels(std::vector<TlbLevel> levels, const TlbSteps& st,
                                              std::vector<RejectedLevel>* rejected);

}  // namespace memhier::analysis
