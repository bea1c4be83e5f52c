// Levels beyond one SM (issue 21; docs/methodology.md, "Levels beyond one SM"; docs/formats.md,
// topology sections): distributed shared memory (dsmem family), asynchronous copies into shared
// memory (async_copy), host memory (host) and peer GPUs (peer). Each section is built from its
// family's entries alone (and, where a figure is compared with another level, from the topology
// built so far: the L2's hit latency and measured peak); a section is absent when its family is,
// and a value the data cannot decide is null with the reason. Decisions (rank and cluster-size
// effects, which cache keeps host or peer lines) are taken against the measured spread, never
// against an expected hardware value. Modules: levels_common (points, noise, decisions),
// levels_dsmem, levels_async, levels_host, levels_peer.
#pragma once
#include <nlohmann/json.hpp>
#include <vector>

#include "common/bench_json.hpp"

namespace memhier::analysis {

// Adds distributed_shared_memory, async_copies, host_memory and peers to `topology` for the
// families present in `runs` (nothing for an archive without them). Call after the caches and the
// throughput sections (caches.l2.hit_latency_cycles, l2_bandwidth.peak_bytes_per_second).
void add_level_sections(const std::vector<BenchRun>& runs, nlohmann::json& topology);

// The sections one by one (null when the family is absent).
nlohmann::json dsmem_section(const std::vector<BenchRun>& runs);
nlohmann::json async_copy_section(const std::vector<BenchRun>& runs, const nlohmann::json& topology);
// `relative_noise` (out): the spread of the host's cold latencies over their median (-1: not
// measured), which the peers' decisions use beside their own repetitions.
nlohmann::json host_section(const std::vector<BenchRun>& runs, const nlohmann::json& topology, double* relative_noise);
nlohmann::json peers_section(const std::vector<BenchRun>& runs, const nlohmann::json& topology, double relative_noise);

}  // namespace memhier::analysis
