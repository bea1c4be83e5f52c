// Streaming and cache-resident bandwidth kernels (000 §5.1, 004 data-type study).
//   gmem_*      : each thread moves `ilp` independent vectors of type V per step, grid-stride over
//                 a footprint streamed once (DRAM bandwidth when the L2 was flushed before).
//   cached_read : every CTA reads a working set of n vectors over and over (L1 or L2 bandwidth,
//                 chosen by the cache operator), recording per-CTA clock and global-timer stamps.
// V is std::uint32_t, uint2 or uint4 (4, 8, 16 bytes per access).
#pragma once
#include <cstdint>

#include "kernels/clock.cuh"

namespace memhier::kern {

template <typename V>
__device__ __forceinline__ std::uint32_t fold(const V& v) {
  if constexpr (sizeof(V) == 4) {
    return v;
  } else if constexpr (sizeof(V) == 8) {
    return v.x ^ v.y;
  } else {
    return v.x ^ v.y ^ v.z ^ v.w;
  }
}

template <typename V>
__device__ __forceinline__ V splat(std::uint32_t x) {
  if constexpr (sizeof(V) == 4) {
    return x;
  } else if constexpr (sizeof(V) == 8) {
    return make_uint2(x, x);
  } else {
    return make_uint4(x, x, x, x);
  }
}

// Read-only stream: n vectors, each read exactly once by the whole grid.
template <typename V, int ILP>
__global__ void gmem_read(const V* __restrict__ src, std::uint64_t n, std::uint32_t* __restrict__ sink) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x * ILP + threadIdx.x;
  std::uint32_t acc = 0;
  for (; i + (ILP - 1) * blockDim.x < n; i += step * ILP) {
    V v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) v[k] = src[i + k * blockDim.x];  // ILP loads in flight before any use
#pragma unroll
    for (int k = 0; k < ILP; ++k) acc ^= fold(v[k]);
  }
  // The loaded values must reach memory, or the compiler drops the loads; the condition is never
  // true for the data the host writes (all words equal), so no store traffic is added.
  if (acc == 0xFFFFFFFFu) sink[0] = acc;
}

// Write-only stream.
template <typename V, int ILP>
__global__ void gmem_write(V* __restrict__ dst, std::uint64_t n, std::uint32_t value) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x * ILP + threadIdx.x;
  const V v = splat<V>(value);
  for (; i + (ILP - 1) * blockDim.x < n; i += step * ILP) {
#pragma unroll
    for (int k = 0; k < ILP; ++k) dst[i + k * blockDim.x] = v;
  }
}

// Copy: ILP loads issued before the ILP stores that use them.
template <typename V, int ILP>
__global__ void gmem_copy(const V* __restrict__ src, V* __restrict__ dst, std::uint64_t n) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x * ILP + threadIdx.x;
  for (; i + (ILP - 1) * blockDim.x < n; i += step * ILP) {
    V v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) v[k] = src[i + k * blockDim.x];
#pragma unroll
    for (int k = 0; k < ILP; ++k) dst[i + k * blockDim.x] = v[k];
  }
}

// ---- Streaming variants (the DRAM tuning of docs/methodology.md, section throughput) ----
// Access: the cache hint of every load and store of a stream.
//   plain: ordinary ld/st (the compiler's choice; const __restrict__ loads become LDG.CONSTANT)
//   cs   : ld.global.cs / st.global.cs (cache streaming, evict first in L1 and L2)
//   na   : ld.global.nc.L1::no_allocate (loads skip the L1 allocation); plain stores
//   ef   : L1::no_allocate with an L2 evict_first cache policy (createpolicy) on loads and stores
// Layout: grid = grid stride (CTA b's step s covers the s-th grid-wide chunk); chunk = each CTA
// streams one contiguous n / gridDim.x range (a DRAM page is touched by one CTA at a time).
enum class Access : int { plain = 0, cs = 1, na = 2, ef = 3 };
enum class Layout : int { grid = 0, chunk = 1 };

// L2 cache policies (createpolicy, .L2::cache_hint) need sm_80: older targets compile the `ef`
// variant as the plain access (the family registers `ef` only on compute capability >= 8.0).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#define MEMHIER_NO_L2_POLICY 1
#endif

__device__ __forceinline__ std::uint64_t evict_first_policy() {
  std::uint64_t pol = 0;
#ifndef MEMHIER_NO_L2_POLICY
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
#endif
  return pol;
}

template <Access A, typename V>
__device__ __forceinline__ V ld_stream(const V* p, std::uint64_t pol) {
  if constexpr (A == Access::plain || sizeof(V) != 16) {
    return *p;
  } else {
    uint4 v;
    if constexpr (A == Access::cs)
      asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    else if constexpr (A == Access::na)
      asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                   : "l"(p));
    else {
#ifdef MEMHIER_NO_L2_POLICY
      (void)pol;
      return *p;
#else
      asm volatile("ld.global.L1::no_allocate.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                   : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                   : "l"(p), "l"(pol));
#endif
    }
    return v;
  }
}

