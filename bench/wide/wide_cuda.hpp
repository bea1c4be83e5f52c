// Whole-memory chases on a CUDA device (kernels/wide_chase.cuh): maps the group's memory
// (cudaMalloc or CUDA VMM chunks, runtime/vmm.hpp), writes each chain on the GPU, runs it, checks
// that the chase ended where the chain says, and releases the memory.
#pragma once
#include <vector>

#include "bench/backends/backend.hpp"
#include "runtime/device_info.hpp"

namespace memhier {

// The limits of `desc`'s device now: footprints up to the free memory minus a margin.
WideLimits cuda_wide_limits(const DeviceDescription& desc);
std::vector<WideChaseResult> run_wide_cuda(const DeviceDescription& desc, const WideLimits& limits,
                                           const ClockOverhead& oh, const std::vector<WideChaseRequest>& rs);

}  // namespace memhier
