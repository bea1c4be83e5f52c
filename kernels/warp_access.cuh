// Warp-level access patterns (004): one warp chases a fixed per-lane address pattern on shared,
// constant, global (L1 path) or texture memory; the latency of a warp's access tells whether the
// memory broadcasts, serves distinct addresses in parallel, and needs alignment or contiguity.
// Also a private per-thread array kept in registers (compile-time indices) or in local memory
// (run-time indices).
#pragma once
#include <cstdint>

#include "kernels/clock.cuh"

namespace memhier::kern {

enum class WarpMem : int { shared = 0, constant = 1, global = 2, texture = 3 };
enum class WarpPattern : int { broadcast = 0, parallel = 1, strided = 2, misaligned = 3, permuted = 4 };

constexpr unsigned kWarpConstWords = 4096;  // 16 KiB: room for 32 lanes x stride 32 + offsets
static __constant__ std::uint32_t c_warp[kWarpConstWords];
constexpr int kWarpChain = 32;  // dependent accesses per timed region

// Word index of lane l (4-byte words).
__host__ __device__ inline std::uint32_t warp_pattern_index(WarpPattern p, std::uint32_t lane, std::uint32_t stride) {
  switch (p) {
    case WarpPattern::broadcast: return 0;                       // all lanes one address
    case WarpPattern::parallel: return lane;                     // consecutive, aligned
    case WarpPattern::strided: return lane * stride;             // every stride-th word
    case WarpPattern::misaligned: return lane + 1;               // consecutive, shifted one word
    case WarpPattern::permuted: return (lane * 13u + 5u) & 31u;  // the aligned 32 words, lanes shuffled
  }
  return 0;
}

template <WarpMem M>
__device__ __forceinline__ std::uint32_t warp_load(const std::uint32_t* g, cudaTextureObject_t tex,
                                                   std::uint32_t smem_base, std::uint32_t j) {
  std::uint32_t v;
  if constexpr (M == WarpMem::shared) {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(smem_base + 4 * j) : "memory");
  } else if constexpr (M == WarpMem::constant) {
    v = c_warp[j];
  } else if constexpr (M == WarpMem::global) {
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(g + j) : "memory");
  } else {
    v = tex1Dfetch<std::uint32_t>(tex, static_cast<int>(j));
  }
  return v;
}

// One warp. Every word of the array is 0, so lane l's next index is its pattern index plus the
// loaded value: each access depends on the previous one and keeps the same address. The chain
// runs once untimed (warm caches), then `iterations` timed regions; out[0] = cycles summed over
// them, out[1] = cycles of the empty region (store + clock) summed the same way.
template <WarpMem M>
__global__ void warp_pattern_chase(const std::uint32_t* g, cudaTextureObject_t tex, std::uint32_t words,
                                   WarpPattern pattern, std::uint32_t stride, std::uint32_t iterations,
                                   std::uint32_t zero, std::uint64_t* out) {
  extern __shared__ __align__(16) std::uint32_t s_words[];
  __shared__ std::uint32_t sink[32];
  const std::uint32_t lane = threadIdx.x & 31;
  if constexpr (M == WarpMem::shared)
    for (std::uint32_t i = lane; i < words; i += 32) s_words[i] = 0;
  __syncwarp();
  const std::uint32_t sbase = static_cast<std::uint32_t>(__cvta_generic_to_shared(s_words));
  const std::uint32_t my = warp_pattern_index(pattern, lane, stride);
  std::uint64_t sum = 0, empty = 0;
  std::uint32_t j = my;
  for (std::uint32_t it = 0; it <= iterations; ++it) {
    std::uint64_t t0 = read_clock();
    // measurement: the chain starts from the clock value (times `zero`, 0 from the host) and from
    // the last pass's result, so the compiler can neither hoist it out of the loop nor start it
    // before the first clock read.
    j += static_cast<std::uint32_t>(t0) * zero;
#pragma unroll
    for (int k = 0; k < kWarpChain; ++k) j = my + warp_load<M>(g, tex, sbase, j);
    sink[lane] = j;  // measurement: a dependent store keeps the end clock behind the last load
    std::uint64_t t1 = read_clock();
    sink[lane] = j;
    std::uint64_t t2 = read_clock();
    if (it > 0) {
      sum += t1 - t0;
      empty += t2 - t1;
    }
  }
  if (lane == 0) {
    out[0] = sum;
    out[1] = empty;
    out[2] = sink[0];
  }
}

constexpr int kPrivateWords = 16;

// A private array of kPrivateWords per thread. Registers: the chain indexes it with compile-time
// constants only (fully unrolled), so it stays in registers. Local: the index comes from the data
// (run time), which places the array in local memory (LDL/STL in SASS). Each step is one dependent
// access; out as in warp_pattern_chase. `seed` is 0 from the host (the compiler cannot know it).
template <bool Local>
__global__ void private_array_chase(std::uint32_t seed, std::uint32_t iterations, std::uint64_t* out) {
  __shared__ std::uint32_t sink[32];
  const std::uint32_t lane = threadIdx.x & 31;
  std::uint32_t a[kPrivateWords];
#pragma unroll
  for (int i = 0; i < kPrivateWords; ++i) a[i] = (static_cast<std::uint32_t>(i) + 1 + seed) % kPrivateWords;
  std::uint64_t sum = 0, empty = 0;
  std::uint32_t j = seed + lane % kPrivateWords;
  for (std::uint32_t it = 0; it <= iterations; ++it) {
    std::uint64_t t0 = read_clock();
    j = (j + static_cast<std::uint32_t>(t0) * seed) % kPrivateWords;  // measurement: after t0, loop-carried
    if constexpr (Local) {
#pragma unroll
      for (int k = 0; k < 4 * kPrivateWords; ++k) j = a[j];  // run-time index: local memory
    } else {
#pragma unroll
      for (int k = 0; k < 4 * kPrivateWords; ++k) j = a[k % kPrivateWords] + (j & seed);  // constant index
    }
    sink[lane] = j;  // measurement: dependent store before the end clock
    std::uint64_t t1 = read_clock();
    sink[lane] = j;
    std::uint64_t t2 = read_clock();
    if (it > 0) {
      sum += t1 - t0;
      empty += t2 - t1;
    }
  }
  if (lane == 0) {
    out[0] = sum;
    out[1] = empty;
    out[2] = sink[0];
  }
}

constexpr int kPrivateChain = 4 * kPrivateWords;

}  // namespace memhier::kern
