// Asynchronous copies from global memory into shared memory (docs/methodology.md, "Levels beyond
// one SM", async_copy): four methods of moving a chunk of B bytes,
//   plain    — 16-byte ld.global.cg into registers, then st.shared (every thread);
//   cp_async — 16-byte cp.async.cg per thread, commit_group / wait_group (LDGSTS, 8.0+);
//   bulk     — one thread: cp.async.bulk.shared::cluster.global completing on an mbarrier (9.0+);
//   tensor   — one thread: cp.async.bulk.tensor.2d through a tensor map (TMA, 9.0+);
// and the multicast form of the bulk copy (.multicast::cluster: one CTA's issue lands in every CTA
// of its cluster). Kernels: async_copy_bandwidth<M> (a persistent grid, `stages` chunks in flight
// per CTA), async_copy_latency<M> (one CTA, one chunk at a time, each timed), async_copy_multicast.
// No kernel reads the shared memory the copies write: what is measured is the data landing.
//
// PTX forms are those of the PTX ISA 8.x (the strings of CCCL's cuda::ptx where it has them).
// cp.async is guarded by __CUDA_ARCH__ >= 800, the bulk, tensor and mbarrier instructions by
// >= 900; below that the kernels are empty and the host refuses the method. The multicast
// qualifier is built only for architecture-specific targets (sm_90a, sm_100a/f, ...): on plain
// sm_90 ptxas warns that it "is expected to have substantially reduced performance on some future
// architectures"; multicast_probe tells the host whether the running image has it.
#pragma once
#include <cuda.h>  // CUtensorMap (a plain struct: no link to libcuda)

#include <cstdint>

#include "kernels/clock.cuh"

#if defined(__CUDA_ARCH__) &&                                                                                \
    (defined(__CUDA_ARCH_FEAT_SM90_ALL) ||                                                                   \
     (defined(__CUDA_ARCH_SPECIFIC__) && (__CUDA_ARCH_SPECIFIC__ == 900 || __CUDA_ARCH_SPECIFIC__ == 1000 || \
                                          __CUDA_ARCH_SPECIFIC__ == 1030 || __CUDA_ARCH_SPECIFIC__ == 1100)) || \
     (defined(__CUDA_ARCH_FAMILY_SPECIFIC__) &&                                                              \
      (__CUDA_ARCH_FAMILY_SPECIFIC__ == 1000 || __CUDA_ARCH_FAMILY_SPECIFIC__ == 1030 ||                     \
       __CUDA_ARCH_FAMILY_SPECIFIC__ == 1100)))
#define MEMHIER_MULTICAST_BUILT 1
#else
#define MEMHIER_MULTICAST_BUILT 0
#endif

namespace memhier::kern {

enum class CopyMethod : int { plain = 0, cp_async = 1, bulk = 2, tensor = 3 };

constexpr int kCopyThreads = 256;        // threads per CTA of the bandwidth and latency kernels
constexpr int kCopyMaxStages = 4;        // stages (mbarriers) per CTA
constexpr int kCopyMaxVecs = 4;          // plain: 16-byte vectors per thread and chunk (16 KiB / 256 threads)
constexpr std::uint32_t kTensorRowBytes = 256;  // tensor map: rows of 64 4-byte elements; a chunk is B / 256 rows
constexpr std::uint32_t kCopyAlign = 1024;      // stage buffers start at this alignment (tensor copies need 128)

// The work of one launch: `passes` times over `per_worker` chunks per worker (a CTA, or a cluster
// for multicast): worker w's share is the contiguous chunks first_chunk + w * per_worker + [0,
// per_worker), its j-th chunk the (j mod per_worker)-th of them.
struct CopyArgs {
  const unsigned char* src;
  unsigned long long first_chunk;
  unsigned long long per_worker;
  std::uint32_t passes;
  std::uint32_t chunk_bytes;  // multiple of 16 (bulk: of 16 per slice; tensor: of 256)
  std::uint32_t stages;       // 1..kCopyMaxStages
  std::uint32_t samples;      // latency kernel: timed chunks
  unsigned long long* out;    // latency kernel: [0] summed cycles less overhead, [1] samples, [2] overhead
};

// Walks worker w's share chunk by chunk, wrapping at its end. No division in the loops: a 64-bit
// modulo per chunk is a few hundred cycles of dependent integer work in the issuing thread (the
// first H100/H200 runs moved one chunk per ~885 cycles per CTA whatever the stages, until the
// loops counted incrementally).
struct ChunkCursor {
  unsigned long long first, pos = 0, per;
  __device__ ChunkCursor(const CopyArgs& a, unsigned w)
      : first(a.first_chunk + static_cast<unsigned long long>(w) * a.per_worker), per(a.per_worker) {}
  __device__ __forceinline__ unsigned long long next() {
    const unsigned long long c = first + pos;
    pos = pos + 1 == per ? 0 : pos + 1;
    return c;
  }
};

// A stage index and its mbarrier phase parity, advanced chunk by chunk.
struct StageCursor {
  std::uint32_t stage = 0, parity = 0, stages;
  __device__ explicit StageCursor(std::uint32_t n) : stages(n) {}
  __device__ __forceinline__ void advance() {
    if (++stage == stages) {
      stage = 0;
      parity ^= 1u;
    }
  }
};

// ---- instruction wrappers ----

__device__ __forceinline__ std::uint32_t copy_smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// barrier.cluster.arrive (.release by default) and barrier.cluster.wait (.acquire by default) by
// every thread (kernels/dsmem.cuh has the same for the dsmem kernels).
__device__ __forceinline__ void copy_cluster_sync() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive;" ::: "memory");
  asm volatile("barrier.cluster.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ uint4 ldg_cg_v4(const void* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p)
               : "memory");
  return v;
}

