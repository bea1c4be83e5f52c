// The l2_evsets kernels (docs/methodology.md, "l2_evsets"; bench/plans/l2_evsets_plan.hpp): the test
// writes a target line (dirty in the L2), then one CTA reads the candidate lines -- position ranges
// of the permuted pool, each line computed from its position (common/l2_evset_pool.hpp), no index
// array in memory -- `passes` times; the readout discards the target from the L2
// (discard.global.L2: its dirty data, if still there, is dropped) and, in the next launch, reads it
// with ld.global.cg: the value it had before the write means the line was still in the L2, the
// written one that it had been written back (evicted). The flush writes every pool line from the
// whole grid (the readout's self-check).
#pragma once
#include <cstdint>

#include "common/l2_evset_pool.hpp"
#include "common/l2_evset_sequences.hpp"  // kEvsetPolicyMaxLines, kEvsetPolicyMaxLength
#include "kernels/clock.cuh"                 // smid

namespace memhier::kern {

constexpr int kEvsetMaxRanges = 2048;  // ranges a candidate set may have (shared memory: 32 KiB)
constexpr int kEvsetThreads = 1024;    // the reading CTA
constexpr std::uint32_t kEvsetLineWords = 32;

__device__ __forceinline__ void evset_st_cg(std::uint32_t* p, std::uint32_t v) {
  asm volatile("st.global.cg.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ std::uint32_t evset_ld_cg(const std::uint32_t* p) {
  std::uint32_t v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// Where a launch runs: every launch but the flush spans all SMs (twice over), and the first CTA on
// SM `sm` claims it (the word at `claim` goes from seq - 1 to seq) and runs; the others exit. A
// launch that no CTA claims leaves the word behind, which the host sees (the readout returns it).
// The whole search of a target runs on one SM: the one whose partition holds the target (bench/
// levels/l2_evsets_cuda.cu, place).
struct EvsetPin {
  unsigned sm;
  std::uint32_t* claim;
  std::uint32_t seq;
};
__device__ __forceinline__ bool evset_claimed(const EvsetPin& pin) {
  __shared__ int s_go;
  if (threadIdx.x == 0) s_go = smid() == pin.sm && atomicCAS(pin.claim, pin.seq - 1, pin.seq) == pin.seq - 1;
  __syncthreads();
  return s_go != 0;
}

// One CTA: thread 0 writes `value` into the target line, then every thread reads its share of the
// candidate lines, `passes` times (a barrier between passes). begin/first: per range its first
// position and the count of positions before it (ascending); `total` positions in all.
template <int Unused = 0>
__global__ void __launch_bounds__(kEvsetThreads, 1)
    evset_test(std::uint32_t* base, EvsetPool pool, std::uint64_t target_line, std::uint32_t value,
               const std::uint64_t* begin, const std::uint64_t* first, int ranges, std::uint64_t total, int passes,
               std::uint32_t* sink, EvsetPin pin) {
  if (!evset_claimed(pin)) return;
  __shared__ std::uint64_t s_begin[kEvsetMaxRanges], s_first[kEvsetMaxRanges];
  for (int i = threadIdx.x; i < ranges; i += blockDim.x) {
    s_begin[i] = begin[i];
    s_first[i] = first[i];
  }
  if (threadIdx.x == 0) {
    evset_st_cg(base + target_line * kEvsetLineWords, value);
    __threadfence();
  }
  __syncthreads();
  std::uint32_t acc = 0;
  for (int p = 0; p < passes; ++p) {
    for (std::uint64_t k = threadIdx.x; k < total; k += blockDim.x) {
      int lo = 0, hi = ranges - 1;  // the last range whose first position count is <= k
      while (lo < hi) {
        const int m = (lo + hi + 1) / 2;
        if (s_first[m] <= k) lo = m; else hi = m - 1;
      }
      const std::uint64_t line = pool.line(s_begin[lo] + (k - s_first[lo]));
      acc += evset_ld_cg(base + line * kEvsetLineWords);
    }
    __syncthreads();
  }
  if (acc == 0xFFFFFFFFu) sink[0] = acc;  // keeps the loads
}

// One thread: reads the `thrash` lines 3 times, then `lines` `rounds` times, each load's address
// dependent on the value before (a chain: one load in flight); the cycles of each load of the last
// round (clock64 pair around it, its overhead included) go to out[0 .. n).
template <int Unused = 0>
__global__ void evset_cycle(const std::uint32_t* base, const std::uint64_t* thrash, std::uint32_t n_thrash,
                            const std::uint64_t* lines, std::uint32_t n, int rounds, std::uint32_t* out, EvsetPin pin) {
  if (!evset_claimed(pin) || threadIdx.x != 0) return;
  std::uint32_t dep = 0;  // always 0 (the lines hold small values; & 0): orders the loads
  for (int r = 0; r < 3; ++r)
    for (std::uint32_t i = 0; i < n_thrash; ++i) dep += evset_ld_cg(base + thrash[i] * kEvsetLineWords + (dep & 0));
  for (int r = 0; r < rounds; ++r)
    for (std::uint32_t i = 0; i < n; ++i) {
      const long long t0 = clock64();
      const std::uint32_t v = evset_ld_cg(base + lines[i] * kEvsetLineWords + (dep & 0));
      dep += v;
      const long long t1 = clock64() + (dep & 0);
      if (r == rounds - 1) out[i] = static_cast<std::uint32_t>(t1 - t0);
    }
  if (dep == 0xFFFFFFFFu) out[n] = dep;  // keeps the chain
}

// The SM clock, ordered with the memory operations around it (a "memory" clobber).
__device__ __forceinline__ long long evset_clock() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

// The policy sequences (one thread): per sequence q, the `n_lines` lines read cyclically 3 times,
// each then discarded from the L2 (the set is empty), then lines[ids[start[q] .. start[q+1])] read,
// one after the other, each timed (clock64 pair, its overhead included) into
// out[start[q] ..]; the loaded value is stored (volatile, shared memory) before the second clock
// read, so that read waits for the load (an arithmetic dependence the compiler folds away does not:
// "dep & 0" let one clock pair of two close before its load returned). The lines, the sequence's
// indices and its cycles sit in shared memory: no
// bookkeeping access of global memory falls in a timed window (with the indices in global memory,
// an L1 miss of the index array every 8 loads added ~280 cycles to an L2 hit on the H100); the
// shared loads of the address cost the same in every window.
template <int Unused = 0>
__global__ void evset_sequences(std::uint32_t* base, const std::uint64_t* lines, std::uint32_t n_lines,
                                const std::uint32_t* ids, const std::uint32_t* start, std::uint32_t n_seqs,
                                std::uint32_t* out, EvsetPin pin) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (!evset_claimed(pin)) return;
  __shared__ std::uint64_t s_lines[kEvsetPolicyMaxLines];
  __shared__ std::uint32_t s_ids[kEvsetPolicyMaxLength], s_out[kEvsetPolicyMaxLength];
  __shared__ volatile std::uint32_t s_value[kEvsetPolicyMaxLength];
  if (threadIdx.x != 0) return;
  for (std::uint32_t i = 0; i < n_lines && i < kEvsetPolicyMaxLines; ++i) s_lines[i] = lines[i];
  std::uint32_t dep = 0;  // the sum of the values read (kept: the loads stay)
  for (std::uint32_t q = 0; q < n_seqs; ++q) {
    const std::uint32_t a0 = start[q], n = min(start[q + 1] - a0, static_cast<std::uint32_t>(kEvsetPolicyMaxLength));
    for (std::uint32_t a = 0; a < n; ++a) s_ids[a] = ids[a0 + a];
    for (int r = 0; r < 3; ++r)
      for (std::uint32_t i = 0; i < n_lines; ++i) dep += evset_ld_cg(base + s_lines[i] * kEvsetLineWords);
    s_value[0] = dep;  // waits for every load of the thrash before the discards
    for (std::uint32_t i = 0; i < n_lines; ++i)
      asm volatile("discard.global.L2 [%0], 128;" ::"l"(base + s_lines[i] * kEvsetLineWords) : "memory");
    __threadfence();
    for (std::uint32_t a = 0; a < n; ++a) {
      const std::uint32_t* p = base + s_lines[s_ids[a]] * kEvsetLineWords;
      const long long t0 = evset_clock();
      const std::uint32_t v = evset_ld_cg(p);
      s_value[a] = v;  // a volatile shared store: waits for the load before the second clock read
      const long long t1 = evset_clock();
      s_out[a] = static_cast<std::uint32_t>(t1 - t0);
      dep += v;
    }
    for (std::uint32_t a = 0; a < n; ++a) out[a0 + a] = s_out[a];
  }
  if (dep == 0xFFFFFFFFu) out[start[n_seqs]] = dep;  // keeps the chain
#else
  __trap();  // discard.global.L2 needs sm_80; the family is not offered below compute capability 8
#endif
}

// The readout, first launch: drop the line from the L2 without writing it back.
template <int Unused = 0>
__global__ void evset_discard(std::uint32_t* base, std::uint64_t line, EvsetPin pin) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if (evset_claimed(pin) && threadIdx.x == 0)
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(base + line * kEvsetLineWords) : "memory");
#else
  __trap();  // discard.global.L2 needs sm_80; the family is not offered below compute capability 8
#endif
}

