#include "analysis/cache/infer_caches.hpp"

#include "analysis/memory/dram.hpp"
#include "analysis/cache/line_stride.hpp"
#include "analysis/cache/sequences/decide.hpp"
#include "analysis/cache/streams.hpp"
#include "common/policy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace memhier::analysis {

namespace {

void null_keys(nlohmann::json& cache, std::initializer_list<const char*> keys, const std::string& why,
               const Evidence& ev = {}) {
  for (auto k : keys) set_null(cache, k, why, ev);
}

void write_latency(CacheJob& job) {
  const CacheLevel& cl = job.cl;
  set_value(job.cache, "hit_latency_cycles", std::round(cl.hit_mean * 10) / 10, 0.9, {},
            "mean of the fastest latency level of path " + job.path);
  if (cl.miss_mean > 0)
    set_value(job.cache, "miss_penalty_cycles", std::round((cl.miss_mean - cl.hit_mean) * 10) / 10, 0.9,
              cl.miss_evidence, cl.miss_note);
  else
    set_null(job.cache, "miss_penalty_cycles", "no slower level seen on path " + job.path);
}

// What the structure steps reached: every value, runs requested that may decide it, or an end.
// elsewhere: another experiment measures the structure (the L2's eviction sets): nothing requested.
enum class Structure { decided, pending, undetermined, elsewhere };

// The capacity the structure gives: the ways of every set times the line.
void capacity_from_structure(CacheJob& job) {
  const nlohmann::json& c = job.cache;
  std::uint64_t ways = 0;
  for (const auto& w : c["ways"]) ways += w.get<std::uint64_t>();
  const std::uint64_t line = c["line_bytes"].get<std::uint64_t>();
  Evidence ev;
  for (const auto& e : c["provenance"]["ways"]["evidence"]) ev.add(e.get<std::string>());
  write_structure_capacity(job, ways * line,
                           std::to_string(c["sets"].get<std::uint64_t>()) + " sets holding " + std::to_string(ways) +
                               " lines of " + std::to_string(line) + " bytes",
                           ev);
}

// The line: from the edge's shift with stride (works on soft edges), else from the stage-2 probes at
// the fill granularity (000 §4.2, needs an exact onset). Writes line_bytes or nulls it.
LineResult infer_line(CacheJob& job, const Capacity& cap, std::uint64_t g) {
  LineResult line = line_from_stride_shift(job, cap, g);
  if (line.line == 0 && !line.pending && cap.onset.state == SizeResult::State::exact) {
    LineResult probes = measure_line(job, cap.onset.lo, g);
    probes.note = line.note + "; stage-2 probes: " + probes.note;
    line = probes;
  }
  if (line.line)
    set_value(job.cache, "line_bytes", line.line, 0.85, line.evidence, line.note);
  else
    set_null(job.cache, "line_bytes", line.note, line.evidence);
  return line;
}

// Fill granularity, line, sets/ways/index and replacement, each needing the one before; sets, ways
// and replacement start from where misses begin (the onset), which must be exact.
Structure infer_structure(CacheJob& job, const Capacity& cap) {
  nlohmann::json& cache = job.cache;
  const SizeResult& onset = cap.onset;
  const std::uint64_t C = onset.lo;
  const std::uint64_t g = measure_fill_granularity(job, C, onset.hi);
  if (g == 0) {
    null_keys(cache, {"sets", "ways", "replacement", "index_bits"}, "needs the line size first");
    return Structure::pending;
  }
  const LineResult line = infer_line(job, cap, g);
  // Access sequences decide sets, ways and the index directly where they exist (any index, any
  // policy): stage 2 of the P-chase is then not needed.
  const auto seq = line.line ? analyze_sequences(job) : nullptr;
  if (infer_from_sequences(job, cap, seq, SeqUse::exact)) {
    // random, or only random victims in the list (["random", "brrip"]): the per-way run tells the
    // weights of a random victim (a list with a deterministic policy in it is left as it is)
    const auto rep = cache.value("replacement", nlohmann::json());
    bool random_fits = rep == "random";
    if (rep.is_array() && !rep.empty() && std::find(rep.begin(), rep.end(), "random") != rep.end()) {
      random_fits = true;
      for (const auto& p : rep) random_fits = random_fits && p.is_string() && !policy::policy_is_deterministic(p.get<std::string>());
    }
    if (random_fits && onset.state == SizeResult::State::exact) per_way_probabilities(job, C, line.line);
    return Structure::decided;
  }
  if (structure_measured_elsewhere(job)) {  // not narrowed to the line (capacity.cpp), no stage 2
    null_keys(cache, {"sets", "ways", "index_bits", "replacement"},
              "the P-chase's stage 2 is not run for what one SM sees of the L2: the whole L2's sets, ways and policy "
              "come from its eviction sets (l2_sets, l2_evsets)");
    return Structure::elsewhere;
  }
  if (onset.state != SizeResult::State::exact) {
    const std::string why =
        onset.soft ? "needs an exact onset of misses: the edge is soft, misses begin in [" + std::to_string(C) + ", " +
                         std::to_string(onset.hi) + ") (stage-2 runs at N = C + j*b)"
                   : "needs the exact onset of misses first: in [" + std::to_string(C) + ", " +
                         std::to_string(onset.hi) + ") (sizes in between requested; stage-2 runs at N = C + j*b)";
    const std::string seq_why = sequences_shortfall(seq);
    null_keys(cache, {"sets", "ways", "index_bits", "replacement"}, seq_why.empty() ? why : why + "; " + seq_why);
    if (infer_from_sequences(job, cap, seq, SeqUse::partial)) return Structure::decided;
    return onset.soft && !line.pending ? Structure::undetermined : Structure::pending;
  }
  if (line.line == 0) {
    null_keys(cache, {"sets", "ways", "index_bits", "replacement"}, "needs the line: " + line.note, line.evidence);
    return line.pending ? Structure::pending : Structure::undetermined;
  }
  const Stage2 s2 = measure_stage2(job, C, line.line);
  write_sets(job, s2);
  write_replacement(job, s2);
  // Left null by stage 2: the reason also says what the access sequences showed (the experiment
  // that would have decided a hashed index), not only the P-chase's.
  if (const std::string seq_why = sequences_shortfall(seq); !seq_why.empty())
    for (const char* k : {"sets", "ways", "index_bits"})
      if (cache.contains(k) && cache[k].is_null() && cache["provenance"][k].contains("reason"))
        cache["provenance"][k]["reason"] = cache["provenance"][k]["reason"].get<std::string>() + "; " + seq_why;
  if (has_value(cache, "sets") && has_value(cache, "ways")) {
    capacity_from_structure(job);
    infer_from_sequences(job, cap, seq, SeqUse::replacement);  // a named policy replaces the P-chase's reading
    return Structure::decided;
  }
  // Stage 2 could not (yet) decide: the sequences' sets from the capacity, where they have them.
  if (infer_from_sequences(job, cap, seq, SeqUse::partial)) return Structure::decided;
  return s2.sets.complete ? Structure::undetermined : Structure::pending;
}

// Spurious misses per access the structure steps allow for: the upper confidence limit
// (kNoiseAlpha) of the misses below where the sweep's misses begin, the cache's own or the device's
// pooled over the caches before it where that is more (a short sweep may show none; a clean sweep of
// A accesses cannot rule out a rate up to -ln(alpha)/A).
double noise_of(InferContext& ctx, const SizeResult& r) {
  auto bound = [](double k, double n) { return n > 0 ? poisson_upper_limit(k, kNoiseAlpha) / n : 0.0; };
  ctx.spurious_misses += r.spurious_misses;
  ctx.spurious_accesses += r.spurious_accesses;
  return std::max(bound(r.spurious_misses, r.spurious_accesses), bound(ctx.spurious_misses, ctx.spurious_accesses));
}

// A policy other than LRU/FIFO was found and no fit with it describes the curve: the 50 % point
// stands for the capacity only by convention, and under such a policy it over-reads (random reaches
// half its misses at 1.39 C fully associative, a 16-way random or tree-PLRU L2 at 1.17-1.3 C): null
// with the reason; half_point_bytes and the interval from where misses begin stay.
// rep: the replacement read before the fit (a failed fit over every policy nulls it).
void null_half_point_under_policy(CacheJob& job, const nlohmann::json& rep) {
  nlohmann::json& c = job.cache;
  if (c.value("size_source", nlohmann::json()) != "half_point" || rep.is_null() || rep == "lru_or_fifo" ||
      rep == "lru" || rep == "fifo")
    return;
  const auto prov = c["provenance"].value("size_bytes", nlohmann::json::object());
  const std::string fit = prov.value("model_fit", std::string("the policy has no model to fit"));
  Evidence ev;
  for (const auto& e : prov.value("evidence", nlohmann::json::array())) ev.add(e.get<std::string>());
  set_null(c, "size_bytes",
           "the replacement is not LRU/FIFO (" + rep.dump() + "), under which the 50 % point (" +
               std::to_string(c.value("half_point_bytes", 0ull)) + " bytes) lies above the capacity, and the fit of "
               "the curve with that policy does not describe it (" + fit + "): the capacity lies in size_bracket_bytes "
               "(from where misses begin)",
           ev);
  c.erase("size_source");  // no source: the value is null (report/ reads size_source as a string)
  c["provenance"].erase("size_source");
}

// One cache: latency, where misses begin and the capacity, then its structure. The capacity is the
// structure's (sets x ways x line) when that is decided, else a fit of the miss-rate curve with the
// policy (and line) found, else the 50 % point of the curve, whose interval is narrowed by request
// once the structure is not waiting for runs.
void infer_one(CacheJob& job) {
  nlohmann::json& cache = job.cache;
  const auto sizes = measure_capacity(job);
  write_latency(job);
  write_capacity(job, sizes);
  if (sizes.empty() || !size_decided(sizes.at(job.primary).onset)) {
    null_keys(cache, {"line_bytes", "sector_bytes", "sets", "ways", "replacement", "index_bits"},
              "needs where misses begin first");
    return;
  }
  const Capacity& cap = sizes.at(job.primary);
  job.noise_per_access = noise_of(job.ctx, cap.onset);
  const Structure st = infer_structure(job, cap);
  judge_streams(job);  // random streams joined with the sequences' verdict (nothing without cache_streams entries)
  // The 50 % point is not the capacity once the policy is known (a random or tree-PLRU set reaches
  // half its misses well above C): fit the curve with it whatever the structure steps still wait for.
  const nlohmann::json rep = cache.value("replacement", nlohmann::json());
  const bool half = cache.value("size_source", nlohmann::json()) == "half_point";
  const bool fitted = half && (rep == "random" || rep == "non-lru" ? fit_capacity_over_policies(job, cap)
                                                                     : fit_capacity_to_policy(job, cap));
  if (!fitted) null_half_point_under_policy(job, rep);
  if (st == Structure::undetermined && !fitted) {
    for (const auto& [co, c] : sizes) request_half_point(job, co, c);
  }
}

}  // namespace