__device__ __forceinline__ void sts_v4(std::uint32_t addr, const uint4& v) {
  asm volatile("st.shared.v4.u32 [%0], {%1,%2,%3,%4};" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
}

__device__ __forceinline__ void cp_async16(std::uint32_t dst, const void* src) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
#endif
}

__device__ __forceinline__ void cp_async_commit() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

// cp.async.wait_group takes an immediate: at most n groups of this thread still pending.
__device__ __forceinline__ void cp_async_wait_pending(std::uint32_t n) {
#if __CUDA_ARCH__ >= 800
  switch (n) {
    case 0: asm volatile("cp.async.wait_group 0;" ::: "memory"); break;
    case 1: asm volatile("cp.async.wait_group 1;" ::: "memory"); break;
    case 2: asm volatile("cp.async.wait_group 2;" ::: "memory"); break;
    default: asm volatile("cp.async.wait_group 3;" ::: "memory"); break;
  }
#endif
}

__device__ __forceinline__ void cp_async_wait_all() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

__device__ __forceinline__ void mbar_init(std::uint32_t bar, std::uint32_t count) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
#endif
}

// After mbarrier.init: the initialisation visible to the cluster (remote complete_tx of multicast)
// and to the async proxy (the copy engine signals completion through it).
__device__ __forceinline__ void mbar_init_fence() {
#if __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// Arrives once and expects `bytes` of transactions in the current phase.
__device__ __forceinline__ void mbar_arrive_expect_tx(std::uint32_t bar, std::uint32_t bytes) {
#if __CUDA_ARCH__ >= 900
  unsigned long long state;
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %0, [%1], %2;"
               : "=l"(state)
               : "r"(bar), "r"(bytes)
               : "memory");
  asm volatile("" ::"l"(state));  // the arrival's state token is not needed
#endif
}

// Waits until the phase of parity `parity` of the mbarrier has completed.
__device__ __forceinline__ void mbar_wait(std::uint32_t bar, std::uint32_t parity) {
#if __CUDA_ARCH__ >= 900
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred P_OUT;\n\t"
        "mbarrier.try_wait.parity.shared::cta.b64 P_OUT, [%1], %2;\n\t"
        "selp.b32 %0, 1, 0, P_OUT;\n\t}"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
  } while (!done);
#endif
}

__device__ __forceinline__ void bulk_g2s(std::uint32_t dst, const void* src, std::uint32_t bytes, std::uint32_t bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(dst), "l"(src), "r"(bytes), "r"(bar)
               : "memory");
#endif
}

__device__ __forceinline__ void tensor_g2s(std::uint32_t dst, const CUtensorMap* map, int x, int y, std::uint32_t bar) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
      ::"r"(dst), "l"(map), "r"(x), "r"(y), "r"(bar)
      : "memory");
#endif
}

