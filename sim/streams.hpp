// Random-stream trials (common/streams.hpp; docs/methodology.md, section cache_streams) on the
// simulated device, as kernels/cache_streams.cuh runs them on one SM: a warm stream, the hit
// reference, then the trials (a new launch every kSimStreamTrialsPerLaunch trials), each trial's targets first read through `prime_path` (L1-side paths:
// global_cg, so a first load is an L2 hit), one access after the other (the simulated device has
// no overlap: `dep` and `indep` give the same accesses). The device starts as the sequences do: from
// every level empty, or with the config's `sequence_start: as_left` from what earlier work left.
#pragma once
#include <cstdint>
#include <vector>

#include "common/streams.hpp"
#include "sim/device.hpp"

namespace memhier::sim {

struct StreamsSpec {
  int path = 0;                      // SimDevice path id of the trials
  int prime_path = -1;               // path id that primes each trial's targets; -1: none
  StreamVariant variant = StreamVariant::fresh;
  std::uint32_t k = 0, trials = 1, targets = 1, warm = 0;
  std::uint64_t pool_lines = 0;      // the pool follows the targets region
  std::uint64_t first_target_line = 0;
  std::uint64_t seed = 1;
};

struct StreamsOutcome {
  std::vector<std::uint32_t> records;  // kStreamHitRefs hit samples, then trials x targets x kStreamFields
  std::uint64_t accesses = 0;
  std::uint64_t total_cycles = 0;      // every access's latency, summed
};

// Trials per launch: a launch (warm stream, references) every this many trials, as an H200's SM runs
// 4 of the 528 trials of a point; the analysis replays one launch's history (analysis/cache/streams).
constexpr std::uint32_t kSimStreamTrialsPerLaunch = 4;

StreamsOutcome run_streams(SimDevice& dev, const StreamsSpec& s);

}  // namespace memhier::sim
