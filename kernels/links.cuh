// Kernels of the host and peer families (docs/methodology.md, "Levels beyond one SM"): memory
// reached over a link — pinned, mapped host memory over PCIe, managed memory that migrates on a
// page fault, another GPU's memory over NVLink.
//   link_chase_kernel  : one thread chases j = A[j] with ld.global.cg (the L1 never holds a line, so
//                        the L2 or the link answers), timed like the classic P-chase (pchase.cuh):
//                        one clock read before `iters` dependent loads, a dependent shared store,
//                        one clock read after; the clock-pair overhead is measured in the same
//                        kernel and removed on the host
//   link_read_kernel   : every thread streams 16-byte vectors (ILP independent loads in flight)
//   link_write_kernel  : every thread stores 16-byte vectors
//   managed_touch_kernel: one thread loads one word per `stride` bytes in order, each load timed
//                        alone (a page fault and its migration when the page is not on the device)
#pragma once
#include <cstdint>

#include "kernels/clock.cuh"

namespace memhier::kern {

constexpr int kLinkPairSamples = 32;

struct LinkChaseOut {
  unsigned long long cycles;  // timed loop in SM cycles (clock64), clock overhead included
  unsigned long long ns;      // the same window in %globaltimer nanoseconds
  unsigned long long done;    // timed accesses
  std::uint32_t last;         // last index loaded (keeps the chain alive)
  std::uint32_t pair[kLinkPairSamples];  // two consecutive clock reads, cycles (the overhead)
};

// A load that the L1 does not keep (cache global: L2 and below); volatile so that the warm pass,
// whose result only feeds the next load, is never dropped.
__device__ __forceinline__ std::uint32_t ld_cg_u32(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// One thread (thread 0 of block 0). warm: `iters` untimed accesses from `start` first (the same
// accesses the timed pass makes); timed: then `iters` timed accesses from `start` again.
static __global__ void link_chase_kernel(const std::uint32_t* a, std::uint32_t start, std::uint32_t iters, int warm,
                                  int timed, LinkChaseOut* out) {
  __shared__ std::uint32_t s_sink;  // target of the dependent stores
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  std::uint32_t pair[kLinkPairSamples];
  for (int k = 0; k < kLinkPairSamples; ++k) {
    const std::uint64_t t0 = read_clock();
    const std::uint64_t t1 = read_clock();
    pair[k] = static_cast<std::uint32_t>(t1 - t0);
  }
  std::uint32_t j = start;
  if (warm) {
    for (std::uint32_t k = 0; k < iters; ++k) j = ld_cg_u32(a + j);
    // dependent store: the last warm load has completed before the timed window opens
    store_shared(&s_sink, j);
  }
  unsigned long long cycles = 0, ns = 0, done = 0;
  if (timed) {
    j = start;
    const std::uint64_t t0 = read_clock();
    const std::uint64_t g0 = read_globaltimer_ns();
#pragma unroll 4
    for (std::uint32_t k = 0; k < iters; ++k) j = ld_cg_u32(a + j);
    store_shared(&s_sink, j);  // dependent store: the clock read below waits for the last load
    const std::uint64_t t1 = read_clock();
    const std::uint64_t g1 = read_globaltimer_ns();
    cycles = t1 - t0;
    ns = g1 - g0;
    done = iters;
  }
  out->cycles = cycles;
  out->ns = ns;
  out->done = done;
  out->last = j;
  for (int k = 0; k < kLinkPairSamples; ++k) out->pair[k] = pair[k];
}

__device__ __forceinline__ std::uint32_t fold4(const uint4& v) { return v.x ^ v.y ^ v.z ^ v.w; }

// Read stream of n 16-byte vectors, each read once by the whole grid: ILP loads in flight per
// thread before any use; ld.global.cg (no L1 allocation).
template <int ILP>
__global__ void link_read_kernel(const uint4* __restrict__ src, std::uint64_t n, std::uint32_t* __restrict__ sink) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  std::uint32_t acc = 0;
  for (; i + (ILP - 1) * step < n; i += ILP * step) {
    uint4 v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) v[k] = __ldcg(src + i + k * step);
#pragma unroll
    for (int k = 0; k < ILP; ++k) acc ^= fold4(v[k]);
  }
  for (; i < n; i += step) acc ^= fold4(__ldcg(src + i));
  // The values must reach memory or the loads go; the condition is practically never true.
  if (acc == 0x9E3779B9u) sink[0] = acc;
}

// Write stream of n 16-byte vectors.
template <int ILP>
__global__ void link_write_kernel(uint4* __restrict__ dst, std::uint64_t n, std::uint32_t value) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint4 v = make_uint4(value, value, value, value);
  for (; i + (ILP - 1) * step < n; i += ILP * step) {
#pragma unroll
    for (int k = 0; k < ILP; ++k) dst[i + k * step] = v;
  }
  for (; i < n; i += step) dst[i] = v;
}

struct ManagedTouchOut {
  unsigned long long sum;    // cycles of all touches, clock overhead included
  unsigned long long max;    // the slowest touch
  unsigned long long count;  // touches
  std::uint32_t overhead;    // clock read, dependent shared store, clock read (min of 16)
  std::uint32_t last;
};

// One thread touches one word every `stride_words` words of p, in order, `count` times; each
// touch timed alone (clock, load, dependent shared store, clock).
static __global__ void managed_touch_kernel(const std::uint32_t* p, std::uint64_t count, std::uint64_t stride_words,
                                     ManagedTouchOut* out) {
  __shared__ std::uint32_t s_sink;
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  std::uint32_t overhead = 0xFFFFFFFFu, j = 0;
  for (int k = 0; k < 16; ++k) {
    const std::uint64_t t0 = read_clock();
    j = j * 1664525u + 1013904223u;  // stands in for the load's result
    store_shared(&s_sink, j);
    const std::uint64_t t1 = read_clock();
    const auto c = static_cast<std::uint32_t>(t1 - t0);
    overhead = c < overhead ? c : overhead;
  }
  unsigned long long sum = 0, mx = 0;
  std::uint32_t acc = 0;
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::uint64_t t0 = read_clock();
    const std::uint32_t v = ld_cg_u32(p + k * stride_words);
    store_shared(&s_sink, v);  // dependent store before the second clock read
    const std::uint64_t t1 = read_clock();
    const unsigned long long c = t1 - t0;
    sum += c;
    mx = c > mx ? c : mx;
    acc ^= v;
    asm volatile("" ::"l"(sum), "l"(mx) : "memory");  // bookkeeping stays out of the next window
  }
  out->sum = sum;
  out->max = mx;
  out->count = count;
  out->overhead = overhead;
  out->last = acc;
}

}  // namespace memhier::kern
