// The probe's sample lines of the l2_persist family (docs/methodology.md, section l2_persist),
// shared by the kernel (kernels/l2_persist.cuh) and its host test (tests/common).
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define MEMHIER_PERSIST_HD __host__ __device__ __forceinline__
#else
#define MEMHIER_PERSIST_HD inline
#endif

namespace memhier {

// Window line of sample k of `samples` (samples <= lines): the window's `lines` lines cut into
// `samples` blocks of floor or ceil(lines / samples) lines that together cover every line (block k
// = [k lines / samples, (k + 1) lines / samples)), the sample at a hashed position inside its block
// (no stride aliases with the slice hash). Blocks of floor(lines / samples) lines from line 0 would
// leave the window's tail unprobed — the lines the warm pass touched last, which a set-aside
// smaller than the window keeps (the first H100 run's kept bytes were that artefact).
MEMHIER_PERSIST_HD std::uint64_t persist_sample_line(std::uint32_t k, std::uint64_t lines, std::uint32_t samples) {
  std::uint32_t h = k * 0x9E3779B1u;
  h ^= h >> 15;
  h *= 0x85EBCA77u;
  h ^= h >> 13;
  const std::uint64_t lo = static_cast<std::uint64_t>(k) * lines / samples;
  const std::uint64_t n = (static_cast<std::uint64_t>(k) + 1) * lines / samples - lo;
  return lo + (n > 1 ? h % n : 0);
}

}  // namespace memhier
