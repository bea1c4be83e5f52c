#include "sim/sequence.hpp"

#include <stdexcept>
#include <string>

namespace memhier::sim {

SequenceOutcome run_sequence(SimDevice& dev, const AccessSequence& s,
                             const std::array<int, kSeqPathCount>& path_ids) {
  for (const AccessRun& r : s.runs)
    if (!r.is_repeat() && (r.path >= kSeqPathCount || path_ids[r.path] < 0))
      throw std::invalid_argument(std::string("the simulated device does not map the ") + seq_path_name(r.path) +
                                  " path");
  SequenceOutcome o;
  o.records.assign(s.slots, 0);
  const std::uint64_t base = dev.config().array_base;
  if (dev.config().sequences_as_left) dev.new_launch();  // what earlier sequences left, like a GPU
  else dev.reset();
  for_each_access(
      s,
      [&](std::uint64_t offset, std::uint8_t path, std::uint32_t slot) {
        const std::uint32_t lat = dev.access(path_ids[path], base + offset);
        ++o.accesses;
        o.total_cycles += lat;
        if (slot == kUntimed) return;
        switch (s.mode) {
          case RecordMode::latency: o.records[slot] = lat; break;
          case RecordMode::miss_count: o.records[slot] += lat >= s.threshold_cycles; break;
          case RecordMode::miss_any: o.records[slot] |= lat >= s.threshold_cycles; break;
        }
      },
      [&] {
        dev.new_launch();
        ++o.launches;
      });
  return o;
}

}  // namespace memhier::sim
