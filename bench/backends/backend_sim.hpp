// The simulated device: answers the P-chase, TLB and latency-spectrum families from a cache model
// (sim/) described by a JSON config (docs/formats.md).
#pragma once
#include <memory>
#include <string>

#include "bench/backends/backend.hpp"

namespace memhier {

// Throws std::runtime_error with one clear line when the config is missing or invalid.
std::unique_ptr<Backend> make_sim_backend(const std::string& config_path);

}  // namespace memhier