// `bytes` from src to the same CTA-relative offset `dst` in every CTA of ctaMask, each completing
// `bytes` of transactions on the mbarrier at offset `bar` of its CTA.
__device__ __forceinline__ void bulk_g2s_multicast(std::uint32_t dst, const void* src, std::uint32_t bytes,
                                                   std::uint32_t bar, std::uint16_t mask) {
#if MEMHIER_MULTICAST_BUILT
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1], %2, [%3], %4;"
      ::"r"(dst), "l"(src), "r"(bytes), "r"(bar), "h"(mask)
      : "memory");
#endif
}

// ---- the per-method copy of one chunk into a stage ----

// Dynamic shared memory: the stage buffers from the first kCopyAlign boundary.
__device__ __forceinline__ std::uint32_t stage_base(const void* raw) {
  return (copy_smem_addr(raw) + kCopyAlign - 1) & ~(kCopyAlign - 1);
}

// Every thread: its 16-byte vectors of the chunk (cp.async).
__device__ __forceinline__ void issue_cp_async(const unsigned char* src, std::uint32_t dst, std::uint32_t bytes) {
  for (std::uint32_t i = threadIdx.x; i < bytes / 16; i += blockDim.x) cp_async16(dst + i * 16, src + i * 16ull);
}

// One thread: expect the chunk's bytes on `bar`, then issue its bulk or tensor copy.
template <CopyMethod M>
__device__ __forceinline__ void issue_engine(const CUtensorMap* map, const unsigned char* base, unsigned long long chunk,
                                             std::uint32_t bytes, std::uint32_t dst, std::uint32_t bar) {
  mbar_arrive_expect_tx(bar, bytes);
  if constexpr (M == CopyMethod::tensor)
    tensor_g2s(dst, map, 0, static_cast<int>(chunk * (bytes / kTensorRowBytes)), bar);
  else
    bulk_g2s(dst, base + chunk * bytes, bytes, bar);
}

// plain: up to kCopyMaxStages chunks (the cursor's next n, into stages 0 .. n-1) loaded into
// registers by every thread, then stored; n * vectors per thread loads in flight.
__device__ __forceinline__ void plain_group(const CopyArgs& a, ChunkCursor& cur, std::uint32_t n, std::uint32_t base) {
  const std::uint32_t vecs = a.chunk_bytes / 16;
  uint4 v[kCopyMaxStages][kCopyMaxVecs] = {};
#pragma unroll
  for (int s = 0; s < kCopyMaxStages; ++s) {
    if (static_cast<std::uint32_t>(s) >= n) break;
    const unsigned char* p = a.src + cur.next() * a.chunk_bytes;
#pragma unroll
    for (int k = 0; k < kCopyMaxVecs; ++k) {
      const std::uint32_t i = k * blockDim.x + threadIdx.x;
      if (i < vecs) v[s][k] = ldg_cg_v4(p + i * 16ull);
    }
  }
#pragma unroll
  for (int s = 0; s < kCopyMaxStages; ++s) {
    if (static_cast<std::uint32_t>(s) >= n) break;
#pragma unroll
    for (int k = 0; k < kCopyMaxVecs; ++k) {
      const std::uint32_t i = k * blockDim.x + threadIdx.x;
      if (i < vecs) sts_v4(base + s * a.chunk_bytes + i * 16, v[s][k]);
    }
  }
}

// ---- bandwidth ----

__device__ __forceinline__ void bandwidth_plain(const CopyArgs& a, unsigned long long n, std::uint32_t base) {
  ChunkCursor cur(a, blockIdx.x);
  for (unsigned long long j0 = 0; j0 < n; j0 += a.stages) {
    const auto left = static_cast<std::uint32_t>(n - j0 < a.stages ? n - j0 : a.stages);
    plain_group(a, cur, left, base);
    __syncthreads();  // the group has landed: every stage is usable
  }
}

// Chunk j goes to stage j mod stages; chunk j + stages is issued once chunk j has landed.
__device__ __forceinline__ void bandwidth_cp_async(const CopyArgs& a, unsigned long long n, std::uint32_t base) {
  ChunkCursor cur(a, blockIdx.x);
  for (std::uint32_t s = 0; s < a.stages; ++s) {
    if (s < n) issue_cp_async(a.src + cur.next() * a.chunk_bytes, base + s * a.chunk_bytes, a.chunk_bytes);
    cp_async_commit();  // one group per stage, empty or not: the group count stays stages + j
  }
  StageCursor st(a.stages);  // the stage of chunk j
  for (unsigned long long j = 0; j < n; ++j) {
    cp_async_wait_pending(a.stages - 1);  // this thread's part of chunk j has landed
    __syncthreads();                      // every thread's: chunk j is usable
    if (j + a.stages < n) issue_cp_async(a.src + cur.next() * a.chunk_bytes, base + st.stage * a.chunk_bytes, a.chunk_bytes);
    cp_async_commit();
    st.advance();
  }
  cp_async_wait_all();
}

