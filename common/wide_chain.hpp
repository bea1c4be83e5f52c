// Whole-memory chains (docs/methodology.md, tlb): the element positions of a 64-bit pointer chase
// over footprints up to the whole device memory. One formula, two users: the CUDA kernel that
// writes the chain on the GPU (kernels/wide_chase.cuh) and the simulated device (bench/wide/wide_sim.cpp)
// compute every position from these few parameters, so no host image of a multi-GiB chain exists.
//
// A chain has `slots` slots `stride` bytes apart. One pass visits slot 0, 1, ..., slots-1; the
// chain is `passes` passes long and then repeats. Pass r visits slot k at the line
//   line(r, k) = (hash(k) + r * step) mod Q,   Q = span / 128,  step odd,
// i.e. at byte k*stride + 128*line(r, k). Every pass touches the same first `span` bytes of each
// slot (the same translations: span <= 64 KiB lies inside any page a GPU driver uses for it), but
// other data lines: a run reads slots*passes distinct lines, the same number at every footprint, so
// data-cache capacity and set conflicts cannot change with the footprint and pose as translation
// misses. hash(k) spreads the slots over the lines (and so over L2 sets and slices).
//
// The address map turns a logical byte x into the offset inside the mapping: x + (x / chunk) * gap.
// gap 0 is the identity (cudaMalloc, or contiguous VMM chunks); gap = chunk leaves an unmapped hole
// after every chunk (VMM chunks with gaps: no two chunks are contiguous in the virtual space).
//
// Plain C++ (common/ has no CUDA dependency); under nvcc the functions are host and device.
#pragma once
#include <cstdint>
#include <string>

#if defined(__CUDACC__)
#define MEMHIER_HD __host__ __device__ __forceinline__
#else
#define MEMHIER_HD inline
#endif

namespace memhier {

constexpr std::uint64_t kWideLineBytes = 128;           // per-element offsets move in whole lines
constexpr std::uint64_t kWideSpanBytes = 64ull << 10;   // default span of the offsets in a slot
constexpr std::uint64_t kWideElementBytes = 8;          // a 64-bit pointer per element

struct WideChain {
  std::uint64_t stride = 0;  // bytes between slots (multiple of 128)
  std::uint64_t slots = 0;   // n
  std::uint64_t passes = 1;  // P: distinct lines per slot; the chain holds slots * passes elements
  std::uint64_t span = 0;    // offsets lie in [0, span) of each slot (multiple of 128, <= stride)
  std::uint64_t seed = 0;    // hash seed
  std::uint64_t chunk = 0;   // address map (0: identity)
  std::uint64_t gap = 0;
};

MEMHIER_HD std::uint64_t wide_mix(std::uint64_t x) {  // splitmix64 finalizer
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

MEMHIER_HD std::uint64_t wide_lines_per_slot(const WideChain& c) { return c.span / kWideLineBytes; }

// An odd step near 0.618 Q: passes r and r+1 land far apart inside the slot; r * step mod Q is
// distinct for r < Q (Q is a power of two).
MEMHIER_HD std::uint64_t wide_step(const WideChain& c) {
  const std::uint64_t q = wide_lines_per_slot(c);
  return ((q * 40503ull) >> 16) | 1ull;
}

// Logical byte offset of element g (0 <= g < slots * passes).
MEMHIER_HD std::uint64_t wide_position(const WideChain& c, std::uint64_t g) {
  const std::uint64_t r = g / c.slots, k = g % c.slots, q = wide_lines_per_slot(c);
  const std::uint64_t line = (wide_mix(k + c.seed * 0x9E3779B97F4A7C15ull) + r * wide_step(c)) & (q - 1);
  return k * c.stride + line * kWideLineBytes;
}

// Offset inside the mapping of logical byte x.
MEMHIER_HD std::uint64_t wide_map(const WideChain& c, std::uint64_t x) {
  return c.gap ? x + (x / c.chunk) * c.gap : x;
}

MEMHIER_HD std::uint64_t wide_elements(const WideChain& c) { return c.slots * c.passes; }

// Logical bytes a chain needs mapped: slots * stride (every offset lies below its slot's end).
inline std::uint64_t wide_footprint(const WideChain& c) { return c.slots * c.stride; }
// Bytes of virtual address space the mapping of `logical` bytes spans.
inline std::uint64_t wide_mapped_extent(const WideChain& c, std::uint64_t logical) {
  return c.gap ? logical + ((logical + c.chunk - 1) / c.chunk) * c.gap : logical;
}

// A chain over `bytes` (a multiple of `stride`) whose run reads about `lines` distinct lines:
// passes = clamp(lines / slots, 1, span / 128). span = min(span_bytes, stride).
WideChain make_wide_chain(std::uint64_t bytes, std::uint64_t stride, std::uint64_t lines,
                          std::uint64_t span_bytes = kWideSpanBytes, std::uint64_t seed = 0);
// Empty when the chain is well formed, else why not (stride, span and chunk powers of two or
// multiples of 128, passes <= span/128, distinct positions).
std::string check_wide_chain(const WideChain& c);

}  // namespace memhier
