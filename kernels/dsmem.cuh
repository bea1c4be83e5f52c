// Distributed shared memory (Luo et al., "Benchmarking and Dissecting the Nvidia Hopper GPU
// Architecture", §DSM; docs/methodology.md, "Levels beyond one SM"): thread-block clusters, `mapa`
// and `ld/st.shared::cluster`. Two kernels, both launched with a cluster dimension
// (cudaLaunchKernelEx) and enough dynamic shared memory that one CTA fills an SM, so another rank
// is always another SM:
//   dsmem_latency: each CTA copies a P-chase chain (byte offsets) into its shared memory; after a
//     cluster barrier thread 0 of rank 0 chases rank R's copy, each access timed (fine chase);
//   dsmem_stream: every thread reads (writes) 4 independent 16-byte vectors per iteration from (to)
//     the shared memory of rank (r+1) mod C or its own, timed per CTA between cluster barriers.
// Every CTA passes a cluster barrier after its last access and before it exits, so no CTA's shared
// memory goes away while another may still read or write it.
// Hopper-only instructions are guarded by __CUDA_ARCH__ >= 900; below that the kernels are empty
// and the host refuses them (bench/levels/dsmem_cuda.cu).
#pragma once
#include <cstdint>

#include "kernels/clock.cuh"

namespace memhier::kern {

// ---- cluster primitives (PTX ISA: barrier.cluster, mapa, ld/st.shared::cluster, %cluster_*) ----

// barrier.cluster.arrive has .release and barrier.cluster.wait .acquire semantics by default: the
// shared-memory writes of every thread of the cluster before the arrive are visible after the wait.
__device__ __forceinline__ void cluster_sync_all() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive;" ::: "memory");
  asm volatile("barrier.cluster.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ std::uint32_t cluster_ctarank() {
  std::uint32_t r = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
  return r;
}

__device__ __forceinline__ std::uint32_t cluster_id_x() {
  std::uint32_t r = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(r));
#endif
  return r;
}

// The shared::cluster address of the same CTA-relative offset as `smem_addr` (a shared::cta
// address of this CTA) in the shared memory of the cluster's CTA `rank`.
__device__ __forceinline__ std::uint32_t map_to_rank(std::uint32_t smem_addr, std::uint32_t rank) {
  std::uint32_t r = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem_addr), "r"(rank));
#endif
  return r;
}

__device__ __forceinline__ std::uint32_t ld_cluster_u32(std::uint32_t addr) {
  std::uint32_t v = 0;
#if __CUDA_ARCH__ >= 900
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
#endif
  return v;
}

__device__ __forceinline__ uint4 ld_cluster_v4(std::uint32_t addr) {
  uint4 v{0, 0, 0, 0};
#if __CUDA_ARCH__ >= 900
  asm volatile("ld.shared::cluster.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(addr)
               : "memory");
#endif
  return v;
}

__device__ __forceinline__ void st_cluster_v4(std::uint32_t addr, const uint4& v) {
#if __CUDA_ARCH__ >= 900
  asm volatile("st.shared::cluster.v4.u32 [%0], {%1,%2,%3,%4};" ::"r"(addr), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
               : "memory");
#endif
}

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// ---- latency ----

constexpr std::uint32_t kDsmemChainBytes = 16 * 1024;  // the chain array in each CTA's shared memory
constexpr std::uint32_t kDsmemRanks = 16;              // ranks recorded per cluster (largest cluster)

// One record per cluster (written by its rank-0 thread 0, except smid[], one per rank).
struct DsmemLatencyRecord {
  unsigned long long sum_cycles;  // timed cycles less the clock overhead, summed over the accesses
  std::uint32_t accesses;         // timed accesses
  std::uint32_t overhead;         // clock overhead of one sample (cycles): min of 32 empty samples
  std::uint32_t last;             // the chase's last offset (keeps the chain live)
  std::uint32_t pad;
  std::uint32_t smid[kDsmemRanks];  // SM of each rank
};

