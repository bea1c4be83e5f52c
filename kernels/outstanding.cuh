// Outstanding memory requests of one SM (002 §3, Listing 1; docs/methodology.md, section
// requests_sharing_partitions): T threads each issue L independent 4-byte loads from a common
// start time; the time until every loaded value has been consumed tells how many requests the SM
// keeps in flight. Up to 1024 threads run as one CTA; past 1024, two CTAs of 1024 threads are
// pinned to one SM (grid = 2 CTAs per SM, CTAs on other SMs exit) and start on that SM's clock.
#pragma once
#include <cstdint>

#include "kernels/clock.cuh"

namespace memhier::kern {

constexpr int kMaxOutstandingLoads = 16;

// Sample flags (OutstandingSample::flags).
constexpr std::uint32_t kOutLate = 1;      // a CTA saw the start time already past
constexpr std::uint32_t kOutTimeout = 2;   // the second CTA never arrived (bounded wait)
constexpr std::uint32_t kOutExtraCta = 4;  // a third CTA landed on the target SM (it exited)

struct OutstandingSample {
  unsigned long long go;       // start time (target SM's clock64); 0: not run
  unsigned long long end;      // latest end time of the CTAs (atomicMax)
  unsigned int arrive;         // CTAs of the target SM that arrived
  unsigned int flags;
  unsigned int smid;
  unsigned int pad;
};

struct OutstandingArgs {
  const std::uint32_t* base;   // this launch's region (L2-resident, moved on by the caller)
  std::uint32_t threads;       // T: active threads in total
  std::uint32_t ctas;          // 1 (T <= 1024, grid 1) or 2 (pinned, grid 2 x SMs)
  std::uint32_t unit_bytes;    // 128 (unique128, merge<K>) or 32 (unique32)
  std::uint32_t merge;         // K: neighbouring threads sharing one address (1: unique)
  std::uint32_t load_stride;   // words between load i and load i + 1 of a thread (the launch's span)
  std::uint32_t target_sm;     // ctas == 2: the SM id that runs the sample
  std::uint32_t start_margin;  // cycles between publishing the start time and the start
  OutstandingSample* sample;   // this launch's record (zeroed by the caller)
  std::uint32_t* sink;         // one word per thread (the loaded sums; never read)
};

template <int L>
__device__ __forceinline__ std::uint32_t load_group(const std::uint32_t* p, std::uint32_t stride) {
  std::uint32_t v[L];
  // measurement: L independent loads, inline PTX so the compiler keeps them and their order; the
  // addresses depend on nothing loaded, so no load waits for another. Load i of every thread lies
  // in its own block of `stride` words: the loads of one launch never share a line.
#pragma unroll
  for (int i = 0; i < L; ++i)
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v[i]) : "l"(p + static_cast<std::size_t>(i) * stride) : "memory");
  std::uint32_t s = 0;
#pragma unroll
  for (int i = 0; i < L; ++i) s += v[i];  // consumes every value: the loads must complete
  return s;
}

// Waits for the CTAs of the target SM (two-CTA samples) and returns this CTA's rank and the start
// time; -1: this CTA does not take part (other SM, or a third CTA on the target).
__device__ __forceinline__ int outstanding_rendezvous(const OutstandingArgs& a, unsigned long long* go_out) {
  __shared__ int s_rank;
  __shared__ unsigned long long s_go;
  if (threadIdx.x == 0) {
    int rank = 0;
    unsigned long long go = 0;
    if (a.ctas == 1) {
      go = read_clock() + a.start_margin;
    } else if (smid() != a.target_sm) {
      // holds its slot until the sample starts (bounded), so that the block scheduler cannot move
      // a later CTA onto the target SM in place of one that left early
      const unsigned long long t0 = read_clock();
      volatile unsigned long long* g = &a.sample->go;
      while (*g == 0 && read_clock() - t0 < 2000000ull) __nanosleep(2000);  // few polls of one word
      rank = -1;
    } else {
      rank = static_cast<int>(atomicAdd(&a.sample->arrive, 1u));
      if (rank >= static_cast<int>(a.ctas)) {
        atomicOr(&a.sample->flags, kOutExtraCta);
        rank = -1;
      } else if (rank == static_cast<int>(a.ctas) - 1) {
        go = read_clock() + a.start_margin;
        atomicExch(&a.sample->go, go);  // publishes the start time to the other CTA
      } else {
        // bounded wait for the other CTA's start time (2 M cycles, about 1 ms)
        const unsigned long long t0 = read_clock();
        volatile unsigned long long* g = &a.sample->go;
        while ((go = *g) == 0 && read_clock() - t0 < 2000000ull) __nanosleep(64);
        if (go == 0) {
          atomicOr(&a.sample->flags, kOutTimeout);
          rank = -1;
        }
      }
    }
    if (rank >= 0 && a.ctas == 1) a.sample->go = go;
    if (rank >= 0 && read_clock() >= go) atomicOr(&a.sample->flags, kOutLate);
    if (rank >= 0 && a.ctas == 2 && rank == 0) a.sample->smid = smid();
    if (rank >= 0 && a.ctas == 1) a.sample->smid = smid();
    s_rank = rank;
    s_go = go;
  }
  __syncthreads();
  *go_out = s_go;
  return s_rank;
}

