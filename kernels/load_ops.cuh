// One load of a 32-bit word through a chosen path, with the cache operator fixed by inline PTX so
// the compiler cannot choose another path. Shared by the P-chase (kernels/load_paths.cuh) and the
// access-sequence kernel (kernels/sequence.cuh). This header declares no __constant__ memory, so a
// translation unit may include it and still own all 64 KiB of its constant bank.
#pragma once
#include <cstdint>

namespace memhier::kern {

__device__ __forceinline__ std::uint32_t load_ca(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ std::uint32_t load_cg(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ std::uint32_t load_nc(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

__device__ __forceinline__ std::uint32_t load_tex(cudaTextureObject_t t, std::uint32_t index) {
  return tex1Dfetch<std::uint32_t>(t, static_cast<int>(index));
}

__device__ __forceinline__ std::uint32_t load_shared(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(p))) : "memory");
  return v;
}

}  // namespace memhier::kern
