// The contention run's plan (bench/plans/l2_slices_plan.hpp).
#include "bench/plans/l2_slices_plan.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "common/l2_slice_lines.hpp"

namespace memhier {
namespace {

constexpr std::size_t kMaxRefs = 96;
constexpr double kSignalCyclesPerHit = 20;

}  // namespace


LevelResult fingerprint_result(const std::vector<unsigned>& sm_ids, std::size_t sms_failed,
                               const std::vector<std::uint64_t>& offsets, std::uint32_t hits, std::uint32_t passes,
                               double overhead_cycles,
                               const std::function<std::uint32_t(std::size_t, std::uint32_t, std::size_t)>& cycles) {
  const std::size_t n = offsets.size();
  Trace tr;
  tr.kind = Trace::Kind::fine;
  tr.clock_overhead_cycles = overhead_cycles;
  std::vector<double> per_hit;
  for (std::size_t slot = 0; slot < sm_ids.size(); ++slot)
    for (std::uint32_t pass = 0; pass < passes; ++pass)
      for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t c = cycles(slot, pass, k);
        tr.index.push_back(static_cast<std::uint32_t>(slot * n + k));
        tr.latency.push_back(c);
        tr.label.push_back(static_cast<std::uint8_t>(pass));
        per_hit.push_back(static_cast<double>(c) / hits);
      }
  tr.meta = {{"content", "l2_slice_fingerprint"}, {"lines", std::to_string(n)}, {"sm_ids", slice_join(sm_ids)},
             {"line_offsets", slice_join(offsets)}, {"page_bytes", std::to_string(kSlicePageBytes)},
             {"repeats", std::to_string(hits)}, {"passes", std::to_string(passes)},
             {"labels", "pass; latency = cycles of `repeats` dependent hits"}};
  LevelResult res;
  auto& c = res.counters;
  c["sms"] = static_cast<double>(sm_ids.size());
  c["sms_failed"] = static_cast<double>(sms_failed);
  c["lines"] = static_cast<double>(n);
  c["repeats"] = hits;
  c["passes"] = passes;
  c["clock_overhead_cycles"] = overhead_cycles;
  if (!per_hit.empty()) {
    c["latency_cycles"] = level_median(per_hit);
    c["latency_min_cycles"] = *std::min_element(per_hit.begin(), per_hit.end());
    c["latency_max_cycles"] = *std::max_element(per_hit.begin(), per_hit.end());
  }
  res.trace = std::move(tr);
  return res;
}

ContentionLayout contention_layout(const std::vector<unsigned>& sm_ids, std::uint32_t lines, std::uint32_t copies) {
  ContentionLayout l;
  l.lines = lines;
  l.copies = copies;
  for (std::size_t s = 0; s < sm_ids.size(); ++s) (s % 2 == 0 ? l.hammer_sms : l.probe_sms).push_back(sm_ids[s]);
  const std::uint32_t probes = static_cast<std::uint32_t>(l.probe_sms.size());
  if (probes == 0 || lines == 0 || copies == 0) return l;
  l.per_probe = (lines * copies + probes - 1) / probes;
  l.probe_lines.assign(static_cast<std::size_t>(probes) * l.per_probe, 0);
  l.where.resize(static_cast<std::size_t>(lines) * copies);
  std::vector<std::uint32_t> fill(probes, 0);
  for (std::uint32_t ln = 0; ln < lines; ++ln)
    for (std::uint32_t c = 0; c < copies; ++c) {
      const std::uint32_t k = (ln * copies + c) % probes;
      l.where[ln * copies + c] = k * l.per_probe + fill[k];
      l.probe_lines[k * l.per_probe + fill[k]++] = ln;
    }
  for (std::uint32_t k = 0; k < probes; ++k)
    for (std::uint32_t i = fill[k]; i < l.per_probe; ++i) l.probe_lines[k * l.per_probe + i] = l.probe_lines[k * l.per_probe];
  return l;
}

