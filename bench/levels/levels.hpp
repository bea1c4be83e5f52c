// Levels a kernel reaches beyond one SM's caches (issue 21; docs/methodology.md, "Levels beyond
// one SM"): distributed shared memory (dsmem), asynchronous copies into shared memory (async_copy:
// plain loads, cp.async, the bulk copy engine and TMA tensor copies), host memory (host) and the
// other GPUs of the node (peer); and the L2's slices as every SM sees them (l2_slices: per-SM
// latency of many lines, and which lines slow down while other SMs hammer one; issue 20) and its
// eviction sets (l2_evsets: group testing with a timer-free readout; issue 20). The
// families are registered on every backend from what the device offers (LevelOffer); each
// benchmark is one LevelRequest that the backend answers: the CUDA backend with kernels
// (bench/levels/*.cu), the simulated device from its model (sim/levels, sim/l2_slices).
// Plain C++: the simulated backend needs no CUDA.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/trace.hpp"

namespace memhier {

// One benchmark of a level family: its family and the parameters of its name, e.g.
// family "dsmem", params {op: latency, cluster: 4, rank: 1} for dsmem/op:latency/cluster:4/rank:1.
struct LevelRequest {
  std::string family;
  std::map<std::string, std::string> params;
  // The parameter's text ("" when absent) and its integer value (`dflt` when absent; throws
  // std::invalid_argument naming the parameter when it is not an integer).
  std::string text(const std::string& key) const;
  long long num(const std::string& key, long long dflt = 0) const;
};

// The median of a level benchmark's samples (NaN when there are none).
inline double level_median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct LevelResult {
  std::string error;                       // non-empty: this configuration could not run (and why)
  std::map<std::string, double> counters;  // the family's counters (docs/methodology.md)
  double seconds = 0;                      // device time of the timed work (manual time)
  std::optional<Trace> trace;              // per-access records, written beside the JSON (l2_slices)
};

// What the device offers to the level families; a family registers only what is offered, so a
// device without peers has no peer benchmarks (absent from the plan, not failed).
struct LevelOffer {
  int max_cluster = 0;        // largest thread-block cluster (0: none; 8 portable, 16 with the non-portable attribute)
  bool cp_async = false;      // cp.async (LDGSTS), compute capability 8.0+
  bool bulk_copies = false;   // cp.async.bulk with mbarrier completion, 9.0+
  bool tensor_copies = false; // cp.async.bulk.tensor with a tensor map (the driver's cuTensorMapEncodeTiled reachable)
  bool multicast = false;     // bulk copies multicast to the CTAs of a cluster
  bool host_mapped = false;   // pinned, mapped host memory readable by kernels
  bool managed = false;       // managed memory with concurrent access (page faults on first touch)
  std::uint64_t host_bytes = 0;  // largest host buffer the families may pin (0: host family absent)
  std::vector<int> peers;     // device indices this device can access as peers (ordinal order)
  // l2_persist (docs/methodology.md, section l2_persist): the largest persisting L2 set-aside
  // (persistingL2CacheMaxSize; 0: the family is absent) and the largest access policy window.
  std::uint64_t persisting_l2_max_bytes = 0;
  std::uint64_t access_policy_max_window_bytes = 0;
  bool l2_slices = false;     // the per-SM latency of L2 lines can be measured (an L2, SM ids)
  std::uint64_t l2_evsets_bytes = 0;  // l2_evsets: the L2 bytes whose sets the family counts (0: absent)
};

}  // namespace memhier
