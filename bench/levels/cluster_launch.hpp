// A launch of `clusters` thread-block clusters of `c` CTAs each (cudaLaunchKernelEx with a cluster
// dimension), `threads` threads and `smem` bytes of dynamic shared memory per CTA, on the default
// stream: the dsmem and async_copy families' cluster launches.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

namespace memhier::levels {

struct ClusterLaunch {
  cudaLaunchAttribute attr[1];
  cudaLaunchConfig_t cfg{};
  ClusterLaunch(int clusters, int c, int threads, std::size_t smem) {
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = static_cast<unsigned>(c);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(static_cast<unsigned>(clusters * c), 1, 1);
    cfg.blockDim = dim3(static_cast<unsigned>(threads), 1, 1);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = nullptr;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
  }
};

}  // namespace memhier::levels
