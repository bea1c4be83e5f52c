// Random-stream trials on a CUDA device (kernels/cache_streams.cuh), for the CUDA backend
// (docs/methodology.md, section cache_streams). Plain C++ header: the CUDA state hides behind a pointer.
#pragma once
#include <cstdint>
#include <memory>

#include "bench/backends/backend.hpp"
#include "bench/backends/cuda_runner_device.hpp"

namespace memhier {

class CudaStreamsRunner {
 public:
  using Device = CudaRunnerDevice;
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
