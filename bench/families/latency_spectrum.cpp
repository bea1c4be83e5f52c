// latency_spectrum: one cold fine-grained chase over the whole memory whose non-uniform strides
// expose the access patterns P1-P6 of 000 §5.2 (Fig. 13/14; 001 Table 3): far pages touched first,
// new lines of the page just used, those lines again, revisits of the last g far pages (g = 4, 16,
// 64, ...: cache hits behind more and more translations), new lines of every far page, the rest of
// one line (common/wide_spectrum.hpp). Whole-memory chase (kernels/wide_chase.cuh): the far pages
// lie in the first half of the free memory; before the chase the L2 is overwritten and one word per
// 64 KiB of the second half is read, so the far pages' translations are not cached. Each pattern's
// median latency is a counter `<pattern>_cycles`, each revisit group's mean and the group before's
// on the same lines `revisit_<g>_paired[_before]_cycles`; the trace labels every access.
#include <algorithm>
#include <cmath>
#include <map>

#include "bench/wide/wide_family.hpp"
#include "bench/core/registry.hpp"
#include "common/bench_name.hpp"
#include "common/wide_spectrum.hpp"

namespace memhier {
namespace {

double median(std::vector<std::uint32_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Revisit group i against group i-1 on the pages both revisit (second rounds). Both read the same
// line of each page (offsets inside one 128-byte line), so the L2 slice and partition of the line
// cancel out and only the translation state differs: the H100's near and far L2 halves (~29
// cycles apart) move the groups' own medians by more than a 10-cycle TLB penalty. Counters
// `revisit_<g>_paired_cycles` and `revisit_<g>_paired_before_cycles`: the means of group i and of
// group i-1 over those pages (pages whose difference lies 50 cycles or more from the median
// difference, an interrupted access, left out of both): their difference is the step; with
// `_paired_pages` and the spread of the per-page differences `_paired_sd_cycles`.
void revisit_steps(benchmark::State& state, const WideChaseResult& res, const WideSpectrum& ws) {
  const std::uint8_t first = static_cast<std::uint8_t>(WidePattern::revisit);
  std::vector<std::map<std::uint64_t, double>> by(ws.groups.size());  // group -> page -> latency
  for (std::size_t k = 0; k < res.latency.size() && k < ws.label.size(); ++k)
    if (ws.label[k] >= first && ws.label[k] - first < static_cast<int>(by.size()))
      by[ws.label[k] - first][ws.positions[k] / ws.far_stride] = res.latency[k];
  for (std::size_t i = 1; i < by.size(); ++i) {
    std::vector<std::pair<double, double>> pairs;  // (group i, group i-1) per common page
    for (const auto& [page, lat] : by[i - 1])
      if (auto it = by[i].find(page); it != by[i].end()) pairs.push_back({it->second, lat});
    if (pairs.empty()) continue;
    std::vector<double> d;
    for (auto [a, b] : pairs) d.push_back(a - b);
    std::sort(d.begin(), d.end());
    const double med = d[d.size() / 2];
    double sa = 0, sb = 0, sd2 = 0, n = 0;
    for (auto [a, b] : pairs)
      if (std::fabs(a - b - med) < 50) sa += a, sb += b, sd2 += (a - b) * (a - b), ++n;
    const std::string g = wide_pattern_name(ws, static_cast<std::uint8_t>(first + i));
    state.counters[g + "_paired_cycles"] = sa / n;
    state.counters[g + "_paired_before_cycles"] = sb / n;
    state.counters[g + "_paired_pages"] = n;
    state.counters[g + "_paired_sd_cycles"] = std::sqrt(std::max(0.0, sd2 / n - (sa - sb) * (sa - sb) / (n * n)));
  }
}

void report_spectrum(benchmark::State& state, const std::string& name, const WideChaseRequest& req,
                     const WideChaseResult& res, const WideSpectrum& ws) {
  if (!report_wide_basics(state, res)) return;
  auto& c = state.counters;
  c["far_pages"] = ws.far_pages;
  c["far_stride"] = static_cast<double>(ws.far_stride);
  std::vector<std::vector<std::uint32_t>> by(static_cast<std::size_t>(WidePattern::revisit) + ws.groups.size());
  for (std::size_t k = 0; k < res.latency.size() && k < ws.label.size(); ++k) by[ws.label[k]].push_back(res.latency[k]);
  for (std::size_t q = 0; q < by.size(); ++q)
    if (q != static_cast<std::size_t>(WidePattern::setup) && !by[q].empty())
      c[wide_pattern_name(ws, static_cast<std::uint8_t>(q)) + "_cycles"] = median(by[q]);
  revisit_steps(state, res, ws);
  Trace t;
  t.benchmark = name;
  t.kind = Trace::Kind::fine;
  t.clock_overhead_cycles = res.clock_overhead_cycles;
  t.index = res.index;
  t.latency = res.latency;
  t.label.assign(ws.label.begin(), ws.label.begin() + std::min(ws.label.size(), res.latency.size()));
  std::string labels;
  for (std::size_t q = 0; q < by.size(); ++q)
    labels += (q ? " " : "") + std::to_string(q) + "=" + wide_pattern_name(ws, static_cast<std::uint8_t>(q));
  t.meta["labels"] = labels;
  t.meta["alloc"] = wide_alloc_name(req.alloc);
  write_bench_trace(name, t);
}

void register_spectrum(Backend& be) {
  if (plan() == Plan::none) return;
  const WideLimits lim = be.wide_limits();
  const std::uint64_t half = lim.malloc_bytes / 2 / (2ull << 20) * (2ull << 20);
  WideSpectrumParams sp;
  sp.footprint_bytes = half;
  if (plan() == Plan::quick) sp.max_far_pages = 128;
  if (half / sp.min_far_stride < 2) return;  // not offered, or too little memory for two far pages
  auto ws = std::make_shared<WideSpectrum>(wide_spectrum(sp));
  for (Path p : {Path::global_ca, Path::global_cg}) {
    if (!be.supports(p)) continue;
    WideChaseRequest r;
    r.path = p;
    r.mode = Mode::fine;
    r.alloc = WideAlloc::malloc;
    r.positions = ws->positions;
    r.footprint_bytes = lim.malloc_bytes;
    r.iters = ws->positions.size();
    r.max_records = static_cast<std::uint32_t>(r.iters);
    r.cold = true;  // the first touches are part of the spectrum
    r.flush_begin = half;
    r.flush_end = lim.malloc_bytes;
    BenchName name("latency_spectrum");
    name.add("path", path_name(p)).add("bytes", static_cast<std::int64_t>(half));
    name.add("far_pages", ws->far_pages).add("far_stride", static_cast<std::int64_t>(ws->far_stride));
    auto group = std::make_shared<WideGroup>();  // a fresh mapping per path
    const int member = group->add(std::move(r), name.str());
    register_wide(name.str(), group, member,
                  [ws](benchmark::State& s, const std::string& n, const WideChaseRequest& q, const WideChaseResult& res) {
                    report_spectrum(s, n, q, res, *ws);
                  });
  }
}

FamilyRegistrar reg("latency_spectrum", false, register_spectrum);

}  // namespace
}  // namespace memhier
