// The L2 as the SMs see it (l2_partitions family): which test lines are near and which far for each
// SM, the SM groups (partitions), each line's home, the near/far/cold latencies, an address mask
// per 2 MiB page, the single-SM replication limit and the bandwidth by readers per line.
// docs/methodology.md, section requests_sharing_partitions.
#pragma once
#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/core/dataset.hpp"

namespace memhier::analysis {

// A two-class split of latencies at their largest gap; `split` false when the gap is not
// convincing (classes < 5 % of the values or < 4 pooled robust deviations apart).
struct TwoClass {
  bool split = false;
  double threshold = 0;  // values above are the slow class
  double fast = 0, slow = 0;  // class medians
};
TwoClass split_two(std::vector<double> v);

// A two-class split of many latencies (every SM's lines of one pass, DRAM tails included) at the
// Otsu threshold; `split` when each class holds >= 5 % and their medians lie >= 4 pooled robust
// deviations apart (one noisy class splits at ~2.3).
TwoClass split_pooled(std::vector<double> v);

// The map's raw data: per SM slot and pass (0 cold, 1 after write, 2 after pressure, 3 after the
// primer SM's chase; a pass not measured is absent or NaN) the latency of each line (line ids as in
// `offsets`).
struct MapData {
  std::vector<unsigned> sm_ids;
  std::vector<std::uint64_t> offsets;  // bytes from the first page, per line
  std::uint64_t page_bytes = 2ull << 20;
  std::vector<std::vector<std::vector<double>>> lat;  // [slot][pass][line]
};
constexpr int kMapPassCold = 0, kMapPassWrite = 1, kMapPassPressure = 2, kMapPassPrimer = 3, kMapPassCount = 4;

struct PartitionMap {
  bool ok = false;
  std::string reason;
  std::vector<int> sm_partition;        // per slot: 0 or 1 (-1: not classified)
  std::vector<double> sm_agreement;     // per slot: fraction of lines agreeing with its group's map
  std::vector<int> line_home;           // per line: partition whose SMs see it near
  std::vector<std::string> pass_used;   // per slot: after_write, after_pressure, cold or after_primer
  double near_cycles = NAN, far_cycles = NAN, cold_near_cycles = NAN, cold_far_cycles = NAN;
  std::string far_from;                 // the pass the far-partition hits came from ("" when none)
  int primer_split_sms = 0;             // SMs whose far lines read slower than their near ones after the primer
  std::string pressure_outcome;         // after the pressure: far_kept, evicted (like cold), no_split
  std::string primer_note;              // why the primer pass's classes gave no far sets ("" when not tried or they did)
  std::vector<std::int64_t> page_mask;  // per page: offset bits that flip the home (-1: not linear)
  bool linear = false;                  // every page's mask predicts all of its lines
};
PartitionMap infer_partition_map(const MapData& d);

// One SM's footprints (warm global_cg count sweep) and the share of their accesses at the far
// level, (near+far)/2 < latency <= (far+dram)/2; the limit is the largest footprint below the first
// whose share exceeds 1 % (NaN when none or all do).
struct Replication {
  std::vector<std::pair<double, double>> far_fraction;  // (footprint bytes, share)
  double limit = NAN, next = NAN;
  std::vector<std::string> evidence;
};
Replication replication_limit(const Dataset& data, double near_cycles, double far_cycles, double dram_cycles);

// Reads the map trace of an l2_partitions/map entry (false when absent or malformed).
bool load_map_data(const Dataset& data, MapData* out, std::string* benchmark);

// The topology's `l2_partitions` section (null with the reason when nothing was measured).
nlohmann::json l2_partitions_section(const Dataset& data);

}  // namespace memhier::analysis
