// A GPGPU-Sim / Accel-Sim configuration from one topology.json (issue 32; docs/gpgpusim.md): the
// cache lines in gpu-cache.h's cache_config syntax
// ("type:nsets:line:assoc,repl:wr:alloc:wr_alloc:set_idx,mshr:entries:merge,miss_queue:fifo,port"),
// the latencies, the shared-memory and unified-L1 sizes, the memory partitions. Each option is
// preceded by a comment with the measured value, what the format cannot say and what was chosen.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace memhier::analysis {

// The configuration text; throws std::runtime_error when the topology has no device or caches block.
std::string gpgpusim_config(const nlohmann::json& topology);

}  // namespace memhier::analysis
