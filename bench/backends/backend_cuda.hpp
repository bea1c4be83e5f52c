// The CUDA device backend (kernels/pchase.cuh through runtime/).
#pragma once
#include <memory>

#include "bench/backends/backend.hpp"

namespace memhier {

// Selects device `index` (cudaSetDevice) and describes it. Throws std::runtime_error with a clear
// message when there is no device or the index is out of range.
std::unique_ptr<Backend> make_cuda_backend(int index);

}  // namespace memhier
