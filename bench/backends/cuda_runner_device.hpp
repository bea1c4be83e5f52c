// What the CUDA runners of sequences and random streams need to know of the device (plain C++:
// their headers hide the CUDA state behind a pointer).
#pragma once
#include <cstdint>

namespace memhier {

struct CudaRunnerDevice {
  int sm_count = 1;
  std::uint64_t smem_per_block_optin = 0;
  std::uint64_t max_texture_elements = 0;
};

}  // namespace memhier
