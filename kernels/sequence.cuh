// Access-sequence kernel (docs/methodology.md, section sequence): one thread walks a list of runs
// (common/sequence.hpp) held in __constant__ memory, each access complete before the next starts,
// and records timed accesses into slots in shared memory.
//   - The runs are in constant memory (c_seq_runs): the constant caches are not the L1/texture
//     cache nor the L2 as ld.global sees it; every run of the launch is read once before the walk
//     (so the list sits in the constant L1.5), and each run's fields feed a dependent shared store
//     before its first clock read.
//   - Every access's address depends on the value the access before it loaded (a chain, as in a
//     P-chase: address = array + offset + (previous value & chain_mask), chain_mask = 0 at run time,
//     which the compiler cannot know), so no access can start before the one before it completed
//     and the caches see the sequence in order. (A dependent st.shared alone does not do that:
//     ptxas hoisted eight independent loads of an untimed run above their stores, and the H100's
//     L1 then kept only some of the sectors those overlapping misses filled.) A timed access is the
//     fine chase's window: clock64, load, dependent st.shared, clock64.
//   - The walk's clock cycles (first run to last access) go to out_cycles: cycles per access of an
//     untimed pass of misses show whether the accesses overlapped.
//   - Records stay in shared memory during the walk (latency: 16 bits, miss_count: 32 bits,
//     miss_any: 1 bit per slot) and go to global memory (st.global.cg) after it.
// Include this header in a translation unit that holds no other __constant__ array (it takes
// 65280 of the 65536 bytes of the user constant bank): not together with kernels/load_paths.cuh.
#pragma once
#include <cstdint>

#include "kernels/clock.cuh"
#include "kernels/load_ops.cuh"