// chain: kDsmemChainBytes / 4 words, word k holds the byte offset of the next element (0 off the
// chain); start: the first element's byte offset. Each CTA copies it into its dynamic shared
// memory (at least kDsmemChainBytes), then thread 0 of rank 0 chases rank `target`'s copy: `warm`
// untimed accesses, then `timed` accesses, each between two clock reads with a dependent store.
__global__ void dsmem_latency(const std::uint32_t* chain, std::uint32_t start, std::uint32_t target,
                              std::uint32_t warm, std::uint32_t timed, DsmemLatencyRecord* out) {
#if __CUDA_ARCH__ >= 900
  extern __shared__ __align__(16) std::uint32_t dsmem_chain[];
  __shared__ std::uint32_t s_sink[2];
  for (std::uint32_t i = threadIdx.x; i < kDsmemChainBytes / 4; i += blockDim.x) dsmem_chain[i] = chain[i];
  const std::uint32_t rank = cluster_ctarank();
  DsmemLatencyRecord* rec = out + cluster_id_x();
  if (threadIdx.x == 0) rec->smid[rank] = smid();
  cluster_sync_all();  // every rank's chain is in place
  if (rank == 0 && threadIdx.x == 0) {
    const std::uint32_t sink = smem_addr(&s_sink[0]);
    // clock overhead: clock, dependent store of a register value, clock
    std::uint32_t ovh = 0xFFFFFFFFu, x = start;
    for (int k = 0; k < 32; ++k) {
      const std::uint64_t t0 = read_clock();
      x = x * 1664525u + 1013904223u;
      asm volatile("st.shared.u32 [%0], %1;" ::"r"(sink), "r"(x) : "memory");
      const std::uint64_t t1 = read_clock();
      const auto d = static_cast<std::uint32_t>(t1 - t0);
      ovh = d < ovh ? d : ovh;
    }
    const std::uint32_t base = map_to_rank(smem_addr(dsmem_chain), target);
    std::uint32_t off = start;
    for (std::uint32_t k = 0; k < warm; ++k) off = ld_cluster_u32(base + off);
    unsigned long long sum = 0;
    for (std::uint32_t k = 0; k < timed; ++k) {
      const std::uint64_t t0 = read_clock();
      off = ld_cluster_u32(base + off);
      asm volatile("st.shared.u32 [%0], %1;" ::"r"(sink), "r"(off) : "memory");  // waits for the load
      const std::uint64_t t1 = read_clock();
      const auto d = static_cast<std::uint32_t>(t1 - t0);
      sum += d > ovh ? d - ovh : 0u;
      asm volatile("" ::"l"(sum) : "memory");  // the bookkeeping stays out of the next sample
    }
    rec->sum_cycles = sum;
    rec->accesses = timed;
    rec->overhead = ovh;
    rec->last = off;
  }
  cluster_sync_all();  // no CTA exits while rank 0 may still read its shared memory
#endif
}

// ---- bandwidth ----

constexpr int kDsmemVectors = 4;  // independent 16-byte vectors per thread and iteration

// Each CTA owns kDsmemVectors * blockDim.x vectors of 16 bytes at the start of its dynamic shared
// memory (vector k of thread t at k * blockDim.x + t: a warp's access is contiguous). Every thread
// reads (Write: writes) its kDsmemVectors vectors of the buffer of rank (r+1) mod C (remote) or of
// its own rank, `reps` times. Stamps are taken by thread 0 between cluster barriers.
template <bool Write>
__global__ void dsmem_stream(std::uint32_t reps, int remote, SmemStamp* stamps, std::uint32_t* sink) {
#if __CUDA_ARCH__ >= 900
  extern __shared__ __align__(16) uint4 dsmem_buf[];
  const std::uint32_t bd = blockDim.x;
  for (int k = 0; k < kDsmemVectors; ++k)
    dsmem_buf[k * bd + threadIdx.x] = make_uint4(threadIdx.x, k, blockIdx.x, 0);  // every word read is written
  std::uint32_t nranks = 1;
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(nranks));
  const std::uint32_t rank = cluster_ctarank();
  const std::uint32_t target = remote ? (rank + 1) % nranks : rank;
  const std::uint32_t mine = map_to_rank(smem_addr(dsmem_buf + threadIdx.x), target);
  cluster_sync_all();  // every buffer initialised
  std::uint64_t c0 = 0;
  if (threadIdx.x == 0) c0 = read_clock();
  uint4 acc{0, 0, 0, 0};
  for (std::uint32_t r = 0; r < reps; ++r) {
    if constexpr (Write) {
      const uint4 v = make_uint4(r, threadIdx.x, rank, 0);
#pragma unroll
      for (int k = 0; k < kDsmemVectors; ++k) st_cluster_v4(mine + k * bd * 16, v);
    } else {
      uint4 v[kDsmemVectors];
#pragma unroll
      for (int k = 0; k < kDsmemVectors; ++k) v[k] = ld_cluster_v4(mine + k * bd * 16);
#pragma unroll
      for (int k = 0; k < kDsmemVectors; ++k) {
        acc.x ^= v[k].x;
        acc.y ^= v[k].y;
        acc.z ^= v[k].z;
        acc.w ^= v[k].w;
      }
    }
    // ptxas ignores the `volatile` of inline asm: without this memory-ordering point it hoisted the
    // loop-invariant loads out of the loop (the H100 read 480 B/clk per SM, above the banks).
    __syncwarp();
  }
  cluster_sync_all();  // every access of the cluster done (writes visible), and no CTA exits before
  if (threadIdx.x == 0) write_stamp(stamps, c0);
  if ((acc.x ^ acc.y ^ acc.z ^ acc.w) == 0x9E3779B9u) *sink = acc.x;  // keeps the loads; practically never written
#endif
}

}  // namespace memhier::kern
