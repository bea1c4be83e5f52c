// Shared by the GPU test suites: the CUDA backend of device 0, or none (the test then skips,
// visibly).
#pragma once
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "bench/backend_cuda.hpp"
#include "runtime/device_info.hpp"

namespace memhier::testing {

inline Backend* gpu() {
  static std::unique_ptr<Backend> be = [] {
    std::string why;
    return cuda_device_count(&why) > 0 ? make_cuda_backend(0) : nullptr;
  }();
  return be.get();
}

}  // namespace memhier::testing

#define REQUIRE_GPU()                                                                \
  do {                                                                               \
    if (!::memhier::testing::gpu()) GTEST_SKIP() << "no CUDA device on this machine"; \
  } while (0)