// Two 1024-thread CTAs per SM where an SM holds 2048 threads; elsewhere (1024 or 1536 threads per
// SM) the bound would be ignored with a warning, and the host pins two smaller CTAs instead.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 750 || __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || \
                               __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define MEMHIER_OUTSTANDING_MIN_CTAS 1
#else
#define MEMHIER_OUTSTANDING_MIN_CTAS 2
#endif

// One sample: latency of T threads x L loads. Registers are bounded (2 CTAs of 1024 per SM).
template <int L>
__global__ void __launch_bounds__(1024, MEMHIER_OUTSTANDING_MIN_CTAS) outstanding_kernel(OutstandingArgs a) {
  // One word per lane (every warp stores to the same 32 words, each lane to its own bank). Small on
  // purpose: with carveout 0 the driver gives the SM the smallest shared-memory size that holds the
  // CTAs, and a 4 KiB array per CTA (plus the 1 KiB the SM reserves per CTA) made two 1024-thread
  // CTAs not fit its 8 KiB: the occupancy query said 1 and the H100 series stopped at 1024 threads.
  __shared__ std::uint32_t s_sink[32];
  unsigned long long go = 0;
  const int rank = outstanding_rendezvous(a, &go);
  if (rank < 0) return;
  const std::uint32_t r = static_cast<std::uint32_t>(rank) * blockDim.x + threadIdx.x;
  const bool active = r < a.threads;
  const std::uint32_t* p = a.base + (r / a.merge) * (a.unit_bytes / 4u);
  // measurement: every warp of both CTAs starts at the same SM clock value (bounded spin)
  while (read_clock() < go) {
  }
  std::uint32_t s = 0;
  if (active) {
    s = load_group<L>(p, a.load_stride);
    // measurement: a dependent store; the barrier below waits for it, hence for the loads
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(&s_sink[threadIdx.x & 31u]))),
                 "r"(s)
                 : "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(&a.sample->end, static_cast<unsigned long long>(read_clock()));
  if (active) a.sink[r] = s;  // after the timing: keeps the loads
}

// Per-warp limit of independent loads (002 §4): one thread issues N independent loads to distinct
// lines, `spacing_words` apart; out[0] = cycles until all N values are consumed (the dependent
// shared store before the end clock), clock pair included (the caller subtracts). N is a template
// argument: straight-line code, so ptxas keeps N destination registers (a run-time N with predicated
// loads let it fold the sum into the load sequence and serialize the loads). Launch bounds: without
// them ptxas kept 32 registers for 64 loads (adds interleaved, at most ~28 loads in flight); with
// them it keeps all N values live (80 registers for N = 64).
constexpr int kWarpProbeMax = 64;
constexpr int kWarpProbeCounts[] = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64};
template <int N>
__global__ void __launch_bounds__(32, 1) warp_loads_probe(const std::uint32_t* base, std::uint32_t spacing_words, unsigned long long* out) {
  __shared__ std::uint32_t s_sink;
  if (threadIdx.x != 0) return;
  std::uint32_t v[N];
  const unsigned long long t0 = read_clock();
#pragma unroll
  for (int i = 0; i < N; ++i)
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v[i]) : "l"(base + i * spacing_words) : "memory");
  std::uint32_t s = 0;
#pragma unroll
  for (int i = 0; i < N; ++i) s += v[i];
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(&s_sink))), "r"(s)
               : "memory");
  const unsigned long long t1 = read_clock();
  out[0] = t1 - t0;
  out[1] = s_sink;
}

// Reads every word of a region with ld.global.cg from every CTA (the L2 warm-up of the family:
// each partition then holds the region; the L1 is not filled).
__global__ void warm_l2_region(const std::uint32_t* p, std::uint64_t words, std::uint32_t* sink) {
  std::uint32_t acc = 0;
  for (std::uint64_t i = threadIdx.x; i < words; i += blockDim.x) {
    std::uint32_t v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p + i) : "memory");
    acc += v;
  }
  if (acc == 0x9E3779B9u) *sink = acc;  // keeps the loads; practically never written
}

}  // namespace memhier::kern
