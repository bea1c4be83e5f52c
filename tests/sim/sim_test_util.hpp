// Helpers for the simulator tests: a one-level device from a JSON level description, and the
// shipped configs.
#pragma once
#include <string>
#include <vector>

#include "sim/config.hpp"
#include "sim/device.hpp"

namespace memhier::sim::testing {

inline std::string config_path(const std::string& name) {
  return std::string(MEMHIER_SOURCE_DIR) + "/sim/configs/" + name + ".json";
}

// A device whose path global_cg goes through the single cache level described by `level_json`
// (a JSON object without "name"); DRAM latency 100, hit latency as given (default 10).
inline Config one_level_config(const std::string& level_json) {
  std::string level = level_json;
  level.insert(level.find('{') + 1, "\"name\": \"c\", ");
  if (level.find("hit_latency_cycles") == std::string::npos)
    level.insert(level.rfind('}'), ", \"hit_latency_cycles\": 10");
  const std::string text = R"({"format": "memhier-sim-config/1", "name": "t",
    "device": {"compute_capability": "7.0", "sm_count": 1, "sm_clock_khz": 1000000,
               "smem_per_sm_bytes": 65536, "l2_bytes": 1048576, "global_mem_bytes": 1073741824},
    "clock_overhead": {"pair_cycles": 4, "fine_cycles": 8}, "dram_latency_cycles": 100,
    "levels": [)" + level + R"(], "paths": {"global_cg": {"levels": ["c"]}}})";
  return parse_config(text, "test-config");
}

// Accesses `addrs` in order; returns true for each hit.
inline std::vector<bool> hits_of(SimDevice& dev, const std::vector<std::uint64_t>& addrs) {
  std::vector<bool> h;
  const int p = dev.path_id("global_cg");
  for (auto a : addrs) h.push_back(dev.access(p, a) == 10);
  return h;
}

}  // namespace memhier::sim::testing
