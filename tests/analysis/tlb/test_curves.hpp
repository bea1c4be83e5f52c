// Synthetic tlb sweep curves for the TLB inference tests: footprints of 2, 3, 4, 6, 8, ... slots.
#pragma once
#include <cstdint>
#include <string>

#include "analysis/tlb/steps.hpp"

namespace memhier::analysis::tlbtest {

// One malloc curve at `stride` up to `max_slots` slots: `at(stride, slots)` cycles, each mean known to `se`.
template <class F>
TlbSeries tlb_curve(std::uint64_t stride, std::uint64_t max_slots, double se, F at) {
  TlbSeries s;
  s.alloc = "malloc";
  s.stride = stride;
  for (std::uint64_t m = 2; m <= max_slots; m = m % 3 == 0 ? m / 3 * 4 : m / 2 * 3) {
    TlbFootprint p;
    p.bytes = m * stride;
    p.slots = m;
    p.mean = at(stride, m);
    p.se = se;
    p.accesses = 4096;
    p.evidence.push_back("tlb/bytes:" + std::to_string(p.bytes) + "/stride:" + std::to_string(stride));
    s.points.push_back(p);
  }
  return s;
}

}  // namespace memhier::analysis::tlbtest
