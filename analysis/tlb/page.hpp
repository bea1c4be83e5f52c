// The page, and what one TLB entry covers, from the VMM sweep with holes (docs/methodology.md,
// inference "TLBs"). Under vmm_gap every chunk (the VMM granularity) is created on its own and
// followed by an unmapped hole of `gap` bytes: logical byte x lies at virtual x + (x / chunk) * gap.
// An entry made of contiguous pages of one allocation cannot span two chunks: its reach there is at
// most the chunk, and that reach is the page. An entry that covers an aligned virtual region
// (e.g. a cached block of page-table entries) keeps its reach across chunks and holes: then the
// reach says nothing about the page, which is only bounded by the chunk (separately created
// chunks share no page). The H100 does the latter: 16 MiB regions over 2 MiB chunks and holes.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/core/dataset.hpp"
#include "analysis/core/field.hpp"
#include "analysis/tlb/levels.hpp"

namespace memhier::analysis {

struct PageInfo {
  std::uint64_t page = 0;         // the page (0: not decided)
  std::uint64_t granularity = 0;  // the VMM chunk
  std::uint64_t at_most = 0;      // an upper bound of the page when it is not decided (0: none)
  std::uint64_t region_bytes = 0; // virtual reach of an entry that spans chunks and holes (0: none seen)
  std::string note;               // how, or why not
  Evidence ev;
};

// The benchmarks behind a level's rises.
Evidence tlb_level_evidence(const TlbLevel& L);

// From the vmm_gap levels; `malloc_levels` lend their penalty to a vmm_gap level whose sweep ends
// before its heights stop doubling (its largest partial height then gives its entry reach).
PageInfo tlb_page_of(const Dataset& data, const std::vector<TlbLevel>& malloc_levels,
                     const std::vector<TlbLevel>& gap_levels);

}  // namespace memhier::analysis
