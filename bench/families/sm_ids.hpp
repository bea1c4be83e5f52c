// The SM ids a grid actually runs on (for experiments that pin one CTA to a chosen SM). CUDA host
// code: include from .cu files only.
#pragma once
#include <stdexcept>
#include <vector>

#include "bench/families/gmem_throughput.hpp"
#include "kernels/sm_ids.cuh"

namespace memhier {

// Sorted SM ids seen by a few launches of 4 x SM-count CTAs; measured once per process.
inline const std::vector<unsigned>& sm_ids() {
  static const std::vector<unsigned> ids = [] {
    DeviceBuffer<unsigned> seen(kern::kMaxSmIds);
    seen.zero();
    for (int i = 0; i < 4; ++i) {
      kern::record_sm_ids<><<<4 * tput::device().d.sm_count, 64>>>(seen.get());
      MEMHIER_LAUNCH_CHECK();
    }
    MEMHIER_CUDA(cudaDeviceSynchronize());
    std::vector<unsigned> v;
    const auto f = seen.download();
    for (unsigned s = 0; s < f.size(); ++s)
      if (f[s]) v.push_back(s);
    if (v.empty()) throw std::runtime_error("no SM id recorded by the discovery launches");
    return v;
  }();
  return ids;
}

}  // namespace memhier
