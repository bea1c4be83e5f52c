// One load per path into the memory hierarchy, as the P-chase needs it (the loaded value is the
// next index). Inline PTX fixes the cache operator so the compiler cannot choose another path.
#pragma once
#include <cstdint>

#include "kernels/load_ops.cuh"

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
  if constexpr (P == LoadPath::global_ca) return load_ca(s.global + j);
  else if constexpr (P == LoadPath::global_cg) return load_cg(s.global + j);
  else if constexpr (P == LoadPath::ldg) return load_nc(s.global + j);
  else if constexpr (P == LoadPath::texture) return load_tex(s.tex, j);
  else if constexpr (P == LoadPath::constant) return c_chase[j];  // LDC: ld.const of a __constant__ array
  else return load_shared(s.shared + j);
}

}  // namespace memhier::kern