template <Access A, typename V>
__device__ __forceinline__ void st_stream(V* p, const V& v, std::uint64_t pol) {
  if constexpr (A == Access::plain || A == Access::na || sizeof(V) != 16) {
    *p = v;
  } else if constexpr (A == Access::cs) {
    asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  } else {
#ifdef MEMHIER_NO_L2_POLICY
    (void)pol;
    *p = v;
#else
    asm volatile("st.global.L1::no_allocate.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "r"(v.x),
                 "r"(v.y), "r"(v.z), "r"(v.w), "l"(pol)
                 : "memory");
#endif
  }
}

// Index range of this CTA in a stream of n vectors: first index, stride between steps, end.
// grid : start b * bd * ILP, step gridDim * bd * ILP, end n.
// chunk: start b * (n / gridDim), step bd * ILP, end (b + 1) * (n / gridDim). The caller makes n a
// multiple of gridDim * bd * ILP, so both cover every vector exactly once.
template <Layout L, int ILP>
__device__ __forceinline__ void stream_range(std::uint64_t n, std::uint64_t& i, std::uint64_t& step,
                                             std::uint64_t& end) {
  const std::uint64_t bd = blockDim.x;
  if constexpr (L == Layout::grid) {
    i = blockIdx.x * bd * ILP + threadIdx.x;
    step = static_cast<std::uint64_t>(gridDim.x) * bd * ILP;
    end = n;
  } else {
    const std::uint64_t per = n / gridDim.x;
    i = blockIdx.x * per + threadIdx.x;
    step = bd * ILP;
    end = (blockIdx.x + 1) * per;
  }
}

template <typename V, int ILP, Access A, Layout L>
__global__ void gmem_read_v(const V* __restrict__ src, std::uint64_t n, std::uint32_t* __restrict__ sink) {
  std::uint64_t i, step, end;
  stream_range<L, ILP>(n, i, step, end);
  const std::uint64_t pol = A == Access::ef ? evict_first_policy() : 0;
  const std::uint32_t bd = blockDim.x;
  std::uint32_t acc = 0;
  for (; i + (ILP - 1) * bd < end; i += step) {
    V v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) v[k] = ld_stream<A>(src + i + k * bd, pol);
#pragma unroll
    for (int k = 0; k < ILP; ++k) acc ^= fold(v[k]);
  }
  if (acc == 0xFFFFFFFFu) sink[0] = acc;  // never true for the host's data (see gmem_read)
}

template <typename V, int ILP, Access A, Layout L>
__global__ void gmem_write_v(V* __restrict__ dst, std::uint64_t n, std::uint32_t value) {
  std::uint64_t i, step, end;
  stream_range<L, ILP>(n, i, step, end);
  const std::uint64_t pol = A == Access::ef ? evict_first_policy() : 0;
  const std::uint32_t bd = blockDim.x;
  const V v = splat<V>(value);
  for (; i + (ILP - 1) * bd < end; i += step) {
#pragma unroll
    for (int k = 0; k < ILP; ++k) st_stream<A>(dst + i + k * bd, v, pol);
  }
}

template <typename V, int ILP, Access A, Layout L>
__global__ void gmem_copy_v(const V* __restrict__ src, V* __restrict__ dst, std::uint64_t n) {
  std::uint64_t i, step, end;
  stream_range<L, ILP>(n, i, step, end);
  const std::uint64_t pol = A == Access::ef ? evict_first_policy() : 0;
  const std::uint32_t bd = blockDim.x;
  for (; i + (ILP - 1) * bd < end; i += step) {
    V v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) v[k] = ld_stream<A>(src + i + k * bd, pol);
#pragma unroll
    for (int k = 0; k < ILP; ++k) st_stream<A>(dst + i + k * bd, v[k], pol);
  }
}

// Reads a buffer and keeps nothing (the clean L2 flush: evicts, writing back, whatever lines were
// dirty, and leaves the L2 full of clean lines of this buffer).
template <typename V>
__global__ void read_words(const V* __restrict__ src, std::uint64_t n, std::uint32_t* sink) {
  std::uint32_t acc = 0;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    acc ^= fold(src[i]);
  if (acc == 0xFFFFFFFFu) sink[0] = acc;
}

// Writes `value` over a buffer (the L2 flush between timed samples: a write footprint of at least
// twice the L2 leaves none of the measured data behind).
template <typename T>
__global__ void fill_words(T* dst, std::uint64_t n, T value) {
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    dst[i] = value;
}

