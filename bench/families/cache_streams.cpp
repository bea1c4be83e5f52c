// cache_streams: replacement under random streams (issue 30 item 1; docs/methodology.md, section
// cache_streams). Per cache - L1 (global_ca), texture, read-only (ldg) on every SM at once, the L2
// (global_cg) on one SM - and per variant, loads mode and k one benchmark: trials of a fresh target,
// k random pool lines, the target again (timed). The counters say how many targets were evicted; the
// analyzer fits the replacement policies to the curves. Full plan only.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/core/guard.hpp"
#include "bench/core/registry.hpp"
#include "common/bench_name.hpp"
#include "common/streams.hpp"
#include "common/two_class.hpp"

namespace memhier {
namespace {

struct StreamArgs {
  std::string cache;
  StreamsRequest req;
};

constexpr std::uint64_t kL1PoolBytes = 16ull << 20;  // ≫ the L1, inside the L2: stream loads are L2 hits
constexpr std::uint64_t kL2PoolFactor = 4;           // x the L2: most stream lines come from DRAM
constexpr std::uint32_t kMinTrialsGpu = 400;         // per point, all SMs together (p = 0.05: SE 0.011)
constexpr std::uint32_t kTargetsSim = 256;           // per point on the simulated device (one SM)
constexpr std::uint64_t kSimL2LinesMax = 65536;      // the simulated device's L2 streams only up to this (cost)
constexpr std::uint32_t kL2TargetsMax = 512;         // L2: targets per trial (one stream serves them all)

bool is_sim(Backend& be) { return be.name().rfind("sim:", 0) == 0; }

// The next lines of the targets region: handed out once per process (a target is never read twice),
// from the start again when the region is used up (targets_wrapped).
std::uint64_t next_target_lines(std::uint64_t n, bool* wrapped) {
  static std::uint64_t cursor = 0;
  if (cursor + n > kStreamTargetRegionLines) {
    cursor = 0;
    *wrapped = true;
  }
  const std::uint64_t first = cursor;
  cursor += n;
  return first;
}

std::uint32_t median(std::vector<std::uint32_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// The L2 path's targets by their home (docs/methodology.md, cache_streams, "The L2's two
// partitions"): where the first loads split (common/two_class), `near_*` counts the targets of the fast
// class (homed in the reader's partition) and `far_*` the others. A near target is evicted when its
// final load reaches the midpoint of the hit reference and the near class's first loads (near_evicted;
// mid_missed likewise near_mid_missed); a far target has lost its copy in the reader's partition
// there (far_near_lost), and its home copy too when the final load reaches the midpoint of the two
// classes' first loads (far_evicted). None of these where the first loads form one class (the
// simulated device, an L1-side path).
void partition_counters(const StreamsResult& o, std::uint32_t w, std::uint32_t per_slot, std::uint32_t hit,
                        const std::vector<std::uint32_t>& firsts, bool mid, benchmark::UserCounters& c) {
  const TwoClasses cls = two_classes(std::vector<double>(firsts.begin(), firsts.end()));
  if (!cls.split) return;
  const double cut = cls.cut, nf = cls.low_median, ff = cls.high_median;  // the classes' first loads
  c["partition_cut_cycles"] = cut;
  const double t_near = 0.5 * (hit + nf), t_home = 0.5 * (nf + ff);
  double nt = 0, ne = 0, nm = 0, ft = 0, fl = 0, fe = 0;
  for (int s = 0; s < o.sms; ++s) {
    const std::uint32_t* rec = o.records.data() + static_cast<std::size_t>(s) * w;
    for (std::uint32_t q = 0; q < per_slot; ++q) {
      const std::uint32_t* f = rec + kStreamHitRefs + q * kStreamFields;
      if (f[kFirst] < cut) {
        ++nt;
        ne += f[kFinal] >= t_near;
        nm += mid && f[kMid] >= t_near;
      } else {
        ++ft;
        fl += f[kFinal] >= t_near;
        fe += f[kFinal] >= t_home;
      }
    }
  }
  c["near_trials"] = nt;
  c["near_evicted"] = ne;
  if (mid) c["near_mid_missed"] = nm;
  c["near_first_cycles"] = nf;
  c["near_threshold_cycles"] = t_near;
  c["far_trials"] = ft;
  c["far_near_lost"] = fl;
  c["far_evicted"] = fe;
  c["far_first_cycles"] = ff;
  c["far_home_threshold_cycles"] = t_home;
}

void run_streams_bench(benchmark::State& state, const StreamArgs& a) {
  Backend& be = backend();
  StreamsRequest r = a.req;
  bool wrapped = false;
  const std::uint64_t slots = r.all_sms ? static_cast<std::uint64_t>(std::max(1, be.stream_slots())) : 1;
  r.first_target_line = next_target_lines(slots * stream_target_lines_per_slot(r.trials, r.targets), &wrapped);
  // Each launch its own streams (warm and trials): with one seed for all, a launch's stream began
  // with the lines of the launch before it (still cached: hits where the trials ask for lines never
  // read), and the L2's curves depended on the order the points ran in.
  r.seed = 1 + r.first_target_line;
  const StreamsResult o = be.run_streams(r);
  if (!o.error.empty()) return state.SkipWithError(o.error.c_str());
  const std::uint32_t w = o.words_per_slot;
  if (w != stream_record_words(r.trials, r.targets) || o.records.size() != static_cast<std::size_t>(w) * o.sms)
    return state.SkipWithError("the backend returned records of another shape than requested");
  std::vector<std::uint32_t> hits, firsts;
  const bool two = r.variant == StreamVariant::two_ages, mid = r.variant == StreamVariant::mid;
  const std::uint32_t per_slot = r.trials * r.targets;
  for (int s = 0; s < o.sms; ++s) {
    const std::uint32_t* rec = o.records.data() + static_cast<std::size_t>(s) * w;
    hits.insert(hits.end(), rec, rec + kStreamHitRefs);
    for (std::uint32_t q = 0; q < per_slot; ++q) {
      const std::uint32_t* f = rec + kStreamHitRefs + q * kStreamFields;
      firsts.push_back(f[kFirst]);
      if (two) firsts.push_back(f[kFirst2]);
    }
  }
  const std::uint32_t hit = median(hits), miss = median(firsts);
  if (miss <= hit)
    return state.SkipWithError(("the targets' first loads (median " + std::to_string(miss) +
                                " cycles) are not slower than the hit reference (median " + std::to_string(hit) +
                                "): no threshold")
                                   .c_str());
  const double threshold = 0.5 * (hit + miss);
  double trials = 0, evicted = 0, evicted2 = 0, mid_missed = 0;
  for (int s = 0; s < o.sms; ++s) {
    const std::uint32_t* rec = o.records.data() + static_cast<std::size_t>(s) * w;
    for (std::uint32_t q = 0; q < per_slot; ++q) {
      const std::uint32_t* f = rec + kStreamHitRefs + q * kStreamFields;
      ++trials;
      evicted += f[kFinal] >= threshold;
      if (two) evicted2 += f[kFinal2] >= threshold;
      if (mid) mid_missed += f[kMid] >= threshold;
    }
  }
  state.SetIterationTime(std::max(o.seconds, 1e-9));
  auto& c = state.counters;
  c["trials"] = trials;
  c["evicted"] = evicted;
  c["p_evicted"] = trials > 0 ? evicted / trials : 0;
  if (two) c["evicted_second"] = evicted2;
  if (mid) c["mid_missed"] = mid_missed;
  c["pool_bytes"] = static_cast<double>(r.pool_bytes);
  c["line_bytes"] = kStreamLineBytes;
  c["sms"] = o.sms;
  c["hit_cycles"] = hit;
  c["miss_cycles"] = miss;
  c["threshold_cycles"] = threshold;
  // Only where one is in effect (L1-side paths): counters are non-negative (analysis/core/validate),
  // so the L2's "none" is the counter's absence, as in the P-chase families (chase_common.cpp).
  if (o.carveout >= 0) c["carveout"] = o.carveout;
  c["k"] = r.k;
  c["targets_per_trial"] = r.targets;
  c["trials_per_sm"] = o.trials_per_launch ? std::min(o.trials_per_launch, r.trials) : r.trials;  // of one launch
  c["warm_lines"] = r.warm_lines;
  c["clock_overhead_cycles"] = o.clock_overhead_cycles;
  c["accesses_per_sm"] = static_cast<double>(o.accesses);
  c["targets_wrapped"] = wrapped ? 1 : 0;
  if (o.start_empty >= 0) c["start_empty"] = o.start_empty;
  if (o.carveout < 0 && !two) partition_counters(o, w, per_slot, hit, firsts, mid, c);
}

std::string bench_name(const StreamArgs& a) {
  BenchName n("cache_streams");
  n.add("cache", a.cache).add("path", path_name(a.req.path)).add("variant", stream_variant_name(a.req.variant));
  n.add("loads", a.req.dep ? "dep" : "indep").add("k", static_cast<std::int64_t>(a.req.k));
  return n.str();
}

void register_one(const StreamArgs& a) {
  const std::uint64_t per_slot = stream_target_lines_per_slot(a.req.trials, a.req.targets) + a.req.warm_lines +
                                 2ull * kStreamHitRefs +
                                 static_cast<std::uint64_t>(a.req.trials) *
                                     ((a.req.variant == StreamVariant::restream ? 2ull : 1ull) * a.req.k + 5ull * a.req.targets);
  register_guarded(
      bench_name(a), [a](benchmark::State& state) {
        for (auto _ : state) run_streams_bench(state, a);
      },
      [per_slot] { return backend().predicted_seconds(static_cast<double>(per_slot)); })
      ->UseManualTime()
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}

struct Curve {
  StreamVariant variant;
  bool dep;
};

// The curves the simulated device leaves out (its cost): indep (= dep there), and on texture and
// read-only every variant but fresh and reread1.
bool sim_skips(bool sim, Path p, const Curve& cv) {
  if (!sim) return false;
  if (!cv.dep) return true;
  return p != Path::global_ca && cv.variant != StreamVariant::fresh && cv.variant != StreamVariant::reread1;
}

// k = lines x 2^j for j in [j_lo, j_hi], rounded; at least 1.
std::vector<std::uint32_t> k_grid(std::uint64_t lines, int j_lo, int j_hi) {
  std::vector<std::uint32_t> ks;
  for (int j = j_lo; j <= j_hi; ++j) {
    const double k = std::ldexp(static_cast<double>(lines), j);
    const auto v = static_cast<std::uint32_t>(std::max(1.0, std::round(std::min(k, 4.0e9))));
    if (ks.empty() || ks.back() != v) ks.push_back(v);
  }
  return ks;
}

// The arguments of one point as the plan sets them (trials, targets, pool, warm lines per cache):
// the plan's points and the extra requests share them.
struct StreamDefaults {
  bool sim = false;
  std::uint32_t slots = 1;
  std::uint64_t l1_lines = 0, l2_lines = 0, l2_bytes = 0;
};

StreamDefaults stream_defaults(Backend& be) {
  StreamDefaults d;
  d.sim = is_sim(be);
  const DeviceFigures f = be.figures();
  d.slots = static_cast<std::uint32_t>(std::max(1, be.stream_slots()));
  // L1-side caches: the unified L1/shared array per SM where known, else the shared memory per SM
  // (at carveout 0 the L1 is about that large): the scale of k in lines.
  d.l1_lines = (f.l1_smem_bytes ? f.l1_smem_bytes : f.smem_per_sm_bytes) / kStreamLineBytes;
  // The L2 (one SM): half the device's L2 is the partition one SM sees nearby.
  d.l2_lines = f.l2_bytes / 2 / kStreamLineBytes;
  d.l2_bytes = f.l2_bytes;
  return d;
}

Path stream_cache_path(const std::string& cache) {
  return cache == "l1" ? Path::global_ca : cache == "texture" ? Path::texture : cache == "readonly" ? Path::ldg : Path::global_cg;
}

// Whether the device runs this cache's points: its path supported and cached (L1 side), the scale
// known, and on the simulated device an L2 small enough to stream through (its cost).
bool stream_cache_runs(Backend& be, const StreamDefaults& d, const std::string& cache) {
  const Path p = stream_cache_path(cache);
  if (!be.supports(p)) return false;
  if (cache == "l2") return d.l2_lines > 0 && (!d.sim || d.l2_lines <= kSimL2LinesMax);
  return d.l1_lines > 0 && be.stream_path_cached(p);
}

StreamArgs stream_args(const StreamDefaults& d, const std::string& cache, StreamVariant v, bool dep, std::uint32_t k) {
  StreamArgs a;
  a.cache = cache;
  a.req.path = stream_cache_path(cache);
  a.req.variant = v;
  a.req.dep = dep;
  a.req.k = k;
  if (cache == "l2") {
    const std::uint32_t targets = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(d.l2_lines / 64, 1, kL2TargetsMax));
    a.req.targets = targets;
    a.req.trials = (kL2TargetsMax + targets - 1) / targets;
    a.req.pool_bytes = kL2PoolFactor * d.l2_bytes / kStreamLineBytes * kStreamLineBytes;
    // A warm stream of half a partition's lines (about half the ways of every set) before the
    // trial, so that what earlier families left in the L2 (lines hit many times) is gone and the
    // sets start as a random stream leaves them; none on the simulated device (its cost).
    a.req.warm_lines = d.sim ? 0 : static_cast<std::uint32_t>(d.l2_lines / 2);
    a.req.all_sms = false;
    a.req.carveout = -1;
    return a;
  }
  // The simulated device has no overlap (indep = dep) and must stay cheap (CI runs many sim
  // plans): several targets per trial (L/64: they take at most 1/64 of the cache), 256 targets per
  // point in all.
  const std::uint32_t targets = d.sim ? static_cast<std::uint32_t>(std::max<std::uint64_t>(1, d.l1_lines / 64)) : 1;
  a.req.targets = targets;
  a.req.trials = d.sim ? (kTargetsSim + targets - 1) / targets : (kMinTrialsGpu + d.slots - 1) / d.slots;
  a.req.pool_bytes = kL1PoolBytes;
  a.req.warm_lines = static_cast<std::uint32_t>(2 * d.l1_lines);
  a.req.all_sms = true;
  a.req.carveout = 0;
  return a;
}

// Requests (--memhier_extra, "cache_streams": [{"cache": "l2", "variant": "reread2", "k": 184320}]):
// cache (l1, texture, readonly, l2) and k required; variant (fresh default), loads (dep default,
// indep), trials (the plan's default) optional. Points the plan registers too run once.
std::vector<StreamArgs> extra_stream_args(Backend& be, const StreamDefaults& d) {
  std::vector<StreamArgs> out;
  std::size_t i = 0;
  for (const ExtraRequest& x : extra_requests("cache_streams")) {
    const std::string where = "extra cache_streams request " + std::to_string(++i) + ": ";
    const std::string cache = x.str.count("cache") ? x.str.at("cache") : "";
    if (cache != "l1" && cache != "texture" && cache != "readonly" && cache != "l2")
      throw std::runtime_error(where + "cache '" + cache + "' (use l1, texture, readonly or l2)");
    StreamVariant v = StreamVariant::fresh;
    const std::string vs = x.str.count("variant") ? x.str.at("variant") : "fresh";
    if (!parse_stream_variant(vs, &v))
      throw std::runtime_error(where + "variant '" + vs + "' (use fresh, reread1, reread2, mid, two_ages or restream)");
    const std::string loads = x.str.count("loads") ? x.str.at("loads") : "dep";
    if (loads != "dep" && loads != "indep") throw std::runtime_error(where + "loads '" + loads + "' (use dep or indep)");
    const std::int64_t k = x.get("k", 0);
    if (k < 1 || k > (std::int64_t(1) << 31)) throw std::runtime_error(where + "k from 1 to 2^31 lines is required");
    for (const auto& kv : x.num)
      if (kv.first != "k" && kv.first != "trials")
        throw std::runtime_error(where + "unknown key '" + kv.first + "' (cache, variant, loads, k, trials)");
    for (const auto& kv : x.str)
      if (kv.first != "cache" && kv.first != "variant" && kv.first != "loads")
        throw std::runtime_error(where + "unknown key '" + kv.first + "' (cache, variant, loads, k, trials)");
    if (!stream_cache_runs(be, d, cache)) continue;
    StreamArgs a = stream_args(d, cache, v, loads == "dep", static_cast<std::uint32_t>(k));
    const std::int64_t trials = x.get("trials", a.req.trials);
    if (trials < 1 || trials > 100000) throw std::runtime_error(where + "trials from 1 to 100000");
    a.req.trials = static_cast<std::uint32_t>(trials);
    out.push_back(a);
  }
  return out;
}

void register_cache_streams(Backend& be) {
  const StreamDefaults d = stream_defaults(be);
  std::vector<StreamArgs> all;
  // the full plan only: memhier-compare does not judge a policy that one run decided with streams
  // and the other without (the check plan's L1 policy: access sequences alone)
  if (plan() == Plan::full) {
    using V = StreamVariant;
    struct PathCurves {
      Path path;
      const char* cache;
      std::vector<Curve> curves;
    };
    // Read-only before texture: on an H200 the read-only path's curves after the texture path's
    // launches lie left of the same points run alone or after l1's (the fresh target at L/2: 0.28
    // against 0.16; docs/methodology.md, cache_streams, "Launch order"), so each L1-side path here
    // follows only ld.global paths or its own points.
    std::vector<PathCurves> l1_side = {
        {Path::global_ca, "l1",
         {{V::fresh, true}, {V::reread1, true}, {V::reread2, true}, {V::mid, true}, {V::two_ages, true},
          {V::fresh, false}, {V::reread1, false}}},
        {Path::ldg, "readonly", {{V::fresh, true}, {V::reread1, true}, {V::mid, true}}},
        {Path::texture, "texture", {{V::fresh, true}, {V::reread1, true}, {V::mid, true}}}};
    // The simulated device: k = L/2 and 2 L, no indep, texture and read-only fresh and reread1 only.
    std::vector<std::uint32_t> ks = k_grid(d.l1_lines, -3, 2);
    if (d.sim) ks = {k_grid(d.l1_lines, -1, -1).front(), k_grid(d.l1_lines, 1, 1).front()};
    for (const PathCurves& pc : l1_side) {
      if (!stream_cache_runs(be, d, pc.cache)) continue;
      for (const Curve& cv : pc.curves) {
        if (sim_skips(d.sim, pc.path, cv)) continue;
        for (std::uint32_t k : ks) all.push_back(stream_args(d, pc.cache, cv.variant, cv.dep, k));
      }
    }
    if (stream_cache_runs(be, d, "l2")) {
      // k = L x {3/4, 1, 5/4} (L: the partition's lines), where the curve rises (at L/2 about 1 %
      // of targets are evicted, at 2 L all); the simulated device: L/2 and 2 L only (its cost).
      std::vector<std::uint32_t> l2_ks;
      if (d.sim) l2_ks = {k_grid(d.l2_lines, -1, -1).front(), k_grid(d.l2_lines, 1, 1).front()};
      else
        for (int q : {3, 4, 5}) l2_ks.push_back(static_cast<std::uint32_t>(d.l2_lines * q / 4));
      for (V v : {V::fresh, V::reread1})
        for (std::uint32_t k : l2_ks) all.push_back(stream_args(d, "l2", v, true, k));
    }
  }
  for (StreamArgs& a : extra_stream_args(be, d)) all.push_back(std::move(a));
  std::set<std::string> seen;
  for (const StreamArgs& a : all)
    if (seen.insert(bench_name(a)).second) register_one(a);
}

FamilyRegistrar reg("cache_streams", false, register_cache_streams);

}  // namespace
}  // namespace memhier
