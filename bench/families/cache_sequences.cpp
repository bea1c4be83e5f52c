// cache_sequences: eviction sets, congruence and replacement policy by access sequences (issue 10,
// methods 3-4; docs/methodology.md, section cache_sequences). Per cache - L1 (global_ca), texture,
// read-only (ldg), L2 as one SM sees it (global_cg) - one benchmark runs the adaptive search of
// bench/search and writes every sequence with its outcome to a sequence trace
// (<trace_dir>/<benchmark>.seqtrace); `check:launch` benchmarks measure whether a kernel launch
// empties the cache. Counters are the family's own reading; memhier-infer decides from the traces.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "bench/core/guard.hpp"
#include "bench/core/registry.hpp"
#include "bench/search/search.hpp"
#include "common/bench_name.hpp"
#include "common/levels.hpp"

namespace memhier {
namespace {

using seqsearch::Budget;
using seqsearch::Session;

struct CacheArgs {
  std::string cache;
  Path path = Path::global_ca;
  int carveout = -1;
  std::uint64_t stride = 0, capacity = 0, seed = 1;
  Budget budget;
};

std::uint64_t floor_pow2(std::uint64_t x) {
  std::uint64_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

// The search array: up to 4 GiB (flips of address bits up to 31), within what the path can reach.
std::uint64_t array_bytes_for(Backend& be, Path p) {
  return floor_pow2(std::min<std::uint64_t>(be.max_array_bytes(p), 4ull << 30));
}

std::uint32_t threshold_for(Path p) {
  return static_cast<std::uint32_t>(kLevelRatio * backend().hit_baseline(p) + 0.5);
}

void write_seq_trace_file(const std::string& name, const SeqTrace& t) {
  if (trace_dir().empty()) return;
  write_seq_trace(trace_dir() + "/" + sanitize_for_file(name) + ".seqtrace", t);
}

// check:launch — line x read, then read again in the same launch (timed), line y read, then read
// again in the next launch on the same SM (timed). Returns true when y was still cached.
struct LaunchCheck {
  bool ran = false, kept = false;
  std::uint32_t same = 0, next = 0;
  std::string error;
};

LaunchCheck check_launch(Session& s, std::uint64_t x, std::uint64_t y) {
  SequenceBuilder b;
  const std::uint8_t p = s.path_code();
  b.access(x, p);
  b.mark();
  b.access(x, p, true);
  b.access(y, p);
  b.launch_break();
  b.access(y, p, true);
  LaunchCheck c;
  auto rec = s.run(b.take(), {{"step", "launch"}});
  if (!rec) {
    c.error = s.first_error().empty() ? "budget" : s.first_error();
    return c;
  }
  c.ran = true;
  c.same = (*rec)[0];
  c.next = (*rec)[1];
  c.kept = c.next < s.threshold();
  return c;
}

// Two lines no sequence of this run read before (the L2 keeps what earlier benchmarks read).
LaunchCheck check_launch(Session& s) {
  const std::uint64_t x = seqsearch::fresh_line(s.array_bytes()), y = seqsearch::fresh_line(s.array_bytes());
  if (!x || !y) {
    LaunchCheck c;
    c.error = "no fresh lines left in the array";
    return c;
  }
  return check_launch(s, x, y);
}

void run_check(benchmark::State& state, Path p, const std::string& name) {
  Session s(backend(), p, path_uses_carveout(p) ? 0 : -1, array_bytes_for(backend(), p), threshold_for(p), Budget{});
  LaunchCheck c = check_launch(s);
  SeqTrace& t = s.trace();
  t.benchmark = name;
  t.meta["path"] = path_name(p);
  t.meta["hit_threshold_cycles"] = std::to_string(s.threshold());
  t.meta["start_state"] = s.start_state();
  write_seq_trace_file(name, t);
  if (!c.ran) return state.SkipWithError(c.error.c_str());
  state.SetIterationTime(std::max(s.seconds(), 1e-9));
  state.counters["same_launch_cycles"] = c.same;
  state.counters["next_launch_cycles"] = c.next;
  state.counters["kept_across_launch"] = c.kept ? 1 : 0;
  state.counters["hit_threshold_cycles"] = s.threshold();
  if (s.sm_id() >= 0) state.counters["sm_id"] = s.sm_id();
}

void set_counters(benchmark::State& state, const Session& s, const seqsearch::SearchResult& r, bool kept,
                  const Budget& budget) {
  auto& c = state.counters;
  c["launches"] = s.launches();
  c["device_seconds"] = s.seconds();
  // host and device, from the session's start (on a GPU only: the simulator's outputs stay deterministic)
  if (budget.wall_seconds > 0) c["wall_seconds"] = s.wall_seconds();
  c["budget_launches"] = budget.launches;
  c["budget_seconds"] = budget.seconds;
  c["accesses"] = static_cast<double>(s.accesses());
  c["hit_threshold_cycles"] = s.threshold();
  c["kept_across_launch"] = kept ? 1 : 0;
  const seqsearch::Calibration& k = r.calibration;
  c["hit_cycles"] = k.levels.hit_hi;
  c["next_level_cycles"] = k.levels.next_lo;
  c["fresh_miss_cycles"] = k.miss_median;
  if (k.l2_median) c["l2_hit_cycles"] = k.l2_median;
  c["untimed_cycles_per_access"] = k.untimed_cycles_per_access;
  // Accesses complete one after the other when an untimed pass of misses costs about a miss each.
  c["serialized"] = k.miss_median && k.untimed_cycles_per_access >= 0.5 * k.miss_median ? 1 : 0;
  c["granularity_bytes"] = static_cast<double>(r.granularity);
  c["stride_bytes"] = static_cast<double>(r.stride);
  c["pool_bytes"] = static_cast<double>(r.pool.bytes);
  c["pool_miss_bytes"] = static_cast<double>(r.pool_hi_lines * r.stride);
  c["overflow_targets"] = static_cast<double>(r.overflow_targets);
  c["pool_overflows"] = r.pool_overflows ? 1 : 0;
  c["ways_found"] = static_cast<double>(r.eviction_set.size());
  c["minimal"] = r.minimal ? 1 : 0;
  c["congruent_bits"] = r.congruence ? static_cast<double>(r.congruence->congruent_bits.size()) : 0;
  c["congruent_pairs"] = r.congruence ? static_cast<double>(r.congruence->congruent_pairs.size()) : 0;
  c["line_bytes_seen"] = r.congruence ? static_cast<double>(1ull << r.congruence->line_bit) : 0;
  c["fresh_lines"] = static_cast<double>(r.fresh_lines);
  c["policy_sequences"] = r.policy.experiments;
  c["candidates_consistent"] = static_cast<double>(r.policy.consistent.size());
  c["budget_exhausted"] = s.exhausted() ? 1 : 0;
  c["search_complete"] = r.stopped.empty() ? 1 : 0;
  c["smem_bytes"] = static_cast<double>(s.smem_bytes());
  if (s.sm_id() >= 0) c["sm_id"] = s.sm_id();
}

void describe(SeqTrace& t, const CacheArgs& a, const Session& s, const LaunchCheck& lc,
              const seqsearch::SearchResult& r) {
  t.meta["cache"] = a.cache;
  t.meta["path"] = path_name(a.path);
  t.meta["array_bytes"] = std::to_string(s.array_bytes());
  if (a.carveout >= 0) t.meta["carveout"] = std::to_string(a.carveout);
  t.meta["hit_threshold_cycles"] = std::to_string(s.threshold());
  t.meta["start_state"] = s.start_state();
  if (lc.ran) t.meta["kept_across_launch"] = lc.kept ? "1" : "0";
  t.meta["seed"] = std::to_string(a.seed);
  t.meta["stride"] = std::to_string(r.stride);
  const seqsearch::Calibration& k = r.calibration;
  t.meta["calib_hit_cycles_lo"] = std::to_string(k.levels.hit_lo);
  t.meta["calib_hit_cycles_hi"] = std::to_string(k.levels.hit_hi);
  t.meta["calib_next_level_cycles"] = std::to_string(k.levels.next_lo);
  t.meta["calib_fresh_miss_cycles"] = std::to_string(k.miss_median);
  t.meta["calib_l2_hit_cycles"] = std::to_string(k.l2_median);
  t.meta["calib_untimed_cycles_per_access"] = std::to_string(std::lround(k.untimed_cycles_per_access));
  if (!k.why.empty()) t.meta["calib_note"] = k.why;
  std::string consistent;
  for (const auto& c : r.policy.consistent) consistent += (consistent.empty() ? "" : ",") + c;
  if (r.policy.experiments) t.meta["policy_consistent"] = consistent.empty() ? "none" : consistent;
  t.meta["budget_launches"] = std::to_string(a.budget.launches);
  t.meta["budget_seconds"] = std::to_string(a.budget.seconds);
  t.meta["budget_wall_seconds"] = std::to_string(a.budget.wall_seconds);
  t.meta["stopped"] = r.stopped.empty() ? "no" : "'" + r.stopped + "'";
}

void run_cache(benchmark::State& state, const CacheArgs& a, const std::string& name) {
  Session s(backend(), a.path, a.carveout, array_bytes_for(backend(), a.path), threshold_for(a.path), a.budget);
  const LaunchCheck lc = check_launch(s);
  seqsearch::SearchConfig cfg;
  cfg.stride = a.stride;
  cfg.capacity = a.capacity;
  cfg.seed = a.seed;
  cfg.start_empty = s.start_state() == "empty" || (lc.ran && !lc.kept);
  const seqsearch::SearchResult r = seqsearch::run_search(s, cfg);
  SeqTrace& t = s.trace();
  t.benchmark = name;
  describe(t, a, s, lc, r);
  write_seq_trace_file(name, t);
  if (s.failed()) return state.SkipWithError(s.first_error().c_str());
  state.SetIterationTime(std::max(s.seconds(), 1e-9));
  set_counters(state, s, r, lc.kept, a.budget);
}

std::string cache_name(const CacheArgs& a) {
  BenchName n("cache_sequences");
  n.add("cache", a.cache).add("path", path_name(a.path));
  if (a.carveout >= 0) n.add("carveout", a.carveout);
  n.add("stride", static_cast<std::int64_t>(a.stride)).add("seed", static_cast<std::int64_t>(a.seed));
  if (a.capacity) n.add("capacity", static_cast<std::int64_t>(a.capacity));
  return n.str();
}

void register_cache(const CacheArgs& a) {
  const std::string name = cache_name(a);
  register_guarded(name, [a, name](benchmark::State& state) {
    for (auto _ : state) run_cache(state, a, name);
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMillisecond);
}

void register_check(Path p) {
  BenchName n("cache_sequences");
  n.add("check", "launch").add("path", path_name(p));
  const std::string name = n.str();
  register_guarded(name, [p, name](benchmark::State& state) {
    for (auto _ : state) run_check(state, p, name);
  })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
}

const char* cache_of(Path p) {
  switch (p) {
    case Path::global_ca: return "l1";
    case Path::texture: return "texture";
    case Path::ldg: return "readonly";
    default: return "l2";
  }
}

// Requests (--memhier_extra, "cache_sequences": [{"path": "global_cg", "stride": 128, ...}]):
// path, and optional cache, stride, capacity (bytes), carveout, seed, budget_launches, budget_ms.
void register_extras(Backend& be) {
  for (const ExtraRequest& x : extra_requests("cache_sequences")) {
    CacheArgs a;
    const std::string ps = x.str.count("path") ? x.str.at("path") : "";
    if (!parse_path(ps, &a.path) || static_cast<int>(a.path) >= kSeqPathCount)
      throw std::runtime_error("extra cache_sequences request with path '" + ps + "' (use global_ca, global_cg, ldg or texture)");
    if (!be.supports(a.path)) continue;
    a.cache = x.str.count("cache") ? x.str.at("cache") : cache_of(a.path);
    a.carveout = static_cast<int>(x.get("carveout", path_uses_carveout(a.path) ? 0 : -1));
    a.stride = static_cast<std::uint64_t>(x.get("stride", 0));
    a.capacity = static_cast<std::uint64_t>(x.get("capacity", 0));
    a.seed = static_cast<std::uint64_t>(x.get("seed", 1));
    if ((a.stride && (a.stride % 4 || a.stride > 65536)) || x.get("budget_launches", 1) < 1 || x.get("budget_ms", 1) < 1)
      throw std::runtime_error("extra cache_sequences request needs a stride that is a multiple of 4 up to 64 KiB and positive budgets");
    a.budget.launches = static_cast<std::uint32_t>(x.get("budget_launches", a.budget.launches));
    a.budget.seconds = static_cast<double>(x.get("budget_ms", static_cast<std::int64_t>(a.budget.seconds * 1000))) / 1000;
    if (be.name() == "cuda") a.budget.wall_seconds = 2 * a.budget.seconds;  // as in the plan: 2 x the device time
    register_cache(a);
  }
}

void register_cache_sequences(Backend& be) {
  register_extras(be);
  if (plan() == Plan::none) return;
  const bool quick = plan() == Plan::quick;
  // On a GPU the L2's sets, ways and policy come from l2_evsets (the whole L2, timer-free eviction
  // sets and access sequences from an empty set); the sequences of one SM's view of it found no
  // eviction set on Hopper (hashed slices) and took 2.6 s of a 31 s H200 run, so they are left out
  // where l2_evsets runs. The simulated device keeps them (its L2 is one cache with a plain index).
  const bool l2_by_evsets = be.name() == "cuda" && be.level_offer().l2_evsets_bytes > 0;
  for (Path p : {Path::global_ca, Path::texture, Path::ldg, Path::global_cg}) {
    if (!be.supports(p)) continue;
    if (p == Path::global_cg && l2_by_evsets) continue;
    register_check(p);
    CacheArgs a;
    a.cache = cache_of(p);
    a.path = p;
    a.carveout = path_uses_carveout(p) ? 0 : -1;
    // Where the L2's pool search starts (a hint, not a result: it doubles or halves from there).
    if (p == Path::global_cg) a.capacity = be.figures().l2_bytes / 4;
    if (quick) a.budget = Budget{200, 1.0};
    if (be.name() == "cuda") a.budget.wall_seconds = 2 * a.budget.seconds;  // the host part bounded too (session.hpp)
    register_cache(a);
  }
}

FamilyRegistrar reg("cache_sequences", false, register_cache_sequences);

}  // namespace
}  // namespace memhier
