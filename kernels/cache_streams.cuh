// Random-stream trials (docs/methodology.md, section cache_streams; common/streams.hpp): one thread
// per CTA. All-SM launches: 2 x SM-count CTAs, the first CTA on each SM claims it (atomicCAS on a
// per-SM flag) and takes a slot (atomicAdd), the others exit. One-SM launches (the L2): CTA 0.
// Per slot: a warm stream, the hit reference (each reference line loaded, then loaded again timed),
// then the trials; on L1-side paths each trial first reads its targets through ld.global.cg (the
// L2 only), so that a first load is an L2 hit (as an evicted target's reload is).
//   - A timed load is the fine chase's window (kernels/pchase.cuh): clock64, the load, a dependent
//     st.shared of its value, clock64; the address is pinned in a register before the first clock
//     read. The fine clock overhead (L.overhead, measured by the backend) is removed here.
//   - dep: every stream address adds (previous value & chain_mask), chain_mask = 0 at run time, so
//     no load starts before the one before it completed. indep: 8 loads per step from the hash
//     alone, the step's sum feeding the next step's addresses through the same zero mask.
//   - Records (16-bit latencies) stay in shared memory during the walk; the thread copies them to
//     global memory after it (no global write during the walk). One thread: no shared-memory race.
// This header declares no __constant__ memory.
#pragma once
#include <cstdint>

#include "common/streams.hpp"
#include "kernels/clock.cuh"
#include "kernels/load_ops.cuh"

namespace memhier::kern {

constexpr unsigned kStreamMaxSmIds = 1024;  // size of the per-SM claim array

struct StreamsLaunch {
  const std::uint32_t* array;      // [targets region | pool]
  cudaTextureObject_t tex;         // texture object over the array (texture path)
  std::uint64_t pool_first_line;   // first line of the pool in the array
  std::uint64_t pool_lines;
  std::uint64_t first_target_line; // the launch's first line of the targets region
  std::uint32_t line_words;        // words per line (32)
  std::uint32_t trials, targets, k, warm;
  int variant;                     // StreamVariant
  int dep;                         // 1: dependent stream loads; 0: 8 independent loads per step
  int prime;                       // 1: read each trial's targets through global_cg just before it
  int all_sms;                     // 1: every SM (claim); 0: CTA 0 only
  unsigned max_slots;              // slots available in out_records / out_smid
  std::uint64_t seed;
  std::uint32_t overhead;          // cycles removed from each timed sample (clamped at 0)
  std::uint32_t chain_mask;        // 0 at run time
  int* claim;                      // kStreamMaxSmIds flags (zeroed)
  unsigned* slots_taken;           // zeroed
  std::uint16_t* out_records;      // max_slots x stream words
  int* out_smid;                   // per slot
  std::uint32_t* out_sink;         // per slot: the last loaded values (keeps the walk observable)
};

template <int PATH>  // 0 global_ca, 1 global_cg, 2 ldg, 3 texture (the sequence path codes)
__device__ __forceinline__ std::uint32_t streams_load(const StreamsLaunch& L, std::uint64_t element) {
  if constexpr (PATH == 3) return load_tex(L.tex, static_cast<std::uint32_t>(element));
  else if constexpr (PATH == 0) return load_ca(L.array + element);
  else if constexpr (PATH == 1) return load_cg(L.array + element);
  else return load_nc(L.array + element);
}

// One timed load of `line` (chain & chain_mask added: it waits for the load before it).
template <int PATH>
__device__ __forceinline__ std::uint16_t streams_timed(const StreamsLaunch& L, std::uint64_t line, std::uint32_t& chain,
                                                       std::uint32_t* sink) {
  const std::uint32_t lat = timed_load(line * L.line_words + (chain & L.chain_mask),
                                       [&L](std::uint64_t e) { return streams_load<PATH>(L, e); }, sink, L.overhead, chain);
  return static_cast<std::uint16_t>(lat < 65535u ? lat : 65535u);
}

template <int PATH>
__device__ __forceinline__ void streams_untimed(const StreamsLaunch& L, std::uint64_t line, std::uint32_t& chain) {
  chain = streams_load<PATH>(L, line * L.line_words + (chain & L.chain_mask));
}

// Stream positions [begin, end) of the stream with key `key`.
template <int PATH>
__device__ void streams_walk(const StreamsLaunch& L, std::uint64_t key, std::uint32_t begin, std::uint32_t end,
                             std::uint32_t& chain) {
  if (L.dep) {
    for (std::uint32_t i = begin; i < end; ++i)
      streams_untimed<PATH>(L, L.pool_first_line + stream_pool_line(key, i, L.pool_lines), chain);
    return;
  }
  for (std::uint32_t i = begin; i < end; i += 8) {
    const std::uint32_t add = chain & L.chain_mask;  // the step waits for the step before it
    std::uint32_t v[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      v[j] = 0;
      if (i + j < end)
        v[j] = streams_load<PATH>(L, (L.pool_first_line + stream_pool_line(key, i + j, L.pool_lines)) * L.line_words + add);
    }
    std::uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < 8; ++j) sum += v[j];
    chain = sum;
  }
}

