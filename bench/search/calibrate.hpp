// The first launches of a cache_sequences search (docs/methodology.md, section cache_sequences,
// step 1): fresh lines, the fill granularity, the miss threshold from the latencies of the levels
// the path reaches, and whether untimed accesses overlap (they must not).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bench/search/builders.hpp"
#include "bench/search/session.hpp"

namespace memhier::seqsearch {

// A line no sequence of this process touched before: the start of a 64 KiB block of the array's
// upper half, each block handed out once per process (a permutation of the blocks, shared by every
// session: a GPU's L2 keeps what earlier benchmarks of the run read; once every block was handed
// out, they come round again). 0 when the array is smaller than 256 KiB.
std::uint64_t fresh_line(std::uint64_t array_bytes);

// The miss threshold from the latencies (cycles) of one launch:
//   hits:   re-reads of lines just read (the hit level, one sample per line)
//   slower: first reads of fresh lines and, on L1-side paths, reads of lines only the L2 holds
// The hit level is every hit below 1.5 x the fastest; hit_hi its second slowest (one odd sample is
// noise). next_lo is the fastest slower access clearly above the hits, at least hit_hi + max(8,
// hit_hi / 8) (a "fresh" line that hit was read before). The threshold is the midpoint of hit_hi
// and next_lo (levels 1.36 x apart, as Kepler's L2 and DRAM in 000, are told apart), but at most
// max(1.3 x hit_hi, hit_hi + 16): a level the launch did not sample (the far L2 partition between
// the near one and DRAM on an H100) counts as a miss from 1.3 x the hit on. 0 when there is no
// hit or no slower access.
struct LevelSplit {
  std::uint32_t hit_lo = 0, hit_hi = 0, next_lo = 0, threshold = 0;
};
LevelSplit split_levels(const std::vector<std::uint32_t>& hits, const std::vector<std::uint32_t>& slower);

struct Calibration {
  std::uint64_t granularity = 0;  // fill granularity in bytes (0: not measured)
  LevelSplit levels;
  std::uint32_t miss_median = 0;  // first reads of fresh lines (median)
  std::uint32_t l2_median = 0;    // L1-side paths: reads of lines only the L2 holds (median)
  // Untimed pass over lines that miss: clock cycles per access (walk cycles / accesses). About the
  // miss latency when accesses complete one after the other; far below it when they overlap.
  double untimed_cycles_per_access = 0;
  std::string why;  // why the threshold was not calibrated ("" when it was)
};

// One launch: 16 fresh lines, each read (a miss), read again (a hit) and, for 9 of them, x + d
// for d = 4 ... 1024 bytes (the fill granularity: the smallest d that misses); on L1-side paths
// 8 further fresh lines read through global_cg first, then through the path (an L2 hit). Sets the
// session's threshold from split_levels. A second launch: an untimed pass over 240 lines of the
// fresh lines' blocks (misses), for untimed_cycles_per_access.
Calibration calibrate(Session& s);

}  // namespace memhier::seqsearch
