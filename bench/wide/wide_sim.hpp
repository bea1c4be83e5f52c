// Whole-memory chases on the simulated device: the chain of common/wide_chain.hpp walked on the
// cache and TLB model, with the statistics the CUDA kernel keeps (kernels/wide_chase.cuh).
#pragma once
#include <vector>

#include "bench/backends/backend.hpp"
#include "sim/device.hpp"

namespace memhier {

WideLimits sim_wide_limits(const sim::Config& cfg);
std::vector<WideChaseResult> run_wide_sim(sim::SimDevice& dev, const std::vector<WideChaseRequest>& rs,
                                          const ClockOverhead& oh);

}  // namespace memhier
