// The L2 slice fingerprint (docs/methodology.md, "l2_slices"): one CTA per SM (the first CTA that
// lands on an SM with a slot claims it, the others exit); its thread 0 reads every test line once
// (the line is then in the L2 partition this SM reads from), then in each pass times R dependent
// `ld.global.cg` of each line after one untimed load of it: the cycles of R L2 hits from this SM
// to wherever that line lives. Lines are visited from a different start on each SM (slot x n /
// slots), so the SMs do not chase one line at the same time. Records stay in shared memory until
// every pass is done (a global store would disturb the lines under test).
#pragma once
#include <cstdint>

#include "kernels/clock.cuh"
#include "kernels/sm_ids.cuh"

namespace memhier::kern {

constexpr std::uint32_t kSliceMaxLines = 1024, kSliceMaxPasses = 4;

struct SliceArgs {
  const std::uint32_t* base;   // the test pages (2 MiB aligned, zero: every chain value is 0)
  const std::uint32_t* lines;  // element index (4-byte words from base) of each test line
  std::uint32_t n;             // lines (<= kSliceMaxLines)
  std::uint32_t repeats;       // dependent hits per record
  std::uint32_t passes;        // records per line (<= kSliceMaxPasses)
  std::uint32_t slots;         // SMs measured
  const int* slot_of_sm;       // [kMaxSmIds]: the SM's slot, -1 when it is not measured (or done)
  int* claim;                  // [kMaxSmIds], zeroed: the first CTA on an SM takes it
  std::uint32_t* out;          // slots x passes x n cycles (clock pair overhead not removed)
  std::uint32_t* overhead;     // [slots]: 1 + the smallest cycles of an empty timed pair (0: did not run)
};

template <int Unused = 0>
__global__ void slice_fingerprint_kernel(SliceArgs a) {
  __shared__ std::uint32_t s_lat[kSliceMaxPasses * kSliceMaxLines];
  __shared__ std::uint32_t s_sink;
  if (threadIdx.x != 0) return;
  const unsigned sm = smid();
  const int slot = sm < kMaxSmIds ? a.slot_of_sm[sm] : -1;
  if (slot < 0 || atomicCAS(a.claim + sm, 0, 1) != 0) return;
  std::uint32_t ovh = 0xFFFFFFFFu, v = 0;
  for (int k = 0; k < 16; ++k) {  // the clock pair with its dependent store and nothing to wait for
    const std::uint64_t t0 = read_clock();
    store_shared(&s_sink, v);
    const std::uint64_t t1 = read_clock();
    ovh = min(ovh, static_cast<std::uint32_t>(t1 - t0));
  }
  for (std::uint32_t k = 0; k < a.n; ++k)  // every line into this SM's partition
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(a.base + a.lines[k] + v) : "memory");
  const std::uint32_t rot = static_cast<std::uint32_t>(static_cast<std::uint64_t>(slot) * a.n / a.slots);
  for (std::uint32_t p = 0; p < a.passes; ++p)
    for (std::uint32_t i = 0; i < a.n; ++i) {
      const std::uint32_t k = (i + rot) % a.n;
      const std::uint32_t* q = a.base + a.lines[k];
      asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(q + v) : "memory");
      store_shared(&s_sink, v);
      const std::uint64_t t0 = read_clock();
      for (std::uint32_t r = 0; r < a.repeats; ++r)
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(q + v) : "memory");
      store_shared(&s_sink, v);  // the end clock waits for the last load
      const std::uint64_t t1 = read_clock();
      s_lat[p * a.n + k] = static_cast<std::uint32_t>(t1 - t0);
    }
  for (std::uint32_t j = 0; j < a.passes * a.n; ++j) a.out[static_cast<std::uint64_t>(slot) * a.passes * a.n + j] = s_lat[j];
  a.overhead[slot] = ovh + 1 + (v == 0x9E3779B9u ? 1u : 0u);  // v keeps the loads (the lines hold 0)
}

}  // namespace memhier::kern

