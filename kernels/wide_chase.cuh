// Whole-memory chases (tlb and latency_spectrum families; docs/methodology.md, tlb): one thread
// follows 64-bit pointers p = *p over footprints up to the device's free memory and times every
// access as the fine-grained P-chase does (000 Listing 3): clock read, the load, a dependent
// shared store, clock read. Chains are written on the GPU from their parameters
// (common/wide_chain.hpp), never copied from the host.
//   count: latency histogram, exact sum and sum of squares, and the sums of 64 consecutive blocks
//          of the recorded accesses (their spread gives the interval of the mean), in shared memory
//   fine:  the latency of each of the first max_records recorded accesses, in shared memory
// `warm` accesses run through the same timed code first and are not recorded: they load the data
// lines and translations and the loop's instructions (a first timed access of a cold loop read
// ~+600 cycles in the 32-bit TLB sweep of the H100).
#pragma once
#include <cstdint>

#include "common/wide_chain.hpp"
#include "kernels/clock.cuh"
#include "kernels/load_paths.cuh"

namespace memhier::kern {

constexpr unsigned kWideBlockCount = 64;  // bench/wide/wide_common.hpp kWideBlocks
enum class WideMode : int { count = 0, fine = 1 };

struct WideLaunch {
  const unsigned long long* start;   // the first element
  std::uint64_t warm;                // accesses before recording
  std::uint64_t iters;               // recorded accesses
  std::uint64_t block_len;           // recorded accesses per block (iters <= 64 * block_len)
  std::uint32_t overhead;            // cycles removed from each sample (clamped at 0)
  std::uint32_t bin_width, bins;     // count
  std::uint32_t max_records;         // fine
  unsigned long long* out_sums;      // [0] sum, [1] sum of squares
  unsigned long long* out_blocks;    // kWideBlockCount sums of block_len consecutive recorded accesses
  unsigned long long* out_hist;      // count: bins
  std::uint32_t* out_latency;        // fine: max_records
  unsigned long long* out_last;      // the pointer after the last access (chain check)
  int* out_smid;
};

template <LoadPath P>
__device__ __forceinline__ const unsigned long long* load_wide(const unsigned long long* p) {
  unsigned long long v;
  if constexpr (P == LoadPath::global_ca) {
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  } else {
    static_assert(P == LoadPath::global_cg, "whole-memory chases run on global_ca or global_cg");
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  }
  return reinterpret_cast<const unsigned long long*>(v);
}

// Dynamic shared memory: count: bins u32 counters; fine: max_records u32 latencies.
template <LoadPath P, WideMode M>
__global__ void wide_chase_kernel(WideLaunch L) {
  extern __shared__ std::uint32_t s_data[];
  __shared__ unsigned long long s_blocks[kWideBlockCount];
  __shared__ std::uint32_t s_sink;  // target of the dependent store
  if constexpr (M == WideMode::count)
    for (std::uint32_t i = threadIdx.x; i < L.bins; i += blockDim.x) s_data[i] = 0;
  for (std::uint32_t i = threadIdx.x; i < kWideBlockCount; i += blockDim.x) s_blocks[i] = 0;
  __syncthreads();
  if (threadIdx.x != 0 || blockIdx.x != 0) return;

  const unsigned long long* p = L.start;
  unsigned long long sum = 0, sumsq = 0;
  const std::uint64_t total = L.warm + L.iters;
  for (std::uint64_t k = 0; k < total; ++k) {
    const std::uint64_t t0 = read_clock();
    p = load_wide<P>(p);
    // dependent store before the second clock read (000 Listing 3, line 10): the clock read
    // cannot overtake the load
    store_shared(&s_sink, static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(p)));
    const std::uint64_t t1 = read_clock();
    if (k >= L.warm) {
      std::uint32_t lat = static_cast<std::uint32_t>(t1 - t0);
      lat = lat > L.overhead ? lat - L.overhead : 0u;
      const std::uint64_t i = k - L.warm;
      sum += lat;
      sumsq += static_cast<unsigned long long>(lat) * lat;
      s_blocks[i / L.block_len] += lat;
      if constexpr (M == WideMode::count) {
        const std::uint32_t b = lat / L.bin_width;
        s_data[b < L.bins ? b : L.bins - 1] += 1;
      } else {
        if (i < L.max_records) s_data[i] = lat;
      }
    }
    // keeps this sample's bookkeeping out of the next sample's timed window (kernels/pchase.cuh)
    asm volatile("" ::"l"(sum) : "memory");
  }
  L.out_sums[0] = sum;
  L.out_sums[1] = sumsq;
  for (unsigned b = 0; b < kWideBlockCount; ++b) L.out_blocks[b] = s_blocks[b];
  *L.out_last = reinterpret_cast<unsigned long long>(p);
  *L.out_smid = static_cast<int>(smid());
  if constexpr (M == WideMode::count) {
    for (std::uint32_t b = 0; b < L.bins; ++b) L.out_hist[b] = s_data[b];
  } else {
    const std::uint64_t n = L.iters < L.max_records ? L.iters : L.max_records;
    for (std::uint64_t i = 0; i < n; ++i) L.out_latency[i] = s_data[i];
  }
}

// Writes a uniform chain: element g holds the address of element g + 1 (the last, of element 0).
__global__ void wide_init_kernel(char* base, WideChain c) {
  const std::uint64_t n = wide_elements(c);
  for (std::uint64_t g = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; g < n;
       g += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t next = g + 1 == n ? 0 : g + 1;
    auto* at = reinterpret_cast<unsigned long long*>(base + wide_map(c, wide_position(c, g)));
    *at = reinterpret_cast<unsigned long long>(base + wide_map(c, wide_position(c, next)));
  }
}

// Writes an explicit chain (logical byte offsets `pos`, visited in order, cyclic).
__global__ void wide_scatter_kernel(char* base, const unsigned long long* pos, std::uint64_t n, WideChain c) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t next = i + 1 == n ? 0 : i + 1;
    auto* at = reinterpret_cast<unsigned long long*>(base + wide_map(c, pos[i]));
    *at = reinterpret_cast<unsigned long long>(base + wide_map(c, pos[next]));
  }
}

// Cold runs: reads one word every `step` logical bytes of [begin, end) through L2 (ld.global.cg),
// so that the translations of that region replace those the chain's initialisation left behind.
__global__ void wide_touch_kernel(const char* base, std::uint64_t begin, std::uint64_t end, std::uint64_t step,
                                  WideChain c, unsigned* sink) {
  unsigned acc = 0;
  const std::uint64_t n = end > begin ? (end - begin) / step : 0;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    unsigned v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(base + wide_map(c, begin + i * step)) : "memory");
    acc += v;
  }
  if (acc == 0x9E3779B9u) *sink = acc;  // keeps the loads; practically never written
}

}  // namespace memhier::kern