// ca: cache in L1 and L2; cg: L2 only; na: the non-coherent (texture) path, no L1 allocation.
enum class CacheOp : int { ca = 0, cg = 1, na = 2 };

template <CacheOp Op>
__device__ __forceinline__ uint4 load_vec(const uint4* p) {
  uint4 v;
  if constexpr (Op == CacheOp::ca) {
    asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else if constexpr (Op == CacheOp::cg) {
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else {
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  }
  return v;
}

// Per-CTA timing record of cached_read (thread 0 after a barrier at both ends).
struct CtaStamp {
  std::uint64_t clk0, clk1;  // SM clock
  std::uint64_t ns0, ns1;    // global timer
  std::uint32_t smid;
  std::uint32_t pad;
};

// CTA b reads a window of `window` vectors of the working set src[0..n) (16-byte vectors),
// starting at vector (b * start_step) mod n and wrapping at n, `rounds` times. Thread t reads
// window offsets t, t + bd, ... (coalesced), ILP loads in flight. The caller guarantees
// blockDim.x * ILP <= window <= n, so one conditional subtract wraps each index.
//   L1 bandwidth: window = n (every CTA reads the whole small working set; each SM's L1 holds it).
//   L2 bandwidth: window = n / CTAs (the CTAs tile the working set; ld.global.cg skips the L1).
// group > 1 (Tile): CTAs b and b + 1 ... of one group of `group` consecutive CTAs (on different SMs,
// which the block scheduler fills round-robin) read the same window in step, so their requests
// for a line reach the L2 side at nearly the same time.
// Tile = false (L1): window == n and start 0, so the second wrap is left out (fewer instructions
// per load, which matters at the L1's 128 bytes per clock).
// phase_step > 0 (Tile, l2_throughput stagger:1): CTA b starts its round at window offset
// (b x phase_step) mod window, rounded down to 32 vectors (warps stay aligned), so CTAs walking in
// step touch different low address bits at any moment.
template <CacheOp Op, int ILP, bool Tile>
__global__ void cached_read(const uint4* __restrict__ src, std::uint32_t n, std::uint32_t window,
                            std::uint32_t start_step, std::uint32_t rounds, CtaStamp* stamps,
                            std::uint32_t* sink, std::uint32_t group = 1, std::uint32_t phase_step = 0) {
  const std::uint32_t bd = blockDim.x;
  const std::uint32_t start =
      Tile ? static_cast<std::uint32_t>((static_cast<std::uint64_t>(blockIdx.x / group) * start_step) % n) : 0u;
  const std::uint32_t steps = (window + bd * ILP - 1) / (bd * ILP);
  // L1 (no Tile): CTAs start at staggered offsets of the working set, so CTAs sharing an SM do not
  // walk it in lockstep (one CTA's misses would otherwise fill the L1 for the others).
  std::uint32_t o =
      Tile ? threadIdx.x
           : static_cast<std::uint32_t>((static_cast<std::uint64_t>(blockIdx.x) * start_step + threadIdx.x) % window);
  if (Tile && phase_step) {
    o += static_cast<std::uint32_t>(static_cast<std::uint64_t>(blockIdx.x) * phase_step % window) & ~31u;
    o = o >= window ? o - window : o;
  }
  std::uint32_t acc = 0;
  __syncthreads();  // measurement: all warps start together
  std::uint64_t c0 = 0, t0 = 0;
  if (threadIdx.x == 0) {
    t0 = read_globaltimer_ns();
    c0 = read_clock();
  }
  for (std::uint32_t r = 0; r < rounds; ++r) {
    for (std::uint32_t s = 0; s < steps; ++s) {
      uint4 v[ILP];
#pragma unroll
      for (int k = 0; k < ILP; ++k) {
        std::uint32_t j = o + k * bd;
        j = j >= window ? j - window : j;
        if constexpr (Tile) {
          j += start;
          j = j >= n ? j - n : j;
        }
        v[k] = load_vec<Op>(src + j);
      }
#pragma unroll
      for (int k = 0; k < ILP; ++k) acc ^= fold(v[k]);
      o += bd * ILP;
      o = o >= window ? o - window : o;
    }
  }
  if (acc == 0xFFFFFFFFu) sink[0] = acc;  // keeps the loads; never true for the host's data
  __syncthreads();  // measurement: the end stamp waits for every warp's last loads
  if (threadIdx.x == 0) {
    CtaStamp st;
    st.clk1 = read_clock();
    st.ns1 = read_globaltimer_ns();
    st.clk0 = c0;
    st.ns0 = t0;
    st.smid = smid();
    st.pad = 0;
    stamps[blockIdx.x] = st;
  }
}

}  // namespace memhier::kern