namespace memhier::kern {

// One run as the kernel reads it (24 bytes).
struct SeqRunDev {
  std::uint64_t offset;    // byte offset of the first access
  std::int32_t stride;     // bytes from one access to the next
  std::uint32_t count;     // accesses; repeat marker: how often its block runs in all
  std::uint32_t slot;      // first record slot; kSeqUntimed: not timed
  std::uint16_t repeat;    // > 0: repeat marker over the `repeat` runs before it
  std::uint8_t path;       // 0 global_ca, 1 global_cg, 2 ldg, 3 texture
  std::uint8_t slot_step;  // 0: every access into `slot`; 1: consecutive slots
};
static_assert(sizeof(SeqRunDev) == 24, "SeqRunDev is uploaded as it is");

constexpr std::uint32_t kSeqUntimed = 0xFFFFFFFFu;
constexpr unsigned kSeqMaxRuns = 2720;  // 65280 bytes
static __constant__ SeqRunDev c_seq_runs[kSeqMaxRuns];

enum class SeqMode : int { latency = 0, miss_count = 1, miss_any = 2 };

struct SeqLaunch {
  const std::uint32_t* array;     // the array every offset points into
  cudaTextureObject_t tex;        // texture object over the same array (path 3)
  unsigned runs;                  // runs of this launch, from c_seq_runs[0]
  std::uint32_t slots;            // record slots
  std::uint32_t threshold;        // miss modes: latency >= threshold is a miss
  std::uint32_t overhead;         // cycles subtracted from each timed sample (clamped at 0)
  int target_sm;                  // -1: CTA 0 runs; else the first CTA on this SM runs
  int carry;                      // 1: start from the records in out_records (earlier launches)
  int* claim;                     // target_sm >= 0: claim flag (zeroed)
  std::uint32_t* out_records;     // record words (as in shared memory)
  int* out_smid;                  // SM that ran the launch (-1: none)
  std::uint32_t* out_sink;        // the last loaded value (keeps the walk observable)
  std::uint32_t chain_mask;       // 0: ANDed with each loaded value into the next address (the chain)
  unsigned long long* out_cycles; // clock cycles of the walk
};

__host__ __device__ constexpr std::uint32_t seq_record_words(SeqMode m, std::uint32_t slots) {
  return m == SeqMode::latency ? (slots + 1) / 2 : m == SeqMode::miss_count ? slots : (slots + 31) / 32;
}

__device__ __forceinline__ void seq_store_cg(std::uint32_t* p, std::uint32_t v) {
  asm volatile("st.global.cg.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

// What the load of an access takes: the byte address (global paths) or the element index (texture).
template <int PATH>
__device__ __forceinline__ std::uint64_t seq_address(const SeqLaunch& L, std::uint64_t offset) {
  if constexpr (PATH == 3) return offset >> 2;
  else return reinterpret_cast<std::uint64_t>(L.array) + offset;
}

template <int PATH>
__device__ __forceinline__ std::uint32_t seq_load_at(const SeqLaunch& L, std::uint64_t a) {
  if constexpr (PATH == 0) return load_ca(reinterpret_cast<const std::uint32_t*>(a));
  else if constexpr (PATH == 1) return load_cg(reinterpret_cast<const std::uint32_t*>(a));
  else if constexpr (PATH == 2) return load_nc(reinterpret_cast<const std::uint32_t*>(a));
  else return load_tex(L.tex, static_cast<std::uint32_t>(a));
}

template <SeqMode M>
__device__ __forceinline__ void seq_record(std::uint32_t* rec, std::uint32_t slot, std::uint32_t lat,
                                           std::uint32_t threshold) {
  if constexpr (M == SeqMode::latency) {
    reinterpret_cast<std::uint16_t*>(rec)[slot] = static_cast<std::uint16_t>(lat < 65535u ? lat : 65535u);
  } else if constexpr (M == SeqMode::miss_count) {
    rec[slot] += lat >= threshold ? 1u : 0u;
  } else if (lat >= threshold) {
    rec[slot >> 5] |= 1u << (slot & 31u);
  }
}

// One run on one path. Each address adds (chain & chain_mask) — zero — to the offset: it depends on
// the value loaded before it, so accesses never overlap (untimed ones included). The address is
// pinned in a register by an empty volatile asm before the clock read, so no address arithmetic
// falls inside a timed window (the chase's window holds its one add; the sequence's holds none).
template <int PATH, SeqMode M>
__device__ __forceinline__ void seq_walk_run(const SeqLaunch& L, const SeqRunDev& run, std::uint32_t* rec,
                                             std::uint32_t* sink, std::uint32_t& chain) {
  std::uint64_t offset = run.offset;
  const std::int64_t stride = run.stride;
  if (run.slot == kSeqUntimed) {
    for (std::uint32_t i = 0; i < run.count; ++i, offset += stride)
      chain = seq_load_at<PATH>(L, seq_address<PATH>(L, offset + (chain & L.chain_mask)));
    return;
  }
  std::uint32_t slot = run.slot;
  for (std::uint32_t i = 0; i < run.count; ++i, offset += stride, slot += run.slot_step) {
    const std::uint32_t lat =
        timed_load(seq_address<PATH>(L, offset + (chain & L.chain_mask)),
                   [&L](std::uint64_t at) { return seq_load_at<PATH>(L, at); }, sink, L.overhead, chain);
    seq_record<M>(rec, slot, lat, L.threshold);
  }
}

// Reads every run of the launch once (untimed), so the list is in the constant caches.
__device__ __forceinline__ void seq_touch_runs(const SeqLaunch& L, std::uint32_t* sink) {
  std::uint32_t acc = 0;
  for (unsigned r = 0; r < L.runs; ++r) {
    const SeqRunDev run = c_seq_runs[r];
    acc ^= static_cast<std::uint32_t>(run.offset) ^ static_cast<std::uint32_t>(run.offset >> 32) ^
           static_cast<std::uint32_t>(run.stride) ^ run.count ^ run.slot ^ run.repeat ^ run.path ^ run.slot_step;
  }
  store_shared(sink + 1, acc);
}

// The walk mirrors for_each_access (common/sequence.hpp, the host's and the simulator's walk):
// runs in order, a repeat marker sends the walk back over its block `count - 1` times.
template <SeqMode M>
__device__ void seq_walk(const SeqLaunch& L, std::uint32_t* rec, std::uint32_t* sink) {
  std::uint32_t chain = 0;  // the value the last access loaded
  bool in_repeat = false;
  std::uint32_t left = 0;
  for (unsigned r = 0; r < L.runs;) {
    const SeqRunDev run = c_seq_runs[r];
    // every field waits here for its constant load, before any clock read of this run
    store_shared(sink + 1, static_cast<std::uint32_t>(run.offset) ^ static_cast<std::uint32_t>(run.offset >> 32) ^
                                   static_cast<std::uint32_t>(run.stride) ^ run.count ^ run.slot ^ run.repeat ^
                                   run.path ^ run.slot_step);
    if (run.repeat) {
      if (!in_repeat) {
        in_repeat = true;
        left = run.count - 1;
      }
      if (left > 0) {
        --left;
        r -= run.repeat;
      } else {
        in_repeat = false;
        ++r;
      }
      continue;
    }
    switch (run.path) {
      case 0: seq_walk_run<0, M>(L, run, rec, sink, chain); break;
      case 1: seq_walk_run<1, M>(L, run, rec, sink, chain); break;
      case 2: seq_walk_run<2, M>(L, run, rec, sink, chain); break;
      default: seq_walk_run<3, M>(L, run, rec, sink, chain); break;
    }
    ++r;
  }
  store_shared(sink, chain);  // the last loaded value stays observable
}

// Launch with 32 threads per CTA: all of them clear and copy the records, thread 0 walks.
// Dynamic shared memory: seq_record_words(M, L.slots) words.
template <SeqMode M>
__global__ void sequence_kernel(SeqLaunch L) {
  extern __shared__ std::uint32_t s_rec[];
  __shared__ std::uint32_t s_sink[2];
  __shared__ int s_go;
  if (threadIdx.x == 0) {
    int go = 0;
    if (L.target_sm < 0) go = blockIdx.x == 0;
    else go = static_cast<int>(smid()) == L.target_sm && atomicCAS(L.claim, 0, 1) == 0;
    s_go = go;
  }
  __syncthreads();
  if (!s_go) return;
  const std::uint32_t words = seq_record_words(M, L.slots);
  for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) s_rec[i] = L.carry ? load_cg(L.out_records + i) : 0u;
  __syncthreads();
  if (threadIdx.x == 0) {
    seq_touch_runs(L, s_sink);
    const std::uint64_t c0 = read_clock();
    seq_walk<M>(L, s_rec, s_sink);
    *L.out_cycles = read_clock() - c0;
    *L.out_smid = static_cast<int>(smid());
    *L.out_sink = s_sink[0] ^ s_sink[1];
  }
  __syncthreads();
  for (std::uint32_t i = threadIdx.x; i < words; i += blockDim.x) seq_store_cg(L.out_records + i, s_rec[i]);
}

}  // namespace memhier::kern
