// CUDA event pair on a stream: start(), stop(), seconds() (waits for the stop event).
#pragma once
#include <cuda_runtime.h>

#include "runtime/cuda_check.hpp"

namespace memhier {

class EventTimer {
 public:
  explicit EventTimer(cudaStream_t stream = nullptr) : stream_(stream) {
    MEMHIER_CUDA(cudaEventCreate(&start_));
    MEMHIER_CUDA(cudaEventCreate(&stop_));
  }
  ~EventTimer() {
    MEMHIER_CUDA_NOEXCEPT(cudaEventDestroy(start_));
    MEMHIER_CUDA_NOEXCEPT(cudaEventDestroy(stop_));
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start() { MEMHIER_CUDA(cudaEventRecord(start_, stream_)); }
  void stop() { MEMHIER_CUDA(cudaEventRecord(stop_, stream_)); }
  double seconds() {
    MEMHIER_CUDA(cudaEventSynchronize(stop_));
    float ms = 0;
    MEMHIER_CUDA(cudaEventElapsedTime(&ms, start_, stop_));
    return ms * 1e-3;
  }

 private:
  cudaStream_t stream_;
  cudaEvent_t start_{}, stop_{};
};

}  // namespace memhier