LevelResult run_contention_plan(const ContentionLayout& lay, const std::vector<std::uint64_t>& offsets, std::uint32_t hits,
                                const ContentionLaunch& launch) {
  LevelResult res;
  const std::uint32_t n = lay.lines, copies = lay.copies, block = n * copies;
  std::vector<bool> covered(n, false);
  std::vector<std::uint32_t> refs;
  std::vector<std::vector<std::uint32_t>> quiet(block), loaded;
  std::vector<double> own_ratio, other_ratio;  // loaded over quiet cycles
  std::uint32_t short_hammers = 0, silent = 0;
  double seconds = 0;
  std::vector<std::uint32_t> out;
  while (refs.size() < kMaxRefs) {
    const auto next = std::find(covered.begin(), covered.end(), false);
    if (next == covered.end()) break;
    const std::uint32_t target = static_cast<std::uint32_t>(next - covered.begin());
    out.assign(lay.probe_lines.size() * 2, 0);
    seconds += launch(target, &out, &short_hammers);
    refs.push_back(target);
    std::vector<std::uint32_t> ld(block);
    for (std::uint32_t lc = 0; lc < block; ++lc) {
      quiet[lc].push_back(out[lay.where[lc] * 2]);
      ld[lc] = out[lay.where[lc] * 2 + 1];
    }
    loaded.push_back(std::move(ld));
    const std::vector<std::uint32_t>& now = loaded.back();
    auto slow = [&](std::uint32_t ln, std::uint32_t c) {
      return static_cast<double>(now[ln * copies + c]) - static_cast<double>(out[lay.where[ln * copies + c] * 2]);
    };
    auto ratio = [&](std::uint32_t ln, std::uint32_t c) {
      const double q = out[lay.where[ln * copies + c] * 2];
      return q > 0 ? now[ln * copies + c] / q : NAN;
    };
    std::vector<double> own;
    for (std::uint32_t c = 0; c < copies; ++c) own.push_back(slow(target, c));
    const double ref_slow = level_median(own);
    own_ratio.push_back(ratio(target, 0));
    covered[target] = true;
    if (!(ref_slow >= kSignalCyclesPerHit * hits)) {  // the hammer hardly slows its own line: no signal
      if (++silent >= 3) break;
      continue;
    }
    for (std::uint32_t ln = 0; ln < n; ++ln) {
      bool all = true;
      for (std::uint32_t c = 0; c < copies; ++c) all = all && slow(ln, c) >= 0.5 * ref_slow;
      if (all) covered[ln] = true;
      else other_ratio.push_back(ratio(ln, 0));
    }
  }
  Trace tr;
  tr.kind = Trace::Kind::fine;
  for (std::size_t k = 0; k < loaded.size(); ++k)
    for (std::uint32_t lc = 0; lc < block; ++lc) {
      tr.index.push_back(static_cast<std::uint32_t>(k * block + lc));
      tr.latency.push_back(loaded[k][lc]);
      tr.label.push_back(1);
    }
  for (std::uint32_t lc = 0; lc < block; ++lc) {  // the median quiet cycles, after the references' blocks
    std::vector<std::uint32_t> q = quiet[lc];
    std::sort(q.begin(), q.end());
    tr.index.push_back(static_cast<std::uint32_t>(loaded.size() * block + lc));
    tr.latency.push_back(q.empty() ? 0u : q[q.size() / 2]);
    tr.label.push_back(0);
  }
  std::vector<unsigned> psm;
  for (std::uint32_t lc = 0; lc < block; ++lc) psm.push_back(lay.probe_sms[lay.where[lc] / lay.per_probe]);
  tr.meta = {{"content", "l2_slice_contention"}, {"lines", std::to_string(n)}, {"copies", std::to_string(copies)},
             {"line_offsets", slice_join(offsets)}, {"page_bytes", std::to_string(kSlicePageBytes)},
             {"repeats", std::to_string(hits)}, {"refs", slice_join(refs)}, {"probe_sms", slice_join(psm)},
             {"hammer_sms", slice_join(lay.hammer_sms)},
             {"labels", "1 loaded (index = ref x lines x copies + line x copies + copy), 0 quiet (the block after the refs)"}};
  auto& c = res.counters;
  c["lines"] = n;
  c["copies"] = copies;
  c["refs"] = static_cast<double>(refs.size());
  c["hammers"] = static_cast<double>(lay.hammer_sms.size());
  c["probes"] = static_cast<double>(lay.probe_sms.size());
  c["probes_short_of_hammers"] = short_hammers;
  // loaded over quiet cycles (ratios: a slowdown of noise may be negative, a counter may not)
  if (const double x = level_median(own_ratio); std::isfinite(x)) c["reference_loaded_over_quiet"] = x;
  if (const double x = level_median(other_ratio); std::isfinite(x)) c["other_loaded_over_quiet"] = x;
  c["uncovered_lines"] = static_cast<double>(std::count(covered.begin(), covered.end(), false));
  res.seconds = seconds;
  res.trace = std::move(tr);
  return res;
}

}  // namespace memhier