namespace memhier::kern {

// The slice contention run (docs/methodology.md, "l2_slices", contention): hammer SMs keep many
// loads of one target line in flight while probe SMs time R dependent hits of their test lines,
// once before the hammering (quiet) and once during it (loaded). A probe line in the target's
// slice waits behind the hammer's queue there; a line of another slice does not. Roles are per
// SM (the first CTA on an SM claims it). Counters `sync`: [0] hammers started, [1] probes done
// with the quiet pass, [2] probes done with the loaded pass, [3] stop. Every wait gives up after
// `spin_limit` cycles, so a role whose SM got no CTA cannot hang the launch.
constexpr int kHammerChains = 4;  // independent loads of the target per thread (a warp merges one instruction's)

struct ContentionArgs {
  const std::uint32_t* base;        // the test pages (zero)
  const std::uint32_t* lines;       // element index of each test line
  std::uint32_t target;             // the hammered line (a line id)
  std::uint32_t hits;               // dependent hits per record
  const int* role_of_sm;            // [kMaxSmIds]: -1 idle, 0 hammer, k + 1 probe k
  std::uint32_t hammers, probes;
  const std::uint32_t* probe_lines; // probes x per_probe line ids
  std::uint32_t per_probe;
  int* claim;                       // [kMaxSmIds], zeroed
  unsigned* sync;                   // [4], zeroed
  std::uint32_t* out;               // probes x per_probe x 2: quiet, loaded cycles (pair overhead included)
  std::uint32_t* seen;              // [probes]: 1 + the hammers started when the loaded pass began (0: did not run)
  std::uint64_t spin_limit;
};

__device__ __forceinline__ unsigned volatile_read(const unsigned* p) { return *reinterpret_cast<const volatile unsigned*>(p); }

__device__ __forceinline__ std::uint32_t probe_line(const std::uint32_t* q, std::uint32_t hits, std::uint32_t* sink,
                                                    std::uint32_t& v) {
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(q + v) : "memory");
  store_shared(sink, v);
  const std::uint64_t t0 = read_clock();
  for (std::uint32_t r = 0; r < hits; ++r) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(q + v) : "memory");
  store_shared(sink, v);
  return static_cast<std::uint32_t>(read_clock() - t0);
}

template <int Unused = 0>
__global__ void slice_contention_kernel(ContentionArgs a) {
  __shared__ int s_role;
  __shared__ std::uint32_t s_sink;
  if (threadIdx.x == 0) {
    const unsigned sm = smid();
    const int role = sm < kMaxSmIds ? a.role_of_sm[sm] : -1;
    s_role = role >= 0 && atomicCAS(a.claim + sm, 0, 1) == 0 ? role : -1;
  }
  __syncthreads();
  const int role = s_role;
  if (role < 0) return;
  const std::uint64_t t0 = read_clock();
  if (role == 0) {  // hammer: wait for the probes' quiet pass, then load the target until told to stop
    if (threadIdx.x == 0) atomicAdd(a.sync + 0, 1u);
    while (volatile_read(a.sync + 1) < a.probes && read_clock() - t0 < a.spin_limit) __nanosleep(256);
    const std::uint32_t* q = a.base + a.lines[a.target];
    std::uint32_t v[kHammerChains] = {};
    for (std::uint32_t it = 0;; ++it) {
#pragma unroll
      for (int c = 0; c < kHammerChains; ++c)
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v[c]) : "l"(q + c * 8 + v[c]) : "memory");
      if ((it & 7) == 0 && (volatile_read(a.sync + 3) != 0 || read_clock() - t0 > a.spin_limit)) break;
    }
    std::uint32_t keep = 0;
#pragma unroll
    for (int c = 0; c < kHammerChains; ++c) keep ^= v[c];
    if (keep == 0x9E3779B9u) a.sync[3] = keep;  // keeps the loads (the lines hold 0)
    return;
  }
  if (threadIdx.x != 0) return;
  const std::uint32_t k = static_cast<std::uint32_t>(role - 1);
  const std::uint32_t* mine = a.probe_lines + static_cast<std::uint64_t>(k) * a.per_probe;
  std::uint32_t v = 0;
  for (std::uint32_t i = 0; i < a.per_probe; ++i)
    a.out[(static_cast<std::uint64_t>(k) * a.per_probe + i) * 2] = probe_line(a.base + a.lines[mine[i]], a.hits, &s_sink, v);
  atomicAdd(a.sync + 1, 1u);
  while (volatile_read(a.sync + 0) < a.hammers && read_clock() - t0 < a.spin_limit) __nanosleep(256);
  const unsigned started = volatile_read(a.sync + 0);
  const std::uint64_t t1 = read_clock();
  while (read_clock() - t1 < 20000) {}  // the hammers' queues fill
  for (std::uint32_t i = 0; i < a.per_probe; ++i)
    a.out[(static_cast<std::uint64_t>(k) * a.per_probe + i) * 2 + 1] = probe_line(a.base + a.lines[mine[i]], a.hits, &s_sink, v);
  a.seen[k] = started + 1 + (v == 0x9E3779B9u ? 1u : 0u);
  if (atomicAdd(a.sync + 2, 1u) + 1 == a.probes) atomicExch(a.sync + 3, 1u);
}

}  // namespace memhier::kern
