// Cache sharing (003 §4.5) and caches per SM (003 §4.6): does streaming data through one path (the
// evictor) remove another path's data (the victim) from its cache? docs/methodology.md, section
// requests_sharing_partitions.
//   thread 0     : walks the victim chain once (fill)
//   evictor group: streams the evictor array (independent loads), lanes 1..31 of warp 0 (cache
//                  sharing: the same warp, hence the same slice) or all of warp w (caches per SM)
//   thread 0     : walks the victim chain again, each access timed (clock, load, dependent shared
//                  store, clock): sum of cycles and accesses at or above the miss threshold
// The loads are load_paths.cuh's (inline PTX or tex1Dfetch / ld.const), so the path is fixed.
#pragma once
#include <cstdint>

#include "kernels/clock.cuh"
#include "kernels/load_paths.cuh"

namespace memhier::kern {

struct ShareArgs {
  LoadSource victim;            // global array / texture of the victim (constant: c_chase)
  std::uint32_t victim_start;   // first element of the victim chain
  std::uint32_t victim_accesses;  // the chain's length: a cycle of exactly this many elements
  LoadSource evictor;
  std::uint32_t evictor_first;  // first element of the evictor stream
  std::uint32_t evictor_elems;  // elements streamed: [first, first + elems)
  std::uint32_t evictor_stride; // elements between two loads of one thread
  std::uint32_t evictor_thread; // first thread of the evictor group
  std::uint32_t evictor_threads;
  std::uint32_t miss_threshold; // cycles (after the overhead is removed)
  std::uint32_t overhead;       // cycles subtracted from every sample
  unsigned long long* out;      // [0] cycles, [1] misses, [2] accesses, [3] keeps the loads
};

constexpr int kEvictorIlp = 4;

// The dependent store of a timed access (as pchase.cuh's store_shared, which this header does not
// include: pchase.cuh defines non-template kernels that must live in one translation unit).
__device__ __forceinline__ void share_store(std::uint32_t* p, std::uint32_t v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(p))), "r"(v)
               : "memory");
}

template <LoadPath E>
__device__ __forceinline__ std::uint32_t stream_evictor(const ShareArgs& a, std::uint32_t g) {
  std::uint32_t acc = 0;
  const std::uint32_t step = a.evictor_threads * a.evictor_stride;
  const std::uint32_t end = a.evictor_first + a.evictor_elems;
  for (std::uint32_t i = a.evictor_first + g * a.evictor_stride; i < end; i += kEvictorIlp * step) {
    std::uint32_t v[kEvictorIlp];
#pragma unroll
    for (int k = 0; k < kEvictorIlp; ++k) {
      const std::uint32_t j = i + k * step;
      v[k] = j < end ? load_next<E>(a.evictor, j) : 0u;  // independent loads, kEvictorIlp in flight
    }
#pragma unroll
    for (int k = 0; k < kEvictorIlp; ++k) acc ^= v[k];
  }
  return acc;
}

template <LoadPath V, LoadPath E, bool Evict>
__global__ void sharing_kernel(ShareArgs a) {
  __shared__ std::uint32_t s_sink;  // target of the dependent store of each timed access
  const std::uint32_t tid = threadIdx.x;
  std::uint32_t j = a.victim_start;
  // fill: the re-read below goes on from the element this walk ends on (the chain is a cycle of
  // victim_accesses elements, so it is victim_start again). That dependence is what keeps the fill:
  // a walk whose last value nobody used was removed by ptxas (inline PTX loads with dead results
  // are not volatile to it) and the re-read was the first touch (H100: 0.75 misses at 32-byte
  // steps, 0.50 for the constant caches at 64-byte steps, whatever the evictor).
  if (tid == 0)
    for (std::uint32_t k = 0; k < a.victim_accesses; ++k) j = load_next<V>(a.victim, j);
  __syncthreads();
  std::uint32_t keep = 0;
  if (Evict && tid >= a.evictor_thread && tid < a.evictor_thread + a.evictor_threads)
    keep = stream_evictor<E>(a, tid - a.evictor_thread);
  __syncthreads();
  if (tid == 0) {
    unsigned long long sum = 0, misses = 0;
    for (std::uint32_t k = 0; k < a.victim_accesses; ++k) {
      const std::uint64_t t0 = read_clock();
      j = load_next<V>(a.victim, j);
      share_store(&s_sink, j);  // measurement: the end clock waits for the load
      const std::uint64_t t1 = read_clock();
      std::uint32_t lat = static_cast<std::uint32_t>(t1 - t0);
      lat = lat > a.overhead ? lat - a.overhead : 0u;
      sum += lat;
      misses += lat >= a.miss_threshold;
      asm volatile("" ::"l"(sum), "l"(misses) : "memory");  // bookkeeping stays out of the next sample
    }
    a.out[0] = sum;
    a.out[1] = misses;
    a.out[2] = a.victim_accesses;
    a.out[3] = j;
  }
  if (keep == 0x9E3779B9u) a.out[3] = keep;  // keeps the evictor's loads; practically never written
}

}  // namespace memhier::kern