template <CopyMethod M>
__device__ __forceinline__ void bandwidth_engine(const CopyArgs& a, const CUtensorMap* map, unsigned long long n,
                                                 std::uint32_t base, std::uint32_t bars) {
  if (threadIdx.x != 0) return;
  for (std::uint32_t s = 0; s < a.stages; ++s) mbar_init(bars + 8 * s, 1);
  mbar_init_fence();
  ChunkCursor cur(a, blockIdx.x);
  for (std::uint32_t s = 0; s < a.stages && s < n; ++s)
    issue_engine<M>(map, a.src, cur.next(), a.chunk_bytes, base + s * a.chunk_bytes, bars + 8 * s);
  StageCursor st(a.stages);  // the stage of chunk j and its phase
  for (unsigned long long j = 0; j < n; ++j) {
    mbar_wait(bars + 8 * st.stage, st.parity);
    if (j + a.stages < n)
      issue_engine<M>(map, a.src, cur.next(), a.chunk_bytes, base + st.stage * a.chunk_bytes, bars + 8 * st.stage);
    st.advance();
  }
}

// Persistent grid of kCopyThreads-thread CTAs; dynamic shared memory: stages * chunk_bytes + kCopyAlign.
template <CopyMethod M>
__global__ void async_copy_bandwidth(CopyArgs a, const __grid_constant__ CUtensorMap map) {
  extern __shared__ __align__(16) unsigned char copy_raw[];
  __shared__ __align__(8) unsigned long long copy_bars[kCopyMaxStages];
  const std::uint32_t base = stage_base(copy_raw);
  const unsigned long long n = a.per_worker * a.passes;
  if constexpr (M == CopyMethod::plain) {
    bandwidth_plain(a, n, base);
  } else if constexpr (M == CopyMethod::cp_async) {
#if __CUDA_ARCH__ >= 800
    bandwidth_cp_async(a, n, base);
#endif
  } else {
#if __CUDA_ARCH__ >= 900
    bandwidth_engine<M>(a, &map, n, base, copy_smem_addr(copy_bars));
#endif
  }
  (void)map;
  (void)copy_bars;
  __syncthreads();
}

// ---- latency ----

// One chunk from global memory into stage 0, waited for: every thread takes part, the issuing
// thread of the engines waits on the mbarrier; the caller's __syncthreads makes it the CTA's.
template <CopyMethod M>
__device__ __forceinline__ void copy_one(const CopyArgs& a, const CUtensorMap* map, unsigned long long chunk,
                                         std::uint32_t base, std::uint32_t bar, std::uint32_t parity) {
  if constexpr (M == CopyMethod::plain) {
    CopyArgs one = a;
    one.first_chunk = chunk;
    one.per_worker = 1;
    ChunkCursor cur(one, 0);
    plain_group(one, cur, 1, base);
  } else if constexpr (M == CopyMethod::cp_async) {
    issue_cp_async(a.src + chunk * a.chunk_bytes, base, a.chunk_bytes);
    cp_async_commit();
    cp_async_wait_pending(0);
  } else if (threadIdx.x == 0) {
    issue_engine<M>(map, a.src, chunk, a.chunk_bytes, base, bar);
    mbar_wait(bar, parity);
  }
}

