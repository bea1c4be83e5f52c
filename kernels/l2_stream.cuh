// Distinct-line L2 read layouts beside cached_read's tiles (docs/methodology.md, section
// requests_sharing_partitions, "Distinct-line L2 bandwidth against gpu-benches").
//   l2_oneshot_read: one tile per CTA and tiles x rounds CTAs; CTA b reads tile b mod tiles, so the
//                    block scheduler hands tiles out dynamically (a faster SM reads more)
//   l2_peer_read   : gpu-benches' gpu-l2-cache access pattern, written from its description:
//                    1024-thread blocks of 8-byte loads through the non-coherent path; the data set
//                    is `chunks` chunks of 512 KiB stored as 32 rows of chunks x 16 KiB; block b
//                    reads chunk b mod chunks, two loads 8 KiB apart per row; two variants that take
//                    the pattern apart: L1::no_allocate (no L1 hits between co-resident blocks of one
//                    chunk) and rotated rows (the readers of one chunk start `row_step` rows apart:
//                    no two read one line at the same time, and no L1 allocation either)
#pragma once
#include <cstdint>

#include "kernels/throughput.cuh"

namespace memhier::kern {

// Dynamic shared memory (size chosen by the host) only limits how many CTAs an SM holds.
template <int ILP>
__global__ void l2_oneshot_read(const uint4* __restrict__ src, std::uint32_t tile_vecs, std::uint32_t tiles,
                                std::uint32_t* sink) {
  extern __shared__ std::uint32_t occupancy_pad[];
  const std::uint32_t bd = blockDim.x;
  const uint4* p = src + static_cast<std::uint64_t>(blockIdx.x % tiles) * tile_vecs;
  std::uint32_t acc = 0;
  // tile_vecs is a multiple of bd x ILP (the host checks): no bounds test in the loop
  for (std::uint32_t o = threadIdx.x; o < tile_vecs; o += bd * ILP) {
    uint4 v[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) v[k] = load_vec<CacheOp::cg>(p + o + k * bd);
#pragma unroll
    for (int k = 0; k < ILP; ++k) acc ^= fold(v[k]);
  }
  if (acc == 0xFFFFFFFFu) sink[0] = acc + occupancy_pad[0];  // keeps the loads; never true for the host's data
}

constexpr std::uint32_t kPeerRows = 32;            // rows per chunk
constexpr std::uint32_t kPeerPieceElems = 2048;    // 16 KiB of 8-byte elements per chunk and row

template <bool NoAllocate>
__device__ __forceinline__ uint2 ld_nc_v2(const uint2* p) {
  uint2 v;
  if constexpr (NoAllocate)
    asm volatile("ld.global.nc.L1::no_allocate.v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  else
    asm volatile("ld.global.nc.v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  return v;
}

// Launch with 1024 threads per block. row_step 0: the peer's order (every block from row 0);
// otherwise reader r = b / chunks of a chunk starts at row r x row_step (mod 32).
template <bool NoAllocate = false>
__global__ void l2_peer_read(const uint2* __restrict__ src, std::uint32_t chunks, std::uint32_t row_step,
                             std::uint32_t* sink) {
  const std::uint64_t row = static_cast<std::uint64_t>(chunks) * kPeerPieceElems;
  const uint2* p = src + static_cast<std::uint64_t>(blockIdx.x % chunks) * kPeerPieceElems + threadIdx.x;
  const std::uint32_t first = (blockIdx.x / chunks) * row_step;
  std::uint32_t acc = 0;
#pragma unroll 4
  for (std::uint32_t i = 0; i < kPeerRows; ++i) {
    const std::uint32_t r = (i + first) % kPeerRows;
    const uint2 a = ld_nc_v2<NoAllocate>(p + r * row);
    const uint2 b = ld_nc_v2<NoAllocate>(p + r * row + kPeerPieceElems / 2);
    acc ^= a.x ^ b.y;
  }
  if (acc == 0xFFFFFFFFu) sink[0] = acc;  // keeps the loads; never true for the host's data
}

}  // namespace memhier::kern

namespace memhier::kern {

// l2_bulk_read (sm_90+): the Hopper bulk-copy engine (cp.async.bulk, the TMA path) moves the tile of
// each CTA from the L2 into shared memory in `chunk`-byte copies, `stages` copies in flight, each
// completing on its own mbarrier; thread 0 issues and waits, nobody reads the shared copies (the
// bytes have crossed from the L2 into the SM). Every wait is bounded: a copy that does not complete
// within ~50 M cycles sets err[0] and ends the CTA. tile and chunk are multiples of 16 bytes.
constexpr int kBulkMaxStages = 8;

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

template <int Unused = 0>
__global__ void l2_bulk_read(const unsigned char* __restrict__ src, std::uint64_t tile, std::uint32_t chunk,
                             std::uint32_t stages, std::uint32_t rounds, std::uint32_t* err) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char bulk_buf[];
  __shared__ __align__(8) unsigned long long bar[kBulkMaxStages];
  if (threadIdx.x != 0) return;
  for (std::uint32_t s = 0; s < stages; ++s)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar[s])) : "memory");
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const unsigned char* base = src + blockIdx.x * tile;
  const std::uint64_t per_round = tile / chunk;
  const std::uint64_t total = per_round * rounds;
  for (std::uint64_t c = 0; c < total + stages; ++c) {
    const std::uint32_t s = static_cast<std::uint32_t>(c % stages);
    if (c >= stages) {  // wait for the copy issued `stages` chunks ago on this barrier
      const std::uint32_t parity = static_cast<std::uint32_t>((c / stages - 1) & 1);
      const unsigned long long t0 = clock64();
      std::uint32_t done = 0;
      while (!done) {
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(smem_addr(&bar[s])), "r"(parity)
                     : "memory");
        if (!done && clock64() - t0 > 50000000ull) {
          atomicExch(err, 1u);
          return;
        }
      }
    }
    if (c >= total) continue;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bar[s])), "r"(chunk) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                     smem_addr(bulk_buf + static_cast<std::size_t>(s) * chunk)),
                 "l"(base + (c % per_round) * chunk), "r"(chunk), "r"(smem_addr(&bar[s]))
                 : "memory");
  }
#else
  if (threadIdx.x == 0 && blockIdx.x == 0) atomicExch(err, 2u);  // no bulk-copy engine before sm_90
  (void)src, (void)tile, (void)chunk, (void)stages, (void)rounds;
#endif
}

}  // namespace memhier::kern
