// The line from the shift of the capacity edge with the stride (docs/methodology.md, inference "Line
// and sector", method 1 of issue 10). A chase at stride s <= b touches every line of its footprint,
// so the cache fills at the same footprint H as at the sweep stride; at s > b it touches one line
// per access, N/s lines, so it fills at H * s/b. The edge's shift H(s)/H(s0) = max(1, s/b) /
// max(1, s0/b) gives b, and since it compares edges (here: the 50 % points of the curves) it works
// where the edge is soft. Strides are 1.5 x g x 2^k (g the fill granularity): s/b is then 1.5 or 3
// for the lines s just passes, so the lines touched spread evenly over the sets of any index that
// spreads consecutive lines (bits above the line, modulo, XOR); powers of two would touch a
// fraction of the sets of a bit index and hide the shift.
#pragma once
#include <cstdint>
#include <string>

#include "analysis/cache/capacity.hpp"
#include "analysis/cache/line_sector.hpp"

namespace memhier::analysis {

// Runs at stride 1.5 g 2^k (k = 0..kShiftStrides-1) at the footprints midway (geometrically)
// between the edges the candidate lines g 2^j predict; a run reads "the edge lies above" when its
// miss rate is below half the stride's plateau. Candidates whose predictions every run agrees with
// are the line; one of them must remain. Requests what is missing (one round).
LineResult line_from_stride_shift(CacheJob& job, const Capacity& cap, std::uint64_t g);
constexpr int kShiftStrides = 5;
constexpr int kShiftCandidates = 5;  // lines g .. 16 g

}  // namespace memhier::analysis
