// The trials of the cache_streams family (docs/methodology.md, section cache_streams): variants,
// the layout of the array, the record fields and the counter-based stream of random pool lines.
// Plain C++ usable from CUDA device code too (kernels/cache_streams.cuh uses the same hash), so the
// GPU kernel, the simulated device (sim/streams) and the analyzer share one definition.
#pragma once
#include <cstdint>
#include <string>

#if defined(__CUDACC__)
#define MEMHIER_STREAMS_HD __host__ __device__
#else
#define MEMHIER_STREAMS_HD
#endif

namespace memhier {

// restream: the trial's k stream lines read once before the target and again after it (the lines
// after the target were read before it: hits where they stayed; docs/methodology.md, cache_streams).
enum class StreamVariant : int { fresh = 0, reread1 = 1, reread2 = 2, mid = 3, two_ages = 4, restream = 5 };
constexpr int kStreamVariantCount = 6;
const char* stream_variant_name(StreamVariant v);
bool parse_stream_variant(const std::string& s, StreamVariant* out);

// Re-reads of a target before its stream (reread1: 1, reread2: 2, others 0).
MEMHIER_STREAMS_HD constexpr int stream_rereads(StreamVariant v) {
  return v == StreamVariant::reread1 ? 1 : v == StreamVariant::reread2 ? 2 : 0;
}

// The array of a streams run: [targets region | pool]. Targets are handed out once per process from
// the targets region (lines never read before in the run); the pool follows it.
constexpr std::uint64_t kStreamTargetRegionBytes = 64ull << 20;
constexpr std::uint32_t kStreamLineBytes = 128;
constexpr std::uint64_t kStreamTargetRegionLines = kStreamTargetRegionBytes / kStreamLineBytes;
// Hit reference: per SM, this many lines loaded and then loaded again timed.
constexpr int kStreamHitRefs = 8;
// Record fields per target (16-bit latencies, clock overhead removed).
enum StreamField : int { kFirst = 0, kMid = 1, kFinal = 2, kFirst2 = 3, kFinal2 = 4 };
constexpr int kStreamFields = 5;

// Lines one SM slot takes from the targets region: two per target (T1, T2) and the hit references.
MEMHIER_STREAMS_HD constexpr std::uint64_t stream_target_lines_per_slot(std::uint32_t trials, std::uint32_t targets) {
  return 2ull * trials * targets + kStreamHitRefs;
}
// Target T1 (which = 0) or T2 (which = 1) of (slot, trial, target j), a line of the targets region
// counted from `first` (the launch's first line).
MEMHIER_STREAMS_HD constexpr std::uint64_t stream_target_line(std::uint64_t first, std::uint32_t trials,
                                                              std::uint32_t targets, std::uint32_t slot,
                                                              std::uint32_t trial, std::uint32_t j, int which) {
  return first + slot * stream_target_lines_per_slot(trials, targets) + 2ull * (static_cast<std::uint64_t>(trial) * targets + j) +
         static_cast<std::uint64_t>(which);
}
MEMHIER_STREAMS_HD constexpr std::uint64_t stream_ref_line(std::uint64_t first, std::uint32_t trials, std::uint32_t targets,
                                                           std::uint32_t slot, int r) {
  return first + slot * stream_target_lines_per_slot(trials, targets) + 2ull * trials * targets + static_cast<std::uint64_t>(r);
}

// splitmix64's finalizer after its golden-ratio step (as common/policy.hpp's splitmix64_mix).
MEMHIER_STREAMS_HD inline std::uint64_t streams_mix(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
// The key of one trial's stream (trial = kStreamWarmTrial: the warm stream before the trials).
constexpr std::uint32_t kStreamWarmTrial = 0xFFFFFFFFu;
MEMHIER_STREAMS_HD inline std::uint64_t stream_key(std::uint64_t seed, std::uint32_t slot, std::uint32_t trial) {
  return streams_mix(streams_mix(seed ^ (static_cast<std::uint64_t>(slot) << 32)) ^ trial);
}
// Pool line (0 ... pool_lines - 1) of stream position i: uniform, with replacement (multiply-high).
MEMHIER_STREAMS_HD inline std::uint64_t stream_pool_line(std::uint64_t key, std::uint64_t i, std::uint64_t pool_lines) {
  const std::uint64_t h = streams_mix(key + i * 0xD1B54A32D192ED03ull);
#if defined(__CUDA_ARCH__)
  return __umul64hi(h, pool_lines);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(h) * pool_lines) >> 64);
#endif
}

}  // namespace memhier
