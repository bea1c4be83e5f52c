// Cache sharing (003 §4.5) and caches per SM (003 §4.6) from the cache_sharing and caches_per_sm
// families: which caches are one physical array (`shared_with`) and how many slices of a cache an
// SM has (`slices_per_sm`). docs/methodology.md, section requests_sharing_partitions.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/core/dataset.hpp"

namespace memhier::analysis {

// Re-read of the victim after an evictor (or none): miss rate and mean latency.
struct ReRead {
  double miss_rate = 0, latency_cycles = 0;
};

enum class Eviction { evicted, kept, unclear };

// Evicted: miss rate up by >= 0.5 or latency up by >= 50 %; kept: < 0.05 and < 10 %.
Eviction judge(const ReRead& reference, const ReRead& after);

// One cache_sharing entry: a victim footprint and its re-reads per evictor ("none" = reference).
struct SharingRun {
  std::string benchmark, victim;
  double bytes = 0;
  std::map<std::string, ReRead> by_evictor;
};

// Per victim cache: the caches whose streams evicted it, kept it, or left it unclear, decided at a
// footprint whose control (its own path as evictor) evicted (one whose reference hits first, then
// the largest). Without such a footprint the largest decides, an eviction still counts (the data
// were there and left), a kept result is unclear, and `reason` says so when nothing evicted.
struct SharingVerdict {
  std::string victim, benchmark, reason;
  std::vector<std::string> evicted_by, kept_by, unclear;
  bool control_failed = false;  // no footprint's control evicted: only evictions count (a kept
                                // result is unclear), e.g. the constant L1.5, larger than the bank
};
std::vector<SharingVerdict> judge_sharing(const std::vector<SharingRun>& runs);

// One caches_per_sm entry: reference, control (same warp) and the re-read after each warp w.
struct PerSmRun {
  std::string benchmark, cache;
  double bytes = 0;
  ReRead reference, control;
  std::map<int, ReRead> by_warp;  // w = 1 .. warps-1
  int warps = 0;
};

struct SliceVerdict {
  std::string cache, benchmark, reason;
  int slices = 0;                   // 0: not determined
  std::vector<int> sharing_warps;   // warps whose stream evicted warp 0's data (0 included)
  std::vector<int> unclear_warps;
  bool periodic = false;            // sharing warps = {w : w mod slices == 0}
};
SliceVerdict judge_slices(const std::vector<PerSmRun>& runs);

// Fills caches.<name>.shared_with and slices_per_sm (+ slice_warps) from the two families, where
// measured; l2.shared_with from the hit latencies (a device-wide level with its own latency).
void add_sharing(const Dataset& data, nlohmann::json& caches);

}  // namespace memhier::analysis
