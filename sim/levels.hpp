// The simulated device's levels beyond one SM (issue 21; docs/methodology.md, "Levels beyond one
// SM"; docs/formats.md, sim-config key `beyond_sm`): distributed shared memory, asynchronous copies
// into shared memory, host memory and peer GPUs, as a model of a few figures per level. It answers
// the four families' benchmarks (dsmem, async_copy, host, peer) with the counters their kernels
// write, times as bytes / rate or accesses x latency / clock, and the config's noise applied
// deterministically from its seed. Pure C++: no CUDA, no bench/ header (the backend adapts).
#pragma once
#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace memhier::sim {

struct DsmemModel {
  int max_cluster = 0;                    // largest cluster (0: none)
  double local_latency_cycles = 0;        // rank 0: own shared memory through the cluster window
  double remote_latency_cycles = 0;       // rank 1 of a cluster of 2
  double rank_step_cycles = 0;            // + per rank beyond 1 (rank R: + (R - 1) x step)
  double cluster_step_cycles = 0;         // + per doubling of the cluster beyond 2
  double cluster_spread_cycles = 0;       // clusters differ by up to this (placement), deterministic
  double other_tpc_extra_cycles = -1;     // >= 0: same-TPC / other-TPC counters, the other TPC this much slower
  double local_bytes_per_clock_per_sm = 0;
  double remote_bytes_per_clock_per_sm = 0;
  double half_rate_warps = 0;             // warps per SM at which half the rate is reached (0: always full)
  double write_over_read = 1;             // writes' rate over reads'
  double remote_cluster_loss = 0;         // remote rate lost per doubling of the cluster beyond 2 (fraction)
  int banks = 32;                         // pct_of_peak against banks x 4 bytes per clock
};

struct CopyMethodModel {
  double l2_bytes_per_second = 0, dram_bytes_per_second = 0;
  double full_rate_bytes_in_flight_per_sm = 0;  // bytes in flight per SM (chunk x CTAs x stages) for the full rate
  double latency_cycles = 0;                    // one chunk of 1 KiB, issue to usable
  double latency_cycles_per_kib = 0;            // + per KiB beyond the first
};

struct AsyncCopyModel {
  bool present = false;
  std::map<std::string, CopyMethodModel> methods;  // plain (required), cp_async, bulk, tensor
  bool multicast = false;
  double multicast_source_bytes_per_second = 0;   // L2 reads of a multicast; delivered = cluster x this
};

struct ManagedModel {
  bool present = false;
  double fault_latency_cycles = 0, migration_bytes_per_second = 0, prefetch_bytes_per_second = 0;
};

struct HostModel {
  bool present = false;
  std::string link;
  double link_bytes_per_second = 0;   // per direction
  double latency_cycles = 0;          // cold: over the link
  bool l2_caches_host_lines = false;  // warm footprints within the L2 hit at the L2's latency
  std::uint64_t host_bytes = 0;
  double read_efficiency = 1, write_efficiency = 1, copy_efficiency = 1, bidir_efficiency = 1;
  double full_rate_ctas_per_sm = 1;   // SM-initiated streams reach the full rate from this many CTAs per SM
  double copy_setup_us = 0;           // a copy costs this much beside its bytes
  ManagedModel managed;
};

struct PeerModel {
  int device = 1;
  std::string link;
  double link_bytes_per_second = 0;   // per direction
  double latency_cycles = 0;          // cold
  double owner_hit_latency_cycles = 0;  // a line the owner's L2 holds (when it caches one)
  std::string cached_in = "none";     // reader_l2 | owner_l2 | none
  double read_efficiency = 1, write_efficiency = 1, copy_efficiency = 1, bidir_efficiency = 1;
  double full_rate_ctas_per_sm = 1;
  double copy_setup_us = 0;
};

// The persisting L2 set-aside (sim config key `l2_persisting`; docs/methodology.md, section
// l2_persist): the l2_persist family's answer is the hardware's promise, kept = efficiency x
// min(max(granted set-aside, minimum), hitRatio x window), granted = request rounded up to the
// granularity (at most max_bytes), as the H100 grants it; the minimum set-aside holds wherever a
// persisting window is active (the H100 kept one grant step at a limit of 0). Without an access
// policy window (policy:none) nothing persists: kept 0.
struct PersistModel {
  bool present = false;
  std::uint64_t max_bytes = 0;          // persistingL2CacheMaxSize
  std::uint64_t max_window_bytes = 0;   // accessPolicyMaxWindowSize
  std::uint64_t granularity_bytes = 0;  // the set-aside is granted in these steps (0: exactly)
  std::uint64_t minimum_bytes = 0;      // kept for persisting lines under a window even at a limit of 0
  double kept_efficiency = 1;           // share of the persisting lines that survive the co-runner
};

struct LevelsNoise {
  double latency_jitter_cycles = 0;  // per access, uniform in [0, J]: a mean of N accesses moves by ~J/sqrt(N)
  double rate_jitter = 0;            // a rate is lowered by up to this fraction
  std::uint64_t seed = 1;
};

struct LevelsModel {
  bool present = false;  // the config has `beyond_sm`
  DsmemModel dsmem;
  AsyncCopyModel async_copy;
  HostModel host;
  std::vector<PeerModel> peers;
  LevelsNoise noise;
  PersistModel persist;  // the config's top-level `l2_persisting` (absent: present = false)
  // The device beside it (filled by the config): clock, SMs, the L2's size and hit latency, DRAM peak.
  double sm_clock_hz = 1e9;
  int sm_count = 1;
  std::uint64_t l2_bytes = 0;
  double l2_hit_latency_cycles = 0;
  double dram_bytes_per_second = 0;
  double clock_fine_cycles = 0;
  double dram_latency_cycles = 0;
};

// Parses the `l2_persisting` object; throws std::runtime_error("l2_persisting: <what>").
PersistModel parse_persist_model(const nlohmann::json& j);

// Parses the `beyond_sm` object; throws std::runtime_error("beyond_sm.<part>: <what>") on a problem.
LevelsModel parse_levels_model(const nlohmann::json& j);

// One benchmark of a level family: family and the parameters of its name.
struct LevelQuery {
  std::string family;
  std::map<std::string, std::string> params;
};
struct LevelAnswer {
  std::string error;
  std::map<std::string, double> counters;
  double seconds = 0;
};

// The context keys of the links (host_link, host_link_bytes_per_second, host_link_source,
// peer_devices, peer_link, peer_link_bytes_per_second, peer_link_source, max_cluster_size).
std::map<std::string, std::string> levels_context(const LevelsModel& m);

// Answers one benchmark. `call` counts earlier calls of the same benchmark (repetitions): the noise
// of each call is its own, and the same in every process.
LevelAnswer answer_level(const LevelsModel& m, const LevelQuery& q, std::uint64_t call);

}  // namespace memhier::sim
