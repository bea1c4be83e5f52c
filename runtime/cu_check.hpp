// CUDA driver API access without a link-time dependency on libcuda: the entry points are fetched
// through the runtime (cudaGetDriverEntryPointByVersion), so memhier-bench still starts on a machine
// without a driver (the simulated device, CI). MEMHIER_CU(expr) checks a CUresult and throws
// std::runtime_error naming the call, the error and the place; MEMHIER_CU_NOEXCEPT only reports.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace memhier {

// The driver function `name` (e.g. "cuMemCreate") as a pointer of type F; throws when the driver
// does not have it.
template <typename F>
F driver_fn(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q);
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !p)
    throw std::runtime_error(std::string("CUDA driver entry point ") + name + " not available (" +
                             (e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found") + ")");
  return reinterpret_cast<F>(p);
}
#define MEMHIER_DRIVER_FN(name) ::memhier::driver_fn<decltype(&::name)>(#name)

inline std::string cu_error_text(CUresult r, const char* call, const char* file, int line) {
  const char* name = nullptr;
  try {
    static auto get_name = MEMHIER_DRIVER_FN(cuGetErrorName);
    if (get_name(r, &name) != CUDA_SUCCESS) name = nullptr;
  } catch (...) {
  }
  return std::string(call) + " failed: " + (name ? name : "CUresult " + std::to_string(static_cast<int>(r))) +
         " at " + file + ":" + std::to_string(line);
}

}  // namespace memhier

#define MEMHIER_CU(call)                                                                          \
  do {                                                                                            \
    CUresult memhier_cu_ = (call);                                                                \
    if (memhier_cu_ != CUDA_SUCCESS)                                                              \
      throw std::runtime_error(::memhier::cu_error_text(memhier_cu_, #call, __FILE__, __LINE__)); \
  } while (0)

#define MEMHIER_CU_NOEXCEPT(call)                                                             \
  do {                                                                                        \
    CUresult memhier_cu_ = (call);                                                            \
    if (memhier_cu_ != CUDA_SUCCESS)                                                          \
      std::fprintf(stderr, "memhier: %s\n",                                                   \
                   ::memhier::cu_error_text(memhier_cu_, #call, __FILE__, __LINE__).c_str()); \
  } while (0)
