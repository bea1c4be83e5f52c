// CUDA error checking. MEMHIER_CUDA(call) throws memhier::CudaError naming the call, file and line;
// MEMHIER_CUDA_NOEXCEPT(call) only reports (for destructors); MEMHIER_LAUNCH_CHECK() checks the last
// launch. Never exit() in library code: the caller decides (SkipWithError, or one line on stderr).
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace memhier {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

inline std::string cuda_error_text(cudaError_t e, const char* call, const char* file, int line) {
  return std::string(call) + " failed: " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) +
         ") at " + file + ":" + std::to_string(line);
}

}  // namespace memhier

#define MEMHIER_CUDA(call)                                                                 \
  do {                                                                                     \
    cudaError_t memhier_err_ = (call);                                                     \
    if (memhier_err_ != cudaSuccess)                                                       \
      throw ::memhier::CudaError(memhier_err_, ::memhier::cuda_error_text(                 \
                                                   memhier_err_, #call, __FILE__, __LINE__)); \
  } while (0)

#define MEMHIER_CUDA_NOEXCEPT(call)                                                              \
  do {                                                                                           \
    cudaError_t memhier_err_ = (call);                                                           \
    if (memhier_err_ != cudaSuccess)                                                             \
      std::fprintf(stderr, "memhier: %s\n",                                                      \
                   ::memhier::cuda_error_text(memhier_err_, #call, __FILE__, __LINE__).c_str()); \
  } while (0)

// After every kernel launch: launch errors (bad configuration) and, with sync, execution errors.
#define MEMHIER_LAUNCH_CHECK() MEMHIER_CUDA(cudaGetLastError())
