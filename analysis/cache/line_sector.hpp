// Line and sector (docs/methodology.md, inference "Line and sector"; 003 §4.3, 000 §4.2): the fill
// granularity g (sector_bytes) from the distance between consecutive misses of a stride-4 fine
// trace above C, then the line from stage-2 probes at stride g (N = C + j*g): a new set overflows
// every r steps, and one run at stride r*g tells lines of r*g bytes from g-byte lines whose set
// index starts above them.
#pragma once
#include <cstdint>
#include <string>

#include "analysis/cache/job.hpp"

namespace memhier::analysis {

// Writes sector_bytes (or nulls it and asks for the trace); returns g, 0 when not determined.
// C: size_bytes; size_hi: the upper end of its bracket (the trace must lie at or above both).
std::uint64_t measure_fill_granularity(CacheJob& job, std::uint64_t C, std::uint64_t size_hi);

struct LineResult {
  std::uint64_t line = 0;  // 0: not determined (note says why)
  bool pending = false;    // the runs that decide it are requested
  std::string note;
  Evidence evidence;
};
// The line from the stage-2 probes at stride g (requested when missing). Needs an exact C.
LineResult measure_line(CacheJob& job, std::uint64_t C, std::uint64_t g);

}  // namespace memhier::analysis
