// GPU tests skip, visibly, on a machine without a CUDA device (ctest label gpu).
#pragma once
#include <gtest/gtest.h>

#include <string>

#include "runtime/device_info.hpp"

namespace memhier {
inline bool have_gpu() {
  std::string why;
  return cuda_device_count(&why) > 0;
}
}  // namespace memhier

#define REQUIRE_GPU() \
  if (!::memhier::have_gpu()) GTEST_SKIP() << "no CUDA device on this machine"
