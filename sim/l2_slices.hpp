// The simulated device's sliced, partitioned L2 as the l2_slices family sees it (issue 20;
// docs/methodology.md, "l2_slices"; docs/formats.md, sim-config key `l2_slices`). SMs sit in GPCs,
// GPCs in partitions; a partition holds `slices_per_partition` slices, and a line read by an SM is
// served by the slice of its physical address in the SM's own partition (the far partition's lines
// replicated near, as on the H100). The slice index is an XOR hash (one parity mask of physical
// address bits per index bit) or a modulo of folded line numbers (a non-power-of-two count). A hit
// costs hit_cycles + spread_cycles x u(GPC, partition, slice) + sm_spread_cycles x u(SM), u in
// [0, 1) from the seed, plus per-load jitter and rare outliers. Each 2 MiB page of the test buffer
// has its own physical frame (seeded), so bits above the page enter the hash as a per-page
// constant. Pure C++: no CUDA, no bench/ header.
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace memhier::sim {

struct L2SlicesModel {
  bool present = false;  // the config has `l2_slices`
  int partitions = 1;
  int slices_per_partition = 1;
  int gpcs = 1;                          // SM groups of consecutive ids; gpcs / partitions per partition
  std::string hash = "xor";              // xor | modulo
  std::vector<std::uint64_t> xor_masks;  // xor: one per index bit (log2 of slices_per_partition masks)
  double hit_cycles = 250, spread_cycles = 120, sm_spread_cycles = 3;
  double jitter_cycles = 2;              // per load, uniform in [0, J]
  double outlier_rate = 0, outlier_cycles = 0;  // per record
  double contention_cycles = 300;        // per hit, while other SMs hammer a line of the same slice
  double contention_other_cycles = 2;    // per hit, while they hammer a line of another slice
  std::uint64_t seed = 1;
  int sm_count = 1;                      // from the device
  double sm_clock_hz = 1e9;
};

// Parses the `l2_slices` object; throws std::runtime_error("l2_slices: <what>") on a problem.
L2SlicesModel parse_l2_slices_model(const nlohmann::json& j, int sm_count, double sm_clock_hz);

int slice_partition_of_sm(const L2SlicesModel& m, unsigned sm);
// The slice (0 ... slices_per_partition - 1) of a physical byte address inside any partition.
int slice_of_address(const L2SlicesModel& m, std::uint64_t phys);
// The physical address of byte `offset` of the test buffer (its 2 MiB pages have seeded frames).
std::uint64_t slice_physical(const L2SlicesModel& m, std::uint64_t offset);

// Cycles of `hits` dependent hits of the test line at byte `offset` from SM `sm` (jitter and outliers
// drawn from `salt`); `hammered`: the offset of a line other SMs hammer meanwhile (UINT64_MAX: none).
std::uint32_t slice_record(const L2SlicesModel& m, unsigned sm, std::uint64_t offset, int hits, std::uint64_t salt,
                           std::uint64_t hammered);

struct SliceFingerprint {
  std::vector<unsigned> sm_ids;
  std::vector<std::uint32_t> cycles;  // [pass][sm][line]: cycles of `repeats` dependent hits
  double seconds = 0;
};
SliceFingerprint slice_fingerprint(const L2SlicesModel& m, const std::vector<std::uint64_t>& offsets, int repeats,
                                   int passes, std::uint64_t call);

}  // namespace memhier::sim
