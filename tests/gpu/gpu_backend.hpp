// The CUDA backend of device 0 shared by the GPU test suites (one context for all), or nullptr
// without a device; REQUIRE_GPU() skips a test, visibly, then.
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "bench/backends/backend_cuda.hpp"
#include "runtime/device_info.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace memhier::gputest {

inline Backend* gpu() {
  static std::unique_ptr<Backend> be = [] {
    std::string why;
    return cuda_device_count(&why) > 0 ? make_cuda_backend(0) : nullptr;
  }();
  return be.get();
}

}  // namespace memhier::gputest

