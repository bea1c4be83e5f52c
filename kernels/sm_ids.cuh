// SM ids seen by a launch (%smid need not be contiguous: docs/methodology.md,
// requests_sharing_partitions). Each CTA sets the flag of the SM it runs on.
#pragma once
#include <cstdint>

#include "kernels/clock.cuh"

namespace memhier::kern {

constexpr unsigned kMaxSmIds = 1024;

// A template so that every translation unit that includes this header has its own instance.
template <int Unused = 0>
__global__ void record_sm_ids(unsigned* seen) {
  if (threadIdx.x == 0) {
    const unsigned s = smid();
    if (s < kMaxSmIds) seen[s] = 1;
  }
}

}  // namespace memhier::kern
