#include "bench/wide/wide_family.hpp"

#include "bench/core/guard.hpp"

#include <algorithm>
#include <cmath>
#include <regex>

#include "bench/core/registry.hpp"
#include "common/bench_name.hpp"

namespace memhier {

std::string tlb_bench_name(const TlbPoint& p) {
  BenchName n("tlb");
  n.add("alloc", wide_alloc_name(p.alloc));
  n.add("bytes", static_cast<std::int64_t>(p.bytes)).add("stride", static_cast<std::int64_t>(p.stride));
  if (p.mode != Mode::count) n.add("mode", mode_name(p.mode));
  if (p.lines != kTlbDefaultLines) n.add("lines", static_cast<std::int64_t>(p.lines));
  if (p.span != kWideSpanBytes) n.add("span", static_cast<std::int64_t>(p.span));
  if (p.seed) n.add("seed", static_cast<std::int64_t>(p.seed));
  if (p.timed != kTlbMinTimed) n.add("timed", static_cast<std::int64_t>(p.timed));
  return n.str();
}

WideChaseRequest tlb_chase(const TlbPoint& p) {
  WideChaseRequest r;
  r.path = Path::global_cg;
  r.mode = p.mode;
  r.alloc = p.alloc;
  r.chain = make_wide_chain(p.bytes, p.stride, std::max(p.lines, p.stride ? p.bytes / p.stride : 1), p.span, p.seed);
  r.footprint_bytes = p.bytes;
  const std::uint64_t cycle = wide_elements(r.chain);
  r.warm = cycle;
  r.iters = cycle * ((std::max<std::uint64_t>(p.timed, 1) + cycle - 1) / std::max<std::uint64_t>(cycle, 1));
  r.max_records = static_cast<std::uint32_t>(std::min<std::uint64_t>(r.iters, 8192));
  // blocks of whole passes: every pass touches the same pages, so block means differ only by noise
  const std::uint64_t pass = std::max<std::uint64_t>(r.chain.slots, 1);
  r.block_len = pass * ((r.iters + 64 * pass - 1) / (64 * pass));
  return r;
}

namespace {
std::string& wide_filter() {
  static std::string f;
  return f;
}
}  // namespace

void set_wide_filter(const std::string& filter) { wide_filter() = filter; }

bool wide_selected(const std::string& name) {
  std::string f = wide_filter();
  if (f.empty() || f == "all" || f == ".") return true;
  const bool negate = f[0] == '-';
  if (negate) f = f.substr(1);
  try {
    return std::regex_search(name, std::regex(f)) != negate;
  } catch (const std::regex_error&) {
    return true;  // Google Benchmark reports a bad filter itself
  }
}

WideChaseResult WideGroup::take(int i) {
  if (results_.empty() || !fresh_[i]) {
    // the members this run selects (and always i), on one mapping
    std::vector<std::size_t> ids;
    std::vector<WideChaseRequest> batch;
    for (std::size_t k = 0; k < reqs_.size(); ++k)
      if (static_cast<int>(k) == i || names_[k].empty() || wide_selected(names_[k])) {
        ids.push_back(k);
        batch.push_back(reqs_[k]);
      }
    std::vector<WideChaseResult> res;
    try {
      res = backend().run_wide_batch(batch);
    } catch (const std::exception& e) {  // every member skips with the reason; the run goes on
      res.assign(batch.size(), WideChaseResult{});
      for (auto& r : res) r.error = e.what();
    }
    results_.assign(reqs_.size(), WideChaseResult{});
    fresh_.assign(reqs_.size(), false);
    for (std::size_t k = 0; k < ids.size(); ++k) {
      results_[ids[k]] = std::move(res[k]);
      fresh_[ids[k]] = true;
    }
  }
  fresh_[i] = false;
  return results_[i];
}

void register_wide(const std::string& name, std::shared_ptr<WideGroup> group, int member, WideReport report) {
  register_guarded(name, [name, group, member, report](benchmark::State& state) {
    for (auto _ : state) {
      WideChaseResult res = group->take(member);
      report(state, name, group->request(member), res);
      if (!res.error.empty()) break;
    }
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

double block_ci95(const std::vector<double>& b) {
  if (b.size() < 8) return -1;  // too few blocks: the caller falls back on the spread of single accesses
  double m = 0, v = 0;
  for (double x : b) m += x;
  m /= static_cast<double>(b.size());
  for (double x : b) v += (x - m) * (x - m);
  v /= static_cast<double>(b.size() - 1);
  const double dof = static_cast<double>(b.size() - 1);
  const double t = 1.96 + 2.5 / dof;  // Student t(0.975): 2.00 at 63 dof, 2.09 at 19
  return t * std::sqrt(v / static_cast<double>(b.size()));
}

bool report_wide_basics(benchmark::State& state, const WideChaseResult& res) {
  if (!res.error.empty()) {
    state.SkipWithError(res.error.c_str());
    return false;
  }
  state.SetIterationTime(std::max(res.seconds, 1e-9));
  auto& c = state.counters;
  c["latency_cycles"] = res.latency_cycles;
  c["clock_overhead_cycles"] = res.clock_overhead_cycles;
  c["accesses"] = static_cast<double>(res.accesses);
  c["mapped_bytes"] = static_cast<double>(res.mapped_bytes);
  return true;
}

void report_wide(benchmark::State& state, const std::string& name, const WideChaseRequest& req,
                 const WideChaseResult& res) {
  if (!report_wide_basics(state, res)) return;
  auto& c = state.counters;
  c["latency_sd_cycles"] = res.latency_sd_cycles;
  const double ci = block_ci95(res.block_means);
  c["latency_ci95_cycles"] = ci >= 0 ? ci : 1.96 * res.latency_sd_cycles / std::sqrt(std::max<double>(res.accesses, 1));
  c["slots"] = static_cast<double>(req.chain.slots);
  c["passes"] = static_cast<double>(req.chain.passes);
  if (res.chunk_bytes) c["chunk_bytes"] = static_cast<double>(res.chunk_bytes);
  if (res.gap_bytes) c["gap_bytes"] = static_cast<double>(res.gap_bytes);
  if (res.alloc_seconds > 0) c["alloc_seconds"] = res.alloc_seconds;
  if (res.sm_id >= 0) c["sm_id"] = res.sm_id;
  Trace t;
  t.benchmark = name;
  t.clock_overhead_cycles = res.clock_overhead_cycles;
  t.meta["alloc"] = wide_alloc_name(req.alloc);
  t.meta["slots"] = std::to_string(req.chain.slots);
  t.meta["passes"] = std::to_string(req.chain.passes);
  t.meta["warm_accesses"] = std::to_string(req.warm);
  if (req.mode == Mode::fine) {
    t.kind = Trace::Kind::fine;
    t.index = res.index;
    t.latency = res.latency;
  } else {
    t.kind = Trace::Kind::histogram;
    t.hist = res.hist;
  }
  write_bench_trace(name, t);
}

}  // namespace memhier
