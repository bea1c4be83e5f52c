// Shared-memory kernels: shared-to-shared copy throughput timed per CTA with clock reads and
// barriers (000 §6.1), and the one-warp stride chase of bank conflicts (000 §6.2, Listing 4;
// 001 Fig. 5/7) for 4, 8 and 16-byte accesses.
#pragma once
#include <cstdint>

#include "kernels/clock.cuh"

namespace memhier::kern {

template <typename V>
__device__ __forceinline__ V lds(std::uint32_t addr) {
  V v;
  if constexpr (sizeof(V) == 4) {
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  } else if constexpr (sizeof(V) == 8) {
    asm volatile("ld.shared.v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "r"(addr) : "memory");
  } else {
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "r"(addr)
                 : "memory");
  }
  return v;
}

template <typename V>
__device__ __forceinline__ void sts(std::uint32_t addr, const V& v) {
  if constexpr (sizeof(V) == 4) {
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
  } else if constexpr (sizeof(V) == 8) {
    asm volatile("st.shared.v2.u32 [%0], {%1,%2};" ::"r"(addr), "r"(v.x), "r"(v.y) : "memory");
  } else {
    asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  }
}

// Each thread copies ILP vectors of V from region A to region B of dynamic shared memory, `reps`
// times. Layout: vector k of thread t at index k * blockDim.x + t, so a warp's access is
// contiguous (conflict-free). Shared memory used: 2 * ILP * blockDim.x * sizeof(V).
// Inline PTX with volatile keeps every repetition (the compiler would otherwise hoist the loads
// of unchanged data out of the loop).
template <typename V, int ILP>
__global__ void smem_copy(std::uint32_t reps, SmemStamp* stamps) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem_raw));
  const std::uint32_t bd = blockDim.x;
  const std::uint32_t a = base + threadIdx.x * sizeof(V);
  const std::uint32_t b = a + ILP * bd * sizeof(V);
  // Initialise A (every word read later was written: racecheck/initcheck clean).
#pragma unroll
  for (int k = 0; k < ILP; ++k) sts<V>(a + k * bd * sizeof(V), V{});
  __syncthreads();  // measurement: all warps of the CTA start together
  std::uint64_t c0 = 0;
  if (threadIdx.x == 0) c0 = read_clock();
  for (std::uint32_t r = 0; r < reps; ++r) {
    V v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) v[k] = lds<V>(a + k * bd * sizeof(V));
#pragma unroll
    for (int k = 0; k < ILP; ++k) sts<V>(b + k * bd * sizeof(V), v[k]);
  }
  __syncthreads();  // measurement: the end stamp waits for every warp's last copy
  if (threadIdx.x == 0) write_stamp(stamps, c0);
}

template <typename V>
__device__ __forceinline__ std::uint32_t first_word(const V& v) {
  if constexpr (sizeof(V) == 4) {
    return v;
  } else if constexpr (sizeof(V) == 8) {
    return v.x + v.y;  // y is 0: the whole vector is consumed
  } else {
    return v.x + v.y + v.z + v.w;
  }
}

constexpr int kConflictChain = 64;  // dependent accesses per timed region (Listing 4: repeat64)

// One warp; lane l chases element l * stride of an array of V whose element i holds i (other
// words 0), so every access of a lane goes to the same address (Listing 4). out[0] = cycles of the
// timed regions with 64 accesses, out[1] = cycles of the same region with none (clock, store,
// clock), both summed over `iterations` after a first untimed pass. Dynamic shared memory: n
// elements of V.
template <typename V>
__global__ void smem_stride_chase(std::uint32_t n, std::uint32_t stride, std::uint32_t iterations,
                                  std::uint64_t* out) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  V* s = reinterpret_cast<V*>(smem_raw);
  __shared__ std::uint32_t sink[32];
  const std::uint32_t lane = threadIdx.x & 31;
  for (std::uint32_t i = lane; i < n; i += 32) {
    V v{};
    if constexpr (sizeof(V) == 4) {
      v = i;
    } else {
      v.x = i;
    }
    s[i] = v;
  }
  __syncwarp();
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(s));
  std::uint64_t sum = 0, empty = 0;
  for (std::uint32_t it = 0; it <= iterations; ++it) {
    std::uint32_t idx = lane * stride;
    std::uint64_t t0 = read_clock();
#pragma unroll
    for (int k = 0; k < kConflictChain; ++k) idx = first_word(lds<V>(base + idx * sizeof(V)));
    sink[lane] = idx;  // measurement: a dependent store keeps the end clock behind the last load
    std::uint64_t t1 = read_clock();
    sink[lane] = idx;  // the empty region: the same store between two clock reads
    std::uint64_t t2 = read_clock();
    if (it > 0) {  // the first pass is untimed (Listing 4 line 3)
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

}  // namespace memhier::kern
