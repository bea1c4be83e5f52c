// Distinct-line L2 read layouts beside cached_read's tiles (docs/methodology.md, section
// requests_sharing_partitions, "Distinct-line L2 bandwidth against gpu-benches").
//   l2_oneshot_read: one tile per CTA and tiles x rounds CTAs; CTA b reads tile b mod tiles, so the
//                    block scheduler hands tiles out dynamically (a faster SM reads more)
//   l2_peer_read   : gpu-benches' gpu-l2-cache access pattern, written from its description:
//                    1024-thread blocks of 8-byte loads through the non-coherent path; the data set
//                    is `chunks` chunks of 512 KiB stored as 32 rows of chunks x 16 KiB; block b
//                    reads chunk b mod chunks, two loads 8 KiB apart per row
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

__device__ __forceinline__ uint2 ld_nc_v2(const uint2* p) {
  uint2 v;
  asm volatile("ld.global.nc.v2.u32 {%0,%1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(p));
  return v;
}

// Launch with 1024 threads per block. A template so that each including unit has its own instance.
template <int Unused = 0>
__global__ void l2_peer_read(const uint2* __restrict__ src, std::uint32_t chunks, std::uint32_t* sink) {
  const std::uint64_t row = static_cast<std::uint64_t>(chunks) * kPeerPieceElems;
  const uint2* p = src + static_cast<std::uint64_t>(blockIdx.x % chunks) * kPeerPieceElems + threadIdx.x;
  std::uint32_t acc = 0;
#pragma unroll 4
  for (std::uint32_t i = 0; i < kPeerRows; ++i) {
    const uint2 a = ld_nc_v2(p + i * row);
    const uint2 b = ld_nc_v2(p + i * row + kPeerPieceElems / 2);
    acc ^= a.x ^ b.y;
  }
  if (acc == 0xFFFFFFFFu) sink[0] = acc;  // keeps the loads; never true for the host's data
}

}  // namespace memhier::kern
