// One load per path into the memory hierarchy, as the P-chase needs it (the loaded value is the
// next index). Inline PTX fixes the cache operator so the compiler cannot choose another path.
#pragma once
#include <cstdint>

namespace memhier::kern {

enum class LoadPath : int { global_ca = 0, global_cg = 1, ldg = 2, texture = 3, constant = 4, shared = 5 };

// 64 KiB: the constant bank a kernel may address (ld.const on c[0x3]). Defined per translation
// unit (no relocatable device code): upload with cudaMemcpyToSymbol from the TU that launches.
constexpr unsigned kConstElements = 16384;
static __constant__ std::uint32_t c_chase[kConstElements];

struct LoadSource {
  const std::uint32_t* global;   // global array (global_ca/cg, ldg)
  cudaTextureObject_t tex;       // texture object over the same array (texture)
  const std::uint32_t* shared;   // shared-memory copy (shared)
};

template <LoadPath P>
__device__ __forceinline__ std::uint32_t load_next(const LoadSource& s, std::uint32_t j) {
  std::uint32_t v;
  if constexpr (P == LoadPath::global_ca) {
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(s.global + j) : "memory");
  } else if constexpr (P == LoadPath::global_cg) {
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(s.global + j) : "memory");
  } else if constexpr (P == LoadPath::ldg) {
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(s.global + j) : "memory");
  } else if constexpr (P == LoadPath::texture) {
    v = tex1Dfetch<std::uint32_t>(s.tex, static_cast<int>(j));
  } else if constexpr (P == LoadPath::constant) {
    v = c_chase[j];  // LDC: the compiler emits ld.const for a __constant__ array
  } else {
    asm volatile("ld.shared.u32 %0, [%1];"
                 : "=r"(v)
                 : "r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(s.shared + j)))
                 : "memory");
  }
  return v;
}

}  // namespace memhier::kern