// One CTA of kCopyThreads threads: a.samples chunks, chunk k = k mod per_worker of the region
// (L2-resident after an identical warm launch), each from a barrier to the barrier after it has
// landed, timed by thread 0; the same two barriers with nothing between are the clock overhead.
template <CopyMethod M>
__global__ void async_copy_latency(CopyArgs a, const __grid_constant__ CUtensorMap map) {
  extern __shared__ __align__(16) unsigned char copy_raw[];
  __shared__ __align__(8) unsigned long long copy_bar;
  const std::uint32_t base = stage_base(copy_raw);
  const std::uint32_t bar = copy_smem_addr(&copy_bar);
  if constexpr (M == CopyMethod::bulk || M == CopyMethod::tensor) {
    if (threadIdx.x == 0) {
      mbar_init(bar, 1);
      mbar_init_fence();
    }
  }
  std::uint64_t ovh = ~0ull;
  for (int k = 0; k < 16; ++k) {
    __syncthreads();
    const std::uint64_t t0 = read_clock();
    __syncthreads();
    const std::uint64_t t1 = read_clock();
    ovh = t1 - t0 < ovh ? t1 - t0 : ovh;
  }
  unsigned long long sum = 0;
  unsigned long long chunk = a.first_chunk;  // chunk k: the k-th of the region, wrapping (no division)
  for (std::uint32_t k = 0; k < a.samples; ++k) {
    asm volatile("" ::"l"(chunk) : "memory");  // computed before the barrier, not in the timed window
    __syncthreads();
    const std::uint64_t t0 = read_clock();
    copy_one<M>(a, &map, chunk, base, bar, k & 1);
    __syncthreads();
    const std::uint64_t t1 = read_clock();
    sum += t1 - t0 > ovh ? t1 - t0 - ovh : 0;
    chunk = chunk + 1 == a.first_chunk + a.per_worker ? a.first_chunk : chunk + 1;
  }
  if (threadIdx.x == 0) {
    a.out[0] = sum;
    a.out[1] = a.samples;
    a.out[2] = ovh;
  }
}

// ---- multicast ----

// Clusters of C CTAs of 32 threads (one warp); cluster c copies its share of the buffer (as a CTA
// of the bandwidth kernel does): for each chunk, every CTA issues the rank-th 1/C of the chunk with .multicast::cluster to all C CTAs,
// so each CTA receives the whole chunk (its mbarrier expects chunk_bytes) while the L2 is read
// once per chunk. A cluster barrier after each chunk has landed everywhere keeps any CTA from
// refilling a stage (and signalling the mbarrier of that stage in another CTA) before every CTA
// has seen the stage's previous phase complete.
__global__ void async_copy_multicast(CopyArgs a) {
#if MEMHIER_MULTICAST_BUILT
  extern __shared__ __align__(16) unsigned char copy_raw[];
  __shared__ __align__(8) unsigned long long copy_bars[kCopyMaxStages];
  const std::uint32_t base = stage_base(copy_raw);
  const std::uint32_t bars = copy_smem_addr(copy_bars);
  std::uint32_t nranks = 1, rank = 0, cl = 0;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nranks));
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cl));
  const std::uint32_t slice = a.chunk_bytes / nranks;
  const auto mask = static_cast<std::uint16_t>((1u << nranks) - 1);
  const bool lead = threadIdx.x == 0;
  if (lead) {
    for (std::uint32_t s = 0; s < a.stages; ++s) mbar_init(bars + 8 * s, 1);
    mbar_init_fence();
  }
  __syncwarp();
  copy_cluster_sync();  // every CTA's mbarriers initialised before any multicast signals them
  const unsigned long long n = a.per_worker * a.passes;
  ChunkCursor cur(a, cl);
  auto issue = [&](std::uint32_t s) {
    const unsigned char* src = a.src + cur.next() * a.chunk_bytes + rank * slice;
    mbar_arrive_expect_tx(bars + 8 * s, a.chunk_bytes);
    bulk_g2s_multicast(base + s * a.chunk_bytes + rank * slice, src, slice, bars + 8 * s, mask);
  };
  if (lead)
    for (std::uint32_t s = 0; s < a.stages && s < n; ++s) issue(s);
  StageCursor st(a.stages);  // the stage of chunk j and its phase
  for (unsigned long long j = 0; j < n; ++j) {
    mbar_wait(bars + 8 * st.stage, st.parity);
    __syncwarp();
    copy_cluster_sync();  // chunk j has landed in every CTA of the cluster
    if (lead && j + a.stages < n) issue(st.stage);
    __syncwarp();
    st.advance();
  }
  copy_cluster_sync();  // no CTA exits while a multicast may still write into it
#endif
  (void)a;
}

// 1 where this image was built with the multicast qualifier (an architecture-specific target).
__global__ void multicast_probe(int* out) { *out = MEMHIER_MULTICAST_BUILT; }

}  // namespace memhier::kern
