// Shared by the GPU test suites: whether this machine has a CUDA device, and a test that skips,
// visibly, without one.
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "runtime/device_info.hpp"

namespace memhier::test {
inline bool have_gpu() {
  std::string why;
  return cuda_device_count(&why) > 0;
}
}  // namespace memhier::test

#define REQUIRE_GPU()                                                                        \
  do {                                                                                       \
    if (!::memhier::test::have_gpu()) GTEST_SKIP() << "no CUDA device on this machine";      \
  } while (0)
