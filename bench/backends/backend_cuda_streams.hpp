// Random-stream trials on a CUDA device (kernels/cache_streams.cuh), for the CUDA backend
// (docs/methodology.md, section cache_streams). Plain C++ header: the CUDA state hides behind a pointer.
#pragma once
#include <cstdint>
#include <memory>

#include "bench/backends/backend.hpp"

namespace memhier {

class CudaStreamsRunner {
 public:
  struct Device {
    int sm_count = 1;
    std::uint64_t smem_per_block_optin = 0;
    std::uint64_t max_texture_elements = 0;
  };
  explicit CudaStreamsRunner(Device d);
  ~CudaStreamsRunner();
  CudaStreamsRunner(const CudaStreamsRunner&) = delete;
  CudaStreamsRunner& operator=(const CudaStreamsRunner&) = delete;

  // overhead_cycles: removed from every timed sample (the fine chase's clock overhead).
  StreamsResult run(const StreamsRequest& r, std::uint32_t overhead_cycles);

 private:
  struct State;
  std::unique_ptr<State> st_;
};

}  // namespace memhier