namespace {

const char* const kCacheKeys[] = {"size_bytes", "line_bytes", "sector_bytes", "sets", "ways", "replacement",
                                  "index_bits", "hit_latency_cycles", "miss_penalty_cycles"};

void null_all(nlohmann::json& c, const std::string& why) {
  for (auto k : kCacheKeys) set_null(c, k, why);
}

// The path's slowest level: a hit latency, and a lower bound on the size (no misses up to the
// largest footprint measured, which the path's chase limit may cap: the 64 KiB constant bank).
void write_slowest_level(InferContext& ctx, const std::string& path, const PathData& pd, std::size_t j,
                         const Evidence& path_ev, nlohmann::json& cache) {
  std::uint64_t largest = 0;
  Evidence lev;
  for (auto* c : pd.all)
    if (c->bytes > largest) largest = c->bytes;
  for (auto* c : pd.all)
    if (c->bytes == largest && lev.names.size() < 4) lev.add(c->name());
  const std::string lim_key = "chase_limit_bytes_" + path;
  const auto lim = ctx.data.context().find(lim_key);
  const bool capped = lim != ctx.data.context().end() && std::strtoull(lim->second.c_str(), nullptr, 10) <= largest;
  const std::string bound = ">= " + std::to_string(largest) + " bytes: no access slower than this level up to the "
                            "largest footprint measured on path " + path +
                            (capped ? " (" + lim_key + " = " + lim->second + ": no larger footprint can be chased" +
                                          (path == "constant" ? std::string("; a kernel's ld.const addresses one 64 KiB "
                                                                            "constant bank, and a chase across banks or "
                                                                            "kernel-parameter blocks is not built")
                                                              : std::string()) +
                                          ")"
                                    : " (larger footprints not measured)");
  null_all(cache, "no misses of this cache seen on path " + path + ": " + bound);
  set_value(cache, "hit_latency_cycles", std::round(pd.levels[j].mean * 10) / 10, 0.85, path_ev,
            "mean of latency level " + std::to_string(j) + " of path " + path + " (its slowest)");
  set_value(cache, "present", true, j == 0 ? 0.6 : 0.85, path_ev,
            j == 0 ? "the path's only latency level" : "latency level " + std::to_string(j) + " of path " + path);
  set_null(cache, "size_bytes", bound, lev);
  set_value(cache, "size_bytes_lower_bound", largest, 0.9, lev, bound);
}

// Level j of an L1-side path that takes the L2 hit latency is the L2, not a cache of the path's own
// (Kepler and Maxwell cache global loads in L2 only): the reason, or "" when it is not.
std::string l2_level_reason(const std::string& path, const std::vector<Level>& L, std::size_t j,
                            std::optional<double> l2, double res) {
  if (j >= L.size() || !l2 || std::fabs(L[j].mean - *l2) > std::max(2 * res, 0.03 * *l2)) return "";
  return "path " + path + ": its latency level " + std::to_string(j) + " (" +
         std::to_string(static_cast<long long>(std::lround(L[j].mean))) + " cycles) is the L2 hit latency (" +
         std::to_string(static_cast<long long>(std::lround(*l2))) + " cycles on global_cg): no cache of its own at this level";
}

// The hit level j of a cache with a slower level after it: boundary, means, the miss penalty's
// source. The L2-only path: every slower level is beyond the L2 hit (DRAM, and on the H100 a far-L2
// level of ~450 cycles between the near-L2 capacity and DRAM); its miss latency is the largest
// warm run's exact mean when that run lies wholly beyond the hit level.
CacheLevel cache_level(InferContext& ctx, const PathData& pd, const std::string& name, std::size_t j,
                       bool last_level_is_miss, nlohmann::json& cache) {
  const auto& L = pd.levels;
  CacheLevel cl;
  cl.name = name;
  cl.hit_mean = L[j].mean;
  cl.boundary = level_boundary(L, j);
  cl.miss_mean = L[j + 1].mean;
  cl.miss_note = "next level's mean latency minus the hit latency";
  cl.clamp_lo = L[j].mean;
  cl.clamp_hi = L[j + 1].mean;
  if (!last_level_is_miss) return cl;
  if (auto b = beyond_first_level(ctx.data, pd)) {
    cl.miss_mean = b->mean;
    cl.miss_note = "mean latency of the largest warm footprint (" + std::to_string(b->run->bytes) +
                   " bytes, every access beyond the L2 hit level: DRAM) minus the hit latency";
    cl.miss_evidence.add(b->run->name());
  }
  // Levels between the hit and the dominant DRAM level (analysis/memory/dram.hpp): a rare slower
  // tail split off as a level of its own is DRAM, not a level between.
  const auto dram = dram_level(ctx.data, pd);
  const std::size_t last = dram ? dram->level : L.size() - 1;
  if (last > 1) {
    nlohmann::json mid = nlohmann::json::array();
    for (std::size_t k = 1; k < last; ++k) mid.push_back(std::round(L[k].mean * 10) / 10);
    cache["levels_between_hit_and_dram_cycles"] = mid;
  }
  return cl;
}

nlohmann::json levels_json(const std::vector<Level>& L) {
  nlohmann::json lv = nlohmann::json::array();
  for (auto& l : L)
    lv.push_back({{"mean_cycles", std::round(l.mean * 10) / 10}, {"min", l.lo}, {"max", l.hi}, {"accesses", l.weight}});
  return lv;
}

}  // namespace

