#include "bench/families/chase_common.hpp"

#include <algorithm>

#include "common/levels.hpp"

namespace memhier {

void report_chase(benchmark::State& state, const std::string& bench_name, const ChaseRequest& req,
                  const ChaseResult& res) {
  if (!res.error.empty()) {
    state.SkipWithError(res.error.c_str());
    return;
  }
  state.SetIterationTime(std::max(res.seconds, 1e-9));
  auto& c = state.counters;
  c["latency_cycles"] = res.latency_cycles;
  c["clock_overhead_cycles"] = res.clock_overhead_cycles;
  c["accesses"] = static_cast<double>(res.accesses);
  if (res.carveout >= 0) c["carveout"] = res.carveout;
  if (res.sm_id >= 0) c["sm_id"] = res.sm_id;
  if (req.mode == Mode::classic) return;

  Trace t;
  t.benchmark = bench_name;
  t.clock_overhead_cycles = res.clock_overhead_cycles;
  t.meta["array_bytes"] = std::to_string(req.array_bytes);
  t.meta["chain_length"] = std::to_string(req.chain.size());
  t.meta["warm"] = req.warm ? "1" : "0";
  Histogram h;
  if (req.mode == Mode::fine) {
    t.kind = Trace::Kind::fine;
    t.index = res.index;
    t.latency = res.latency;
    h = histogram_of(res.latency, 1);
  } else {
    t.kind = Trace::Kind::histogram;
    t.hist = res.hist;
    h = res.hist;
  }
  HitMissSplit s = split_hit_miss(h, backend().hit_baseline(req.path));
  c["misses"] = static_cast<double>(s.misses);
  c["miss_rate"] = h.total() ? static_cast<double>(s.misses) / static_cast<double>(h.total()) : 0.0;
  if (s.hits) c["hit_latency_cycles"] = s.hit_mean;
  if (s.misses) c["miss_latency_cycles"] = s.miss_mean;
  write_bench_trace(bench_name, t);
}

ChaseResult BatchGroup::take(int i) {
  if (results_.empty() || !fresh_[i]) {
    results_ = backend().run_chase_batch(reqs_);
    fresh_.assign(reqs_.size(), true);
  }
  fresh_[i] = false;
  return results_[i];
}

void register_chase(const std::string& name, ChaseRequest req) {
  auto r = std::make_shared<ChaseRequest>(std::move(req));
  benchmark::RegisterBenchmark(name.c_str(), [name, r](benchmark::State& state) {
    for (auto _ : state) {
      ChaseResult res = backend().run_chase(*r);
      report_chase(state, name, *r, res);
      if (!res.error.empty()) break;
    }
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

void register_chase_in_group(const std::string& name, std::shared_ptr<BatchGroup> group, int member) {
  benchmark::RegisterBenchmark(name.c_str(), [name, group, member](benchmark::State& state) {
    for (auto _ : state) {
      ChaseResult res = group->take(member);
      report_chase(state, name, group->request(member), res);
      if (!res.error.empty()) break;
    }
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

std::vector<std::uint64_t> linear_sizes(std::uint64_t lo, std::uint64_t hi, std::uint64_t step) {
  std::vector<std::uint64_t> v;
  for (std::uint64_t x = lo; x <= hi; x += step) v.push_back(x);
  return v;
}

std::uint64_t next_pow2(std::uint64_t x) {
  std::uint64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

}  // namespace memhier
