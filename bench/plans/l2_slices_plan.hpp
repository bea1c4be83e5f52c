// The contention run of l2_slices (docs/methodology.md, "l2_slices"), shared by the CUDA backend
// and the simulated device: who hammers and who probes, which references are hammered (one after
// another until every test line slowed down with one of them), and the trace it leaves. Plain C++.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "bench/levels/levels.hpp"

namespace memhier {

// "a,b,c": the trace header lists of the l2_slices and l2_evsets host code (numbers or words).
template <typename T>
std::string slice_join(const std::vector<T>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ",";
    if constexpr (std::is_same_v<T, std::string>) s += v[i];
    else s += std::to_string(v[i]);
  }
  return s;
}

// The fingerprint's trace (content l2_slice_fingerprint, docs/formats.md) and counters:
// `cycles(slot, pass, line)` the cycles of `hits` hits with the clock pair's overhead removed, for
// the SMs `sm_ids` (slot order) that ran; `sms_failed` the SMs that got no CTA.
LevelResult fingerprint_result(const std::vector<unsigned>& sm_ids, std::size_t sms_failed,
                               const std::vector<std::uint64_t>& offsets, std::uint32_t hits, std::uint32_t passes,
                               double overhead_cycles,
                               const std::function<std::uint32_t(std::size_t, std::uint32_t, std::size_t)>& cycles);

struct ContentionLayout {
  std::vector<unsigned> hammer_sms, probe_sms;
  std::uint32_t lines = 0, copies = 0, per_probe = 0;
  std::vector<std::uint32_t> probe_lines;  // probes x per_probe line ids (padded with the probe's first)
  std::vector<std::uint32_t> where;        // (line x copies + copy) -> probe x per_probe + slot
};
// Even slots of `sm_ids` hammer, odd ones probe; line l's copy c goes to probe (l x copies + c) mod
// probes.
ContentionLayout contention_layout(const std::vector<unsigned>& sm_ids, std::uint32_t lines, std::uint32_t copies);

// One launch: hammer line `target`, fill `out` (probes x per_probe x 2: quiet, loaded cycles of
// `hits` hits) and return its device seconds; `short_hammers` counts probes that began their loaded
// pass before every hammer had started.
using ContentionLaunch = std::function<double(std::uint32_t target, std::vector<std::uint32_t>* out, std::uint32_t* short_hammers)>;

// References until every line is covered (each copy slowed by half the reference's own slowdown)
// or 96 references, or 3 without a signal (the reference slowed by < 20 cycles a hit); the trace
// (content l2_slice_contention, docs/formats.md) and the counters.
LevelResult run_contention_plan(const ContentionLayout& layout, const std::vector<std::uint64_t>& offsets, std::uint32_t hits,
                                const ContentionLaunch& launch);

}  // namespace memhier