void infer_path_caches(InferContext& ctx, const std::string& path, const std::vector<std::string>& names,
                       bool last_level_is_miss, nlohmann::json& caches) {
  double res = 1;
  PathData pd = path_data(ctx.data, path, &res);
  if (pd.all.empty() || pd.levels.empty()) {
    for (auto& n : names) {
      null_all(caches[n], "path " + path + " not measured");
      set_null(caches[n], "present", "path " + path + " not measured");
    }
    return;
  }
  const auto& L = pd.levels;
  const nlohmann::json lv = levels_json(L);
  const std::optional<double> l2 = last_level_is_miss ? std::nullopt : l2_hit_latency(ctx.data);
  Evidence path_ev;
  for (auto* c : pd.all)
    if (c->mode == "count" && path_ev.names.size() < 4) path_ev.add(c->name());
  for (std::size_t i = 0; i < names.size(); ++i) {
    nlohmann::json& cache = caches[names[i]];
    cache["latency_levels_" + path] = lv;
    // The level that counts as a hit of this cache; the L2-only path: its fastest level.
    const std::size_t j = last_level_is_miss ? 0 : i;
    const std::string l2why = last_level_is_miss ? "" : l2_level_reason(path, L, j, l2, res);
    if (!l2why.empty()) {
      null_all(cache, l2why);
      set_value(cache, "present", false, 0.9, path_ev, l2why);
    } else if (j >= L.size()) {
      null_all(cache, "path " + path + " shows no latency level for this cache");
      set_null(cache, "present", "path " + path + " shows no latency level for this cache");
    } else if (j + 1 >= L.size()) {
      write_slowest_level(ctx, path, pd, j, path_ev, cache);
    } else {
      set_value(cache, "present", true, 0.9, path_ev,
                last_level_is_miss ? "the L2-only path" : "a latency level of path " + path + " below the L2 hit latency");
      const CacheLevel cl = cache_level(ctx, pd, names[i], j, last_level_is_miss, cache);
      CacheJob job{ctx, path, pd, cl, cache};
      infer_one(job);
    }
  }
}

}  // namespace memhier::analysis