// The readout, second launch: the value memory (or the L2) holds now (out[0]), and the claim word
// (out[1]: this launch's seq when every launch since the last readout ran).
template <int Unused = 0>
__global__ void evset_read(const std::uint32_t* base, std::uint64_t line, std::uint32_t* out, EvsetPin pin) {
  if (evset_claimed(pin) && threadIdx.x == 0) {
    out[0] = evset_ld_cg(base + line * kEvsetLineWords);
    out[1] = *pin.claim;
  }
}

// One thread reads `line` once, timed (clock pair around the load, its overhead included; the
// value stored in shared memory before the second clock read): out[0] the cycles, out[1] the claim
// word. After a discard: the line comes from memory, through the SM's own partition or the other.
template <int Unused = 0>
__global__ void evset_time_read(const std::uint32_t* base, std::uint64_t line, std::uint32_t* out, EvsetPin pin) {
  __shared__ volatile std::uint32_t s_value;
  if (!evset_claimed(pin) || threadIdx.x != 0) return;
  const long long t0 = evset_clock();
  s_value = evset_ld_cg(base + line * kEvsetLineWords);
  const long long t1 = evset_clock();
  out[0] = static_cast<std::uint32_t>(t1 - t0);
  out[1] = *pin.claim;
}

// One thread writes `value` into `line` (the readout's self-check).
template <int Unused = 0>
__global__ void evset_write(std::uint32_t* base, std::uint64_t line, std::uint32_t value, EvsetPin pin) {
  if (evset_claimed(pin) && threadIdx.x == 0) evset_st_cg(base + line * kEvsetLineWords, value);
}

// The whole grid writes `value` into word 0 of lines [0, lines): every earlier dirty line of the
// buffer is written back or replaced (the pool is 3 x the L2).
template <int Unused = 0>
__global__ void evset_flush(std::uint32_t* base, std::uint64_t lines, std::uint32_t value) {
  const std::uint64_t step = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < lines; i += step)
    evset_st_cg(base + i * kEvsetLineWords, value);
}

}  // namespace memhier::kern