template <int PATH>
__device__ void streams_slot(const StreamsLaunch& L, unsigned slot, std::uint16_t* rec, std::uint32_t* sink) {
  const StreamVariant var = static_cast<StreamVariant>(L.variant);
  const std::uint32_t T = L.trials, M = L.targets;
  std::uint32_t chain = 0;
  streams_walk<PATH>(L, stream_key(L.seed, slot, kStreamWarmTrial), 0, L.warm, chain);
  for (int r = 0; r < kStreamHitRefs; ++r) {
    const std::uint64_t line = stream_ref_line(L.first_target_line, T, M, slot, r);
    streams_untimed<PATH>(L, line, chain);
    rec[r] = streams_timed<PATH>(L, line, chain, sink);
  }
  const int rereads = stream_rereads(var);
  const std::uint32_t half = L.k / 2;
  for (std::uint32_t t = 0; t < T; ++t) {
    std::uint16_t* r = rec + kStreamHitRefs + t * M * kStreamFields;
    const std::uint64_t key = stream_key(L.seed, slot, t);
    if (L.prime)  // the trial's targets into the L2 just before it (global_cg does not fill the L1)
      for (std::uint32_t j = 0; j < M; ++j)
        for (int which = 0; which < (var == StreamVariant::two_ages ? 2 : 1); ++which) {
          const std::uint64_t line = stream_target_line(L.first_target_line, T, M, slot, t, j, which);
          chain = load_cg(L.array + line * L.line_words + (chain & L.chain_mask));
        }
    if (var == StreamVariant::restream) streams_walk<PATH>(L, key, 0, L.k, chain);  // the same lines again below
    for (std::uint32_t j = 0; j < M; ++j)
      r[j * kStreamFields + kFirst] =
          streams_timed<PATH>(L, stream_target_line(L.first_target_line, T, M, slot, t, j, 0), chain, sink);
    for (int q = 0; q < rereads; ++q)
      for (std::uint32_t j = 0; j < M; ++j)
        streams_untimed<PATH>(L, stream_target_line(L.first_target_line, T, M, slot, t, j, 0), chain);
    if (var == StreamVariant::mid || var == StreamVariant::two_ages) {
      streams_walk<PATH>(L, key, 0, half, chain);
      const int which = var == StreamVariant::mid ? 0 : 1;
      const int field = var == StreamVariant::mid ? kMid : kFirst2;
      for (std::uint32_t j = 0; j < M; ++j)
        r[j * kStreamFields + field] =
            streams_timed<PATH>(L, stream_target_line(L.first_target_line, T, M, slot, t, j, which), chain, sink);
      streams_walk<PATH>(L, key, half, L.k, chain);
    } else {
      streams_walk<PATH>(L, key, 0, L.k, chain);
    }
    for (std::uint32_t j = 0; j < M; ++j)
      r[j * kStreamFields + kFinal] =
          streams_timed<PATH>(L, stream_target_line(L.first_target_line, T, M, slot, t, j, 0), chain, sink);
    if (var == StreamVariant::two_ages)
      for (std::uint32_t j = 0; j < M; ++j)
        r[j * kStreamFields + kFinal2] =
            streams_timed<PATH>(L, stream_target_line(L.first_target_line, T, M, slot, t, j, 1), chain, sink);
  }
  store_shared(sink + 1, chain);
}

// Launch with one thread per CTA. Dynamic shared memory: stream words x 2 bytes (rounded up to 4).
template <int PATH>
__global__ void cache_streams_kernel(StreamsLaunch L) {
  extern __shared__ std::uint16_t s_rec[];
  __shared__ std::uint32_t s_sink[2];
  unsigned slot = 0;
  int sm = static_cast<int>(smid());
  if (L.all_sms) {
    if (static_cast<unsigned>(sm) >= kStreamMaxSmIds || atomicCAS(L.claim + sm, 0, 1) != 0) return;
    slot = atomicAdd(L.slots_taken, 1u);
    if (slot >= L.max_slots) return;
  } else {
    if (blockIdx.x != 0) return;
    *L.slots_taken = 1;
  }
  const std::uint32_t words = kStreamHitRefs + L.trials * L.targets * kStreamFields;
  for (std::uint32_t i = 0; i < words; ++i) s_rec[i] = 0;
  s_sink[0] = s_sink[1] = 0;
  streams_slot<PATH>(L, slot, s_rec, s_sink);
  std::uint16_t* out = L.out_records + static_cast<std::uint64_t>(slot) * words;
  for (std::uint32_t i = 0; i < words; ++i) out[i] = s_rec[i];
  L.out_smid[slot] = sm;
  L.out_sink[slot] = s_sink[0] ^ s_sink[1];
}

}  // namespace memhier::kern
