#include "bench/families/chase_common.hpp"

#include <algorithm>
#include <stdexcept>

#include "bench/core/guard.hpp"
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
  if (res.sm_clock_mhz > 0) c["sm_clock_mhz"] = res.sm_clock_mhz;
  // a sample whose clock stayed throttled after its retry is reported flagged, never silently:
  // memhier-infer leaves it out and lists it
  if (res.clock_throttled) c["clock_throttled"] = 1;
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

namespace {
bool any_throttled(const std::vector<ChaseResult>& rs) {
  for (const auto& r : rs)
    if (r.error.empty() && r.clock_throttled) return true;
  return false;
}
// One retry of a throttled sample (nvbench retries; the second result is kept, flagged if it is
// throttled as well).
ChaseResult run_checked(const ChaseRequest& r) {
  ChaseResult res = backend().run_chase(r);
  if (res.error.empty() && res.clock_throttled) res = backend().run_chase(r);
  return res;
}
}  // namespace

ChaseResult BatchGroup::take(int i) {
  if (results_.empty() || !fresh_[i]) {
    results_ = backend().run_chase_batch(reqs_);
    if (any_throttled(results_)) results_ = backend().run_chase_batch(reqs_);
    fresh_.assign(reqs_.size(), true);
  }
  fresh_[i] = false;
  return results_[i];
}

void register_chase(const std::string& name, ChaseRequest req) {
  auto r = std::make_shared<ChaseRequest>(std::move(req));
  register_guarded(
      name,
      [name, r](benchmark::State& state) {
        for (auto _ : state) {
          ChaseResult res = run_checked(*r);
          report_chase(state, name, *r, res);
          if (!res.error.empty()) break;
        }
      },
      [r] { return backend().predicted_seconds(*r); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
}

void register_chase_in_group(const std::string& name, std::shared_ptr<BatchGroup> group, int member) {
  register_guarded(
      name,
      [name, group, member](benchmark::State& state) {
        for (auto _ : state) {
          ChaseResult res = group->take(member);
          report_chase(state, name, group->request(member), res);
          if (!res.error.empty()) break;
        }
      },
      // the group runs its chases in parallel, one per SM: as long as its slowest member
      [group] { return group->predicted_seconds(); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMicrosecond);
}

void check_requested_chase(Backend& be, Path p, Mode m, std::uint64_t bytes, std::uint64_t stride,
                           std::uint64_t iters, bool warm, std::uint64_t max_records, const std::string& what) {
  const std::uint64_t limit = be.max_array_bytes(p);
  if (bytes > limit)
    throw std::runtime_error(what + ": an array of " + std::to_string(bytes) + " bytes exceeds what the " +
                             path_name(p) + " path can chase on this device (" + std::to_string(limit) + " bytes)");
  const std::uint64_t smem = be.shared_memory_needed(p, m, bytes, max_records);
  const std::uint64_t smem_limit = be.figures().smem_per_block_optin;
  if (smem_limit && smem > smem_limit)
    throw std::runtime_error(what + ": needs " + std::to_string(smem) + " bytes of shared memory per block; the device allows " +
                             std::to_string(smem_limit));
  const double chain = static_cast<double>((bytes + stride - 1) / stride);
  const double accesses = (iters ? static_cast<double>(iters) : chain) + (warm ? chain : 0.0);
  const double predicted = be.predicted_seconds(accesses);
  const double budget = benchmark_budget_seconds();
  if (budget > 0 && predicted > budget)
    throw std::runtime_error(what + ": " + std::to_string(static_cast<std::uint64_t>(accesses)) +
                             " dependent accesses are predicted to take " + seconds_text(predicted) +
                             " s, over the per-benchmark budget of " + seconds_text(budget) + " s (--memhier_budget_s)");
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
