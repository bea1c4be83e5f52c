// An access sequence (common/sequence.hpp) on the simulated device, as kernels/sequence.cuh walks
// it on a GPU: one access after the other, each costing SimDevice::access. The device starts from a
// defined point: every level and TLB empty, random generators re-seeded (so a sequence always gives
// the same records) — or, with the config's `sequence_start: as_left`, from what the sequences
// before left, the start being a new launch. At a launch break the levels marked
// `launch_invalidates` are emptied.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "common/sequence.hpp"
#include "sim/device.hpp"

namespace memhier::sim {

struct SequenceOutcome {
  std::vector<std::uint32_t> records;  // per slot, as the sequence's RecordMode says
  std::uint64_t accesses = 0;
  std::uint64_t total_cycles = 0;      // every access's latency, summed
  int launches = 1;
};

// path_ids[c]: the SimDevice path id of sequence path code c (-1: not mapped). Throws
// std::invalid_argument when the sequence uses an unmapped path.
SequenceOutcome run_sequence(SimDevice& dev, const AccessSequence& s,
                             const std::array<int, kSeqPathCount>& path_ids);

}  // namespace memhier::sim
