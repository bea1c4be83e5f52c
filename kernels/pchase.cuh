// P-chase kernels (000 §4.1-4.2, 003 §3.1): one thread chases j = A[j] through one load path.
//   classic: mean over k dependent loads between two clock reads (000 Listing 2)
//   fine:    each access timed; the loaded index is stored to shared memory before the second
//            clock read, so the read cannot overtake the load (000 Listing 3); records kept in
//            shared memory (a global store would disturb the caches under test)
//   count:   timed like fine, but only a latency histogram and the sum are kept, in shared
//            memory (no per-access record), for capacity sweeps
// Jobs: one launch runs one job, or a batch with one job per SM (003 §4.7.2): each CTA claims its
// SM; a CTA landing on an SM already claimed exits at once, so no two chases share an L1.
#pragma once
#include <cstdint>

#include "kernels/clock.cuh"
#include "kernels/load_paths.cuh"

namespace memhier::kern {

enum class ChaseMode : int { classic = 0, fine = 1, count = 2 };

struct ChaseJob {
  const std::uint32_t* array;   // this job's array (global paths; texture: element offset below)
  std::uint32_t tex_offset;     // element offset of this job's array inside the texture
  std::uint32_t start;          // first element (relative to the job's array)
  std::uint32_t chain_len;      // elements on the chain: the warm pass length
  std::uint32_t shared_elems;   // shared path: elements copied into shared memory
  std::uint64_t iters;          // timed accesses
  int warm;                     // 1: one untimed pass over the chain first
  // outputs
  std::uint32_t* out_index;     // fine: max_records entries
  std::uint32_t* out_latency;   // fine: max_records entries
  unsigned long long* out_hist; // count: hist_bins entries
  unsigned long long* out_sum;  // total timed cycles (classic: whole loop; fine/count: sum of samples)
  std::uint32_t* out_last;      // last index (keeps the chain alive)
  int* out_smid;                // SM that ran the job (-1: not run)
  unsigned long long* out_stat; // kChaseStatWords: see below
};

// Per-job status words (out_stat): the job's window from before the warm pass to after the timed
// loop in SM cycles and in %globaltimer nanoseconds (the SM clock of the sample, nvbench's throttle
// check), the timed accesses done, and 1 when the watchdog stopped the job.
enum ChaseStat : int { kStatCycles = 0, kStatNanoseconds = 1, kStatDone = 2, kStatWatchdog = 3, kChaseStatWords = 4 };
// The watchdog looks at the clock once per this many accesses (a power of two): in the untimed warm
// pass, between samples of fine/count chases, and between chunks of the classic loop (one clock read
// per 1024 accesses inside the timed window: < 0.01 cycles per access).
constexpr std::uint64_t kWatchdogChunk = 1024;

struct ChaseLaunch {
  const ChaseJob* jobs;
  int njobs;
  int batch;                    // 1: claim one SM per CTA; 0: CTA 0 runs job 0
  int* sm_claims;               // batch: one flag per SM id (zeroed)
  int* next_job;                // batch: job counter (zeroed)
  cudaTextureObject_t tex;
  std::uint32_t max_records;    // fine: records in shared memory
  std::uint32_t hist_bins;      // count
  std::uint32_t bin_width;      // count
  std::uint32_t overhead;       // cycles subtracted from each fine/count sample (clamped at 0)
  unsigned long long budget_cycles;  // watchdog: a job stops after this many SM cycles (0: never)
};

// Dynamic shared memory layout: [records: 2*max_records u32 | hist: hist_bins u32 | shared array]
template <LoadPath P, ChaseMode M>
__global__ void pchase_kernel(ChaseLaunch L) {
  extern __shared__ std::uint32_t smem[];
  __shared__ int s_job;
  __shared__ std::uint32_t s_sink;  // target of the dependent store in classic and count modes
  if (threadIdx.x == 0) {
    int job = -1;
    if (!L.batch) {
      job = blockIdx.x == 0 ? 0 : -1;
    } else if (atomicCAS(&L.sm_claims[smid()], 0, 1) == 0) {
      job = atomicAdd(L.next_job, 1);
      if (job >= L.njobs) job = -1;
    }
    s_job = job;
  }
  __syncthreads();
  const int job = s_job;
  if (job < 0) return;
  const ChaseJob J = L.jobs[job];

  std::uint32_t* s_index = smem;
  std::uint32_t* s_lat = smem + L.max_records;
  std::uint32_t* s_hist = smem + 2 * L.max_records;
  std::uint32_t* s_array = s_hist + L.hist_bins;
  for (std::uint32_t i = threadIdx.x; i < L.hist_bins; i += blockDim.x) s_hist[i] = 0;
  if constexpr (P == LoadPath::shared)
    for (std::uint32_t i = threadIdx.x; i < J.shared_elems; i += blockDim.x) s_array[i] = J.array[i];
  __syncthreads();
  if (threadIdx.x != 0) return;

  LoadSource src;
  src.global = J.array;
  src.tex = L.tex;
  src.shared = s_array;
  // texture fetches index the whole texture: the job's array starts at tex_offset and holds
  // absolute texture indices, so no add sits in the dependent chain
  const std::uint32_t base = (P == LoadPath::texture) ? J.tex_offset : 0u;

  // Watchdog (docs/methodology.md, reliability): every loop below is bounded by its count, and a
  // job also stops once it has run budget_cycles; the host then reports the benchmark as failed.
  const std::uint64_t c_begin = read_clock();
  const std::uint64_t g_begin = read_globaltimer_ns();
  const std::uint64_t budget = L.budget_cycles ? L.budget_cycles : ~0ull;
  int stopped = 0;
  std::uint64_t done = 0;

  std::uint32_t j = J.start + base;
  if (J.warm) {
    for (std::uint32_t k = 0; k < J.chain_len; ++k) {
      j = load_next<P>(src, j);
      if ((k & (kWatchdogChunk - 1)) == kWatchdogChunk - 1 && read_clock() - c_begin > budget) {
        stopped = 1;
        break;
      }
    }
  }
  unsigned long long sum = 0;
  if (stopped) {
    // the warm pass ran out of time: no timed access
  } else if constexpr (M == ChaseMode::classic) {
    const std::uint64_t t0 = read_clock();
    while (done < J.iters) {
      const std::uint64_t n = J.iters - done < kWatchdogChunk ? J.iters - done : kWatchdogChunk;
#pragma unroll 4
      for (std::uint64_t k = 0; k < n; ++k) j = load_next<P>(src, j);
      done += n;
      // independent of j: issued while the last loads are in flight
      if (done < J.iters && read_clock() - c_begin > budget) {
        stopped = 1;
        break;
      }
    }
    store_shared(&s_sink, j);  // dependent store: the clock read below waits for the last load
    const std::uint64_t t1 = read_clock();
    sum = t1 - t0;
  } else {
    const std::uint32_t last_rec = L.max_records ? L.max_records - 1 : 0;
    for (std::uint64_t k = 0; k < J.iters; ++k) {
      const std::uint64_t t0 = read_clock();
      j = load_next<P>(src, j);
      // dependent store before the second clock read (000 Listing 3, line 10)
      if constexpr (M == ChaseMode::fine)
        store_shared(&s_index[k < last_rec ? k : last_rec], j);
      else
        store_shared(&s_sink, j);
      const std::uint64_t t1 = read_clock();
      std::uint32_t lat = static_cast<std::uint32_t>(t1 - t0);
      lat = lat > L.overhead ? lat - L.overhead : 0u;
      sum += lat;
      if constexpr (M == ChaseMode::fine) {
        s_lat[k < last_rec ? k : last_rec] = lat;
      } else {
        std::uint32_t b = lat / L.bin_width;
        s_hist[b < L.hist_bins ? b : L.hist_bins - 1] += 1;
      }
      done = k + 1;
      // Keeps this sample's bookkeeping (sum, the bin's division) out of the next sample's timed
      // window: volatile asm orders only memory and other volatile asm, so the compiler could
      // otherwise schedule that arithmetic after the next clock read. (It did not explain count
      // mode reading ~4 cycles more than fine mode for L1 hits on the H100: docs/methodology.md.)
      asm volatile("" ::"l"(sum) : "memory");
      // watchdog, outside the timed window (after t1, before the next t0)
      if ((k & (kWatchdogChunk - 1)) == kWatchdogChunk - 1 && t1 - c_begin > budget) {
        stopped = 1;
        break;
      }
    }
  }
  const std::uint64_t c_end = read_clock();
  const std::uint64_t g_end = read_globaltimer_ns();
  *J.out_sum = sum;
  *J.out_last = j;
  *J.out_smid = static_cast<int>(smid());
  J.out_stat[kStatCycles] = c_end - c_begin;
  J.out_stat[kStatNanoseconds] = g_end - g_begin;
  J.out_stat[kStatDone] = done;
  J.out_stat[kStatWatchdog] = static_cast<unsigned long long>(stopped);
  if constexpr (M == ChaseMode::fine) {
    // only the records this job wrote (a job the watchdog stopped wrote fewer)
    const std::uint64_t n = done < L.max_records ? done : L.max_records;
    for (std::uint64_t k = 0; k < n; ++k) {
      J.out_index[k] = s_index[k] - base;
      J.out_latency[k] = s_lat[k];
    }
  }
  if constexpr (M == ChaseMode::count)
    for (std::uint32_t b = 0; b < L.hist_bins; ++b) J.out_hist[b] = s_hist[b];
}

// Clock overhead (000 §4.2): medians of `samples` measurements of
//   out[0]: two consecutive clock reads
//   out[1]: clock read, dependent shared store of a register value, clock read (fine/count timing
//           without the load)
__global__ void clock_overhead_kernel(std::uint32_t* out, std::uint32_t samples, std::uint32_t seed) {
  __shared__ std::uint32_t s_pair[256];
  __shared__ std::uint32_t s_fine[256];
  __shared__ std::uint32_t s_sink[256];
  if (threadIdx.x != 0) return;
  std::uint32_t j = seed;
  const std::uint32_t n = samples < 256 ? samples : 256;
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint64_t t0 = read_clock();
    const std::uint64_t t1 = read_clock();
    s_pair[k] = static_cast<std::uint32_t>(t1 - t0);
  }
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint64_t t0 = read_clock();
    j = j * 1664525u + 1013904223u;  // stands in for the load's result
    store_shared(&s_sink[k], j);
    const std::uint64_t t1 = read_clock();
    s_fine[k] = static_cast<std::uint32_t>(t1 - t0);
  }
  for (std::uint32_t k = 0; k < n; ++k) {
    out[k] = s_pair[k];
    out[256 + k] = s_fine[k];
  }
  out[512] = s_sink[n - 1];
}

}  // namespace memhier::kern

namespace memhier::kern {

// Writes a chain into its array on the device: a[chain[i]] = chain[(i+1) % n] + value_offset.
// Only chain elements are written, so multi-GiB TLB arrays need no host image.
__global__ void scatter_chain_kernel(std::uint32_t* a, const std::uint32_t* chain, std::uint64_t n,
                                     std::uint32_t value_offset) {
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    a[chain[i]] = chain[(i + 1) % n] + value_offset;
}

}  // namespace memhier::kern

namespace memhier::kern {

// Cold-start helper: reads one word every `stride_elems` elements through L2 (ld.global.cg), so
// the translations of another region replace those a chain's initialisation left in the TLBs.
__global__ void touch_kernel(const std::uint32_t* p, std::uint64_t n, std::uint64_t stride_elems,
                             std::uint32_t* sink) {
  std::uint32_t acc = 0;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
    std::uint32_t v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p + i * stride_elems) : "memory");
    acc += v;
  }
  if (acc == 0x9E3779B9u) *sink = acc;  // keeps the loads; practically never written
}

}  // namespace memhier::kern
