#include "sim/streams.hpp"

namespace memhier::sim {

StreamsOutcome run_streams(SimDevice& dev, const StreamsSpec& s) {
  StreamsOutcome o;
  const std::uint32_t T = s.trials, M = s.targets;
  o.records.assign(kStreamHitRefs + static_cast<std::size_t>(T) * M * kStreamFields, 0);
  const std::uint64_t base = dev.config().array_base;
  // The trials draw from the noise generators as every access does; what the other families draw
  // afterwards must not depend on them (the gate's noisy simulated devices compare runs of two configs).
  const auto noise = dev.noise_states();
  struct Restore {
    SimDevice& d;
    std::pair<std::uint64_t, std::uint64_t> s;
    ~Restore() { d.restore_noise_states(s); }
  } restore{dev, noise};
  auto begin_launch = [&] {
    if (dev.config().sequences_as_left) dev.new_launch();  // what earlier work left, like a GPU
    else dev.reset();
  };
  auto load = [&](int path, std::uint64_t line) {
    const std::uint32_t lat = dev.access(path, base + line * kStreamLineBytes);
    ++o.accesses;
    o.total_cycles += lat;
    return lat;
  };
  const std::uint32_t slot = 0;  // one SM
  auto walk = [&](std::uint64_t key, std::uint32_t begin, std::uint32_t end) {
    for (std::uint32_t i = begin; i < end; ++i) load(s.path, kStreamTargetRegionLines + stream_pool_line(key, i, s.pool_lines));
  };
  // A launch: the warm stream, then the hit references (each loaded twice, the second timed).
  auto launch_start = [&] {
    begin_launch();
    walk(stream_key(s.seed, slot, kStreamWarmTrial), 0, s.warm);
    for (int r = 0; r < kStreamHitRefs; ++r) {
      const std::uint64_t line = stream_ref_line(s.first_target_line, T, M, slot, r);
      load(s.path, line);
      o.records[r] = load(s.path, line);
    }
  };
  const int rereads = stream_rereads(s.variant);
  const bool split = s.variant == StreamVariant::mid || s.variant == StreamVariant::two_ages;
  for (std::uint32_t t = 0; t < T; ++t) {
    if (t % kSimStreamTrialsPerLaunch == 0) launch_start();  // as a GPU's SM runs a few trials a launch
    std::uint32_t* rec = o.records.data() + kStreamHitRefs + static_cast<std::size_t>(t) * M * kStreamFields;
    const std::uint64_t key = stream_key(s.seed, slot, t);
    auto target = [&](std::uint32_t j, int which) { return stream_target_line(s.first_target_line, T, M, slot, t, j, which); };
    if (s.prime_path >= 0)  // the trial's targets into the L2 just before it
      for (std::uint32_t j = 0; j < M; ++j)
        for (int which = 0; which < (s.variant == StreamVariant::two_ages ? 2 : 1); ++which) load(s.prime_path, target(j, which));
    if (s.variant == StreamVariant::restream) walk(key, 0, s.k);  // the same lines again after the targets
    for (std::uint32_t j = 0; j < M; ++j) rec[j * kStreamFields + kFirst] = load(s.path, target(j, 0));
    for (int q = 0; q < rereads; ++q)
      for (std::uint32_t j = 0; j < M; ++j) load(s.path, target(j, 0));
    if (split) {
      walk(key, 0, s.k / 2);
      const bool mid = s.variant == StreamVariant::mid;
      for (std::uint32_t j = 0; j < M; ++j) rec[j * kStreamFields + (mid ? kMid : kFirst2)] = load(s.path, target(j, mid ? 0 : 1));
      walk(key, s.k / 2, s.k);
    } else {
      walk(key, 0, s.k);
    }
    for (std::uint32_t j = 0; j < M; ++j) rec[j * kStreamFields + kFinal] = load(s.path, target(j, 0));
    if (s.variant == StreamVariant::two_ages)
      for (std::uint32_t j = 0; j < M; ++j) rec[j * kStreamFields + kFinal2] = load(s.path, target(j, 1));
  }
  return o;
}

}  // namespace memhier::sim
