#include "analysis/cache/capacity.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <optional>
#include <sstream>

#include "analysis/cache/sequences/evidence.hpp"
#include "common/policy.hpp"

namespace memhier::analysis {

namespace {
std::uint64_t round_to(std::uint64_t x, std::uint64_t g) { return g ? x / g * g : x; }
}  // namespace

namespace {

// Misses of one sweep, per footprint in size order.
struct MissCounts {
  const std::vector<double>& miss;  // fraction of accesses beyond the cache's level
  const std::vector<double>& n;     // accesses
  std::vector<double> k;            // misses
  std::vector<double> runs;         // runs pooled at the footprint
};

// The noise of the sweep: misses, accesses and runs of the longest prefix consistent with itself.
struct Noise {
  double nk = 0, nn = 0, nr = 0;
  void add(const MissCounts& m, std::size_t i) {
    nk += m.k[i];
    nn += m.n[i];
    nr += m.runs[i];
  }
  // Expected noise misses of a footprint: the noise rate per access times its accesses, at least the
  // noise per run times its runs.
  double expect(const MissCounts& m, std::size_t i) const {
    const double rate = nn > 0 ? nk / nn : 0, per_run = nr > 0 ? nk / nr : 0;
    return std::max(rate * m.n[i], per_run * m.runs[i]);
  }
};

// The prefix grows while the next footprint's count is likely (kNoiseAlpha) under the prefix's noise
// with half a pseudo-miss per run (a clean prefix of R runs says "about 0.5/R per run", not 0). A
// prefix without a single miss is noise-free (the simulated device): any miss is then evidence.
Noise noise_prefix(const MissCounts& m) {
  Noise z;
  for (std::size_t i = 0; i < m.k.size(); ++i) {
    if (m.miss[i] >= 0.5) break;
    if (z.nr > 0) {
      const double prior = std::max(z.nk / z.nn * m.n[i], (z.nk + 0.5) / z.nr * m.runs[i]);
      if (poisson_upper_tail(m.k[i], prior) < kNoiseAlpha) break;
    }
    z.add(m, i);
  }
  return z;
}

SizeResult below_at(const std::vector<std::uint64_t>& sizes, SizeResult r) {
  r.state = SizeResult::State::below;
  r.hi = sizes.front();
  r.reason = "capacity misses already at " + std::to_string(sizes.front()) + " bytes";
  return r;
}

// Bracket [lo, hi) from the excess flags P (Poisson over the noise) and the expectations lambda.
SizeResult bracket_of(const std::vector<std::uint64_t>& sizes, const MissCounts& m, const std::vector<bool>& P,
                      const std::vector<double>& lambda, SizeResult r) {
  const std::size_t n = sizes.size();
  bool any = false, all = true;
  for (bool p : P) any = any || p, all = all && p;
  // The first footprint from which every larger one shows excess misses.
  std::size_t h = n;
  while (h > 0 && P[h - 1]) --h;
  // Bursts: excess misses of footprints below h that clean footprints follow are noise too (real
  // GPUs: a run now and then with a dozen slow accesses in a row). Capacity misses must exceed the
  // largest such burst ("strong" presence).
  double burst = 0;
  for (std::size_t i = 0; i < h; ++i)
    if (P[i]) {
      burst = std::max(burst, m.k[i] - lambda[i]);
      r.isolated.push_back(sizes[i]);
    }
  r.burst = burst;
  auto strong = [&](std::size_t i) { return P[i] && m.k[i] - lambda[i] > burst; };
  std::size_t hs = n;
  while (hs > 0 && strong(hs - 1)) --hs;
  if (!any || hs == n) {
    r.state = SizeResult::State::above;
    r.lo = sizes.back();
    r.reason = "no capacity misses up to " + std::to_string(sizes.back()) + " bytes";
    if (!r.isolated.empty())
      r.reason += " (" + std::to_string(r.isolated.size()) + " footprint(s) with excess misses followed by clean ones)";
    return r;
  }
  if (all || hs == 0) return below_at(sizes, r);
  // lo: the largest footprint below hs without excess misses. Footprints between lo and hs show
  // excess misses no larger than the noise's bursts: not distinguishable from noise, so the edge is
  // soft there and C lies anywhere in [lo, hi).
  std::size_t l = hs - 1;
  while (l > 0 && P[l]) --l;
  if (P[l]) return below_at(sizes, r);
  for (std::size_t i = l + 1; i < hs; ++i) r.soft_sizes.push_back(sizes[i]);
  // On a path with noise a lone excess footprint may be a burst that no clean footprint above it has
  // shown to be one: hi stands when the footprint measured next above it lies within kConfirmSpan
  // bracket widths of it (misses persisting from hi checked about as finely as lo was placed; a
  // narrowing round refines 32-fold, so the slack cannot hide an unchecked stretch). Else hi moves up
  // to that footprint; the wider bracket is the onset's uncertainty (nothing more is requested).
  if (r.noise_rate > 0 || r.noise_per_run > 0)
    while (hs + 1 < n && sizes[hs + 1] - sizes[hs] > kConfirmSpan * (sizes[hs] - sizes[l]))
      r.unconfirmed.push_back(sizes[hs++]);
  r.isolated.erase(std::remove_if(r.isolated.begin(), r.isolated.end(), [&](std::uint64_t b) { return b > sizes[l]; }),
                   r.isolated.end());
  r.soft = !r.soft_sizes.empty();
  r.lo = sizes[l];
  r.hi = sizes[hs];
  r.state = r.hi - r.lo <= r.stride && !r.soft && r.unconfirmed.empty() ? SizeResult::State::exact
                                                                         : SizeResult::State::bracket;
  if (!r.cp.found)
    r.reason = "no change point confirmed by the KS test over the sweep (too few sizes or a weak change)";
  return r;
}

}  // namespace

SizeResult find_size(const std::vector<std::uint64_t>& sizes, const std::vector<double>& miss,
                     const std::vector<std::vector<double>>& vec, const std::vector<double>& n,
                     std::uint64_t stride, const std::vector<double>& runs) {
  SizeResult r;
  r.stride = stride;
  const std::size_t m = sizes.size();
  if (m == 0) {
    r.reason = "no capacity sweep";
    return r;
  }
  r.cp = detect_change_point(vec);
  MissCounts mc{miss, n, std::vector<double>(m), std::vector<double>(m)};
  for (std::size_t i = 0; i < m; ++i) {
    mc.k[i] = std::round(miss[i] * n[i]);
    mc.runs[i] = i < runs.size() && runs[i] > 0 ? runs[i] : 1.0;
  }
  Noise z = noise_prefix(mc);
  // Every footprint up to lo shows misses no larger than the noise's bursts: noise, whose rate the
  // prefix (ended by the first rare miss when the noise is 1 in thousands of accesses) may have
  // under-read. Their rate, where it is more, decides the excess again, until lo stays.
  for (int round = 0; round < 4; ++round) {
    std::vector<bool> P(m);
    std::vector<double> lambda(m);
    bool any = false;
    for (std::size_t i = 0; i < m; ++i) {
      lambda[i] = z.expect(mc, i);
      P[i] = poisson_upper_tail(mc.k[i], lambda[i]) < kMissAlpha;
      any = any || P[i];
    }
    SizeResult q = r;
    q.noise_rate = z.nn > 0 ? z.nk / z.nn : 0;
    q.noise_per_run = z.nr > 0 ? z.nk / z.nr : 0;
    if (!any && !q.cp.found && miss.front() >= 0.5) return below_at(sizes, q);  // one high miss rate everywhere
    q = bracket_of(sizes, mc, P, lambda, q);
    if (!size_decided(q)) return q;
    Noise below;
    for (std::size_t i = 0; i < m && sizes[i] <= q.lo; ++i) below.add(mc, i);
    q.spurious_misses = below.nk;
    q.spurious_accesses = below.nn;
    if (below.nn <= 0 || below.nk * z.nn <= z.nk * below.nn * (1 + 1e-9)) return q;  // no higher rate
    z = below;
    if (round == 3) return q;
  }
  return r;
}

bool size_decided(const SizeResult& r) {
  return r.state == SizeResult::State::exact || r.state == SizeResult::State::bracket;
}

namespace {

// The sweep stride: the plan's (the first input's) most common count stride; refinement runs
// (stage 2 at the line or sector stride) do not outvote it.
std::uint64_t sweep_stride(const std::vector<const Chase*>& list) {
  std::map<std::uint64_t, int> stride_n;
  const std::size_t first_run = (*std::min_element(list.begin(), list.end(), [](auto* a, auto* b) {
                                  return a->run < b->run;
                                }))->run;
  for (auto* c : list)
    if (c->run == first_run) stride_n[c->stride]++;
  std::uint64_t s0 = 0;
  int best = 0;
  for (auto& [s, k] : stride_n)
    if (k > best) best = k, s0 = s;
  return s0;
}

// The size search and the 50 % point over one carveout's sweep at stride s0: per footprint, the
// miss fraction, the accesses, the runs and the quantile vector of the change-point test.
// Per footprint of the sweep at stride s0: miss fraction, accesses, runs, the quantile vector of the
// change-point test. only_run: just the chases of that input (the plan), else every input.
struct SweepData {
  std::vector<std::uint64_t> sizes;
  std::vector<double> miss, n, runs;
  std::vector<std::vector<double>> vec;
  Evidence ev;
};
SweepData sweep_data(const CacheJob& job, const std::vector<const Chase*>& list, std::uint64_t s0,
                     std::optional<std::size_t> only_run = std::nullopt) {
  std::map<std::uint64_t, std::vector<WeightedValue>> per_size;
  std::map<std::uint64_t, double> runs_per_size;
  SweepData d;
  for (auto* c : list) {
    if (c->stride != s0 || (only_run && c->run != *only_run)) continue;
    const Trace* t = job.data().trace(*c);
    if (!t) continue;
    auto s = samples_of(*t);
    auto& v = per_size[c->bytes];
    v.insert(v.end(), s.begin(), s.end());
    runs_per_size[c->bytes] += 1;
    d.ev.add(c->name());
  }
  for (auto& [b, s] : per_size) {
    double total = 0;
    const double w = weight_above(s, job.cl.boundary, &total);
    if (total <= 0) continue;
    d.sizes.push_back(b);
    d.miss.push_back(w / total);
    d.n.push_back(total);
    d.runs.push_back(runs_per_size[b]);
    d.vec.push_back(clamped_quantiles(s, job.cl.clamp_lo, job.cl.clamp_hi));
  }
  return d;
}

// The size search and the 50 % point over one carveout's sweep at stride s0 (and the 50 % point of
// the plan's runs alone: a reference that later rounds do not move).
Capacity search_sweep(const CacheJob& job, const std::vector<const Chase*>& list, std::uint64_t s0) {
  const SweepData d = sweep_data(job, list, s0);
  std::vector<double> passes;
  for (auto* c : list)
    if (c->stride == s0 && c->chain() > 0) passes.push_back(static_cast<double>(c->iters) / c->chain());
  Capacity cap;
  cap.onset = find_size(d.sizes, d.miss, d.vec, d.n, s0, d.runs);
  cap.onset.evidence = d.ev;
  cap.half = half_point(d.sizes, d.miss, d.n, s0);
  const std::size_t first = (*std::min_element(list.begin(), list.end(), [](auto* a, auto* b) { return a->run < b->run; }))->run;
  const SweepData plan = sweep_data(job, list, s0, first);
  cap.half_plan = half_point(plan.sizes, plan.miss, plan.n, s0);
  cap.sizes = d.sizes;
  cap.miss = d.miss;
  cap.n = d.n;
  cap.timed_passes = passes.empty() ? 1.0 : median(passes);
  return cap;
}

// The L2's sets and ways measured by its eviction sets (l2_evsets, in the data or deferred by the
// plan: context memhier_deferred): the P-chase's stage 2, the one reader of an onset exact to the
// line, is not needed for them, so the onset is narrowed to 1/kOnsetRelativeWidth of itself. On the
// H200 each narrowing round of the L2's onset took ~1 s (19 chases of ~25 MB, each warmed by a pass
// over its footprint; 2026-12-02), and the five runs of one board placed that onset 1.5 % apart on
// the H200 (26.54 - 26.93 MB) and 10 % on the H100 (19.6 - 21.6 MB; archives of 2026-11-27): a
// bracket narrower than that measures the run's allocation, not the cache.
constexpr std::uint64_t kOnsetRelativeWidth = 64;

}  // namespace

bool structure_measured_elsewhere(const CacheJob& job) {
  if (job.cl.name != "l2") return false;
  // On a GPU (the simulated device's L2 is one cache with a plain structure, which the P-chase's
  // stage 2 decides, and the end-to-end tests check that path)
  const auto& c = job.data().context();
  if (auto b = c.find("device_backend"); b == c.end() || b->second != "cuda") return false;
  if (!job.data().family("l2_evsets").empty()) return true;
  const auto it = c.find("memhier_deferred");
  const std::string deferred = "," + (it == c.end() ? std::string() : it->second) + ",";
  return deferred.find(",l2_evsets,") != std::string::npos;
}

namespace {

// Refinement requests (003 §3.2: doubling, then narrowing the bracket).
void request_sizes(CacheJob& job, int co, const SizeResult& r) {
  const std::uint64_t s0 = r.stride;
  auto want = [&](std::uint64_t b, const std::string& why) {
    ChaseWish w;
    w.path = job.path;
    w.mode = "count";
    w.bytes = b;
    w.stride = s0;
    w.iters = std::min<std::uint64_t>((b + s0 - 1) / s0, 1u << 16);
    w.carveout = co;
    w.why = why;
    job.ctx.requests.add(w);
  };
  const std::string& name = job.cl.name;
  if (r.state == SizeResult::State::above) {
    want(2 * r.lo, name + " size: doubling");
  } else if (r.state == SizeResult::State::below && r.hi / 2 >= s0) {
    want(round_to(r.hi / 2, s0), name + " size: halving");
  } else if (r.state == SizeResult::State::bracket && !r.soft) {
    // An unconfirmed hi asks for what the bracket up to it would (the confirmation rule changes what
    // is stated, never what is measured): the wider bracket, like a soft edge, is the uncertainty.
    const std::uint64_t hi = r.unconfirmed.empty() ? r.hi : r.unconfirmed.front();
    if (hi - r.lo <= s0) return;
    if (structure_measured_elsewhere(job) && hi - r.lo <= r.lo / kOnsetRelativeWidth) return;
    // Access sequences decide the sets of a cache that has them: an exact onset (for stage 2 of the
    // P-chase) is then wanted last.
    const std::string why = has_sequence_runs(job.data(), name) ? " size: narrowing (after the sequences)" : " size: narrowing";
    const std::uint64_t gap = hi - r.lo;
    for (int k = 1; k < 32; ++k) {
      std::uint64_t b = round_to(r.lo + gap * k / 32, s0);
      if (b > r.lo && b < hi) want(b, name + why);
    }
  }
}

}  // namespace

std::map<int, Capacity> measure_capacity(CacheJob& job) {
  // Carveout groups of the capacity sweep (count mode, warm).
  std::map<int, std::vector<const Chase*>> by_co;
  for (auto* c : job.pd.all)
    if (c->mode == "count" && c->warm) by_co[c->carveout].push_back(c);
  std::map<int, Capacity> sizes;
  for (auto& [co, list] : by_co) {
    Capacity cap = search_sweep(job, list, sweep_stride(list));
    request_sizes(job, co, cap.onset);
    sizes[co] = cap;
  }
  job.primary = by_co.empty() ? -1 : by_co.begin()->first;
  return sizes;
}

namespace {

std::string num(double x) {
  std::ostringstream o;
  o << std::setprecision(3) << x;
  return o.str();
}

std::string size_note(const SizeResult& r) {
  std::string noise = "; misses decided by rate against the noise of the small footprints (" +
                      num(r.noise_rate) + " per access, " + num(r.noise_per_run) +
                      " per run; Poisson test, alpha " + num(kMissAlpha) + "; bursts up to " + num(r.burst) + " misses)";
  if (!r.isolated.empty())
    noise += "; " + std::to_string(r.isolated.size()) + " smaller footprint(s) with excess misses followed by clean "
             "ones ignored (first " + std::to_string(r.isolated.front()) + ")";
  if (!r.unconfirmed.empty())
    noise += "; excess misses at " + std::to_string(r.unconfirmed.front()) + " not confirmed: the next footprint "
             "measured above it lies more than " + std::to_string(kConfirmSpan) + " bracket widths away (a burst is not "
             "ruled out"
             "), so the bracket reaches " + std::to_string(r.hi);
  if (r.state == SizeResult::State::exact)
    return "largest size without capacity misses; misses at " + std::to_string(r.hi) +
           (r.cp.found ? "; KS D=" + std::to_string(r.cp.ks.d).substr(0, 5) + " > " +
                             std::to_string(r.cp.ks.critical).substr(0, 5)
                       : std::string()) +
           noise;
  if (r.soft)
    return "soft edge: C in [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) + "): " +
           std::to_string(r.soft_sizes.size()) + " footprint(s) from " + std::to_string(r.soft_sizes.front()) +
           " on show excess misses no larger than the noise's bursts (" + num(r.burst) +
           " misses), not distinguishable from noise; " + std::to_string(r.hi) +
           " is the first from which every footprint misses beyond them: the bracket is the size's "
           "uncertainty, no narrowing inside it" + noise;
  return "largest footprint measured without capacity misses (000 §4.2 step 1); the next size measured, " +
         std::to_string(r.hi) + " bytes, misses: C in [" + std::to_string(r.lo) + ", " + std::to_string(r.hi) +
         "), wider than the sweep stride (sizes in between requested)" + noise;
}

double size_confidence(const SizeResult& r) {
  if (r.state == SizeResult::State::exact) return r.cp.found ? 0.95 : 0.7;
  return r.soft || !r.unconfirmed.empty() ? 0.4 : (r.cp.found ? 0.7 : 0.5);
}

std::string half_note(const HalfPoint& h) {
  return "capacity: the 50 % point of the miss-rate curve (index and policy not known, so no model fit): " + h.note;
}

// onset_size_bytes and its bracket (where misses begin), or null with the reason.
void write_onset(nlohmann::json& cache, const SizeResult& r) {
  if (!size_decided(r)) {
    set_null(cache, "onset_size_bytes", r.reason.empty() ? "no change point" : r.reason, r.evidence);
    return;
  }
  set_value(cache, "onset_size_bytes", r.lo, size_confidence(r), r.evidence,
            "where misses begin: " + size_note(r));
  set_value(cache, "onset_size_bracket_bytes", nlohmann::json::array({r.lo, r.hi}), 0.95, r.evidence,
            r.soft ? "soft edge: largest footprint without capacity misses and the first whose miss rate is "
                     "significantly above it; the onset lies in [lo, hi)"
                   : "largest footprint without and smallest with capacity misses");
}

// The capacity's interval when the 50 % point stands for it: from where misses begin (a cyclic
// sweep over more lines than the cache holds must miss, so C >= the largest footprint without
// capacity misses, whatever the index and policy) to the 50 % point's upper end (an index that
// spreads consecutive lines evenly puts the 50 % point at or above C under LRU, FIFO, PLRU and
// random replacement: C (1 + 1/(2W+1)) for LRU with W ways, 1.39 C for random). The 50 % point's own
// scatter interval says how well the curve is measured, not where the capacity lies.
nlohmann::json half_capacity_interval(const Capacity& cap) {
  const HalfPoint& h = cap.half;
  const std::uint64_t lo = size_decided(cap.onset) ? std::min(cap.onset.lo, h.ilo) : h.ilo;
  return nlohmann::json::array({lo, h.ihi});
}

// size_bytes from the 50 % point, or null with the reason.
void write_half(nlohmann::json& cache, const Capacity& cap, const Evidence& ev) {
  const HalfPoint& h = cap.half;
  if (h.state != HalfPoint::State::found) {
    set_null(cache, "size_bytes", h.note.empty() ? "no capacity sweep" : h.note, ev);
    return;
  }
  const double conf = h.transition >= kHalfPointMinTransition ? 0.6 : 0.5;
  set_value(cache, "half_point_bytes", h.bytes, conf, ev, "the 50 % point of the miss-rate curve: " + h.note);
  set_value(cache, "half_point_bracket_bytes", nlohmann::json::array({h.ilo, h.ihi}), 0.9, ev,
            "the 50 % point's interval: its scatter about a local line through the footprints around it");
  set_value(cache, "size_source", "half_point", 0.9, ev, "size_bytes is the 50 % point (index and policy not known)");
  set_value(cache, "size_bytes", h.bytes, conf, ev, half_note(h));
  set_value(cache, "size_bracket_bytes", half_capacity_interval(cap), 0.9, ev,
            "where the capacity lies while the 50 % point stands for it: from the largest footprint without "
            "capacity misses to the upper end of the 50 % point's interval [" + std::to_string(h.ilo) + ", " +
                std::to_string(h.ihi) + "] (its scatter about a local line); an index that spreads consecutive "
                "lines evenly puts the 50 % point at or above the capacity");
}

void write_by_carveout(nlohmann::json& cache, const std::map<int, Capacity>& sizes) {
  nlohmann::json by = nlohmann::json::object(), br = nlohmann::json::object();
  nlohmann::json on = nlohmann::json::object(), obr = nlohmann::json::object();
  Evidence all;
  std::string notes;
  for (auto& [co, cap] : sizes) {
    const SizeResult& sr = cap.onset;
    const HalfPoint& h = cap.half;
    const std::string k = std::to_string(co);
    const bool found = h.state == HalfPoint::State::found;
    by[k] = found ? nlohmann::json(h.bytes) : nlohmann::json();
    br[k] = found ? half_capacity_interval(cap) : nlohmann::json();
    on[k] = size_decided(sr) ? nlohmann::json(sr.lo) : nlohmann::json();
    obr[k] = size_decided(sr) ? nlohmann::json::array({sr.lo, sr.hi}) : nlohmann::json();
    all.add(sr.evidence);
    notes += "; carveout " + k + ": " + (found ? half_note(h) : h.note) + "; onset " +
             (size_decided(sr) ? size_note(sr) : sr.reason);
  }
  set_value(cache, "size_bytes_by_carveout", by, 0.9, all,
            "keys: shared-memory carveout percent; the capacity (50 % point) per carveout; null: not decided" + notes);
  set_value(cache, "size_bracket_bytes_by_carveout", br, 0.9, all,
            "per carveout: where the capacity lies (from where misses begin to the 50 % point's upper end)");
  set_value(cache, "onset_size_bytes_by_carveout", on, 0.9, all, "per carveout: where misses begin");
  set_value(cache, "onset_size_bracket_bytes_by_carveout", obr, 0.95, all,
            "per carveout: largest footprint without and smallest with capacity misses");
}

}  // namespace

void write_capacity(CacheJob& job, const std::map<int, Capacity>& sizes) {
  nlohmann::json& cache = job.cache;
  if (sizes.empty()) {
    set_null(cache, "size_bytes", "no capacity sweep (count mode) on path " + job.path);
    set_null(cache, "onset_size_bytes", "no capacity sweep (count mode) on path " + job.path);
    return;
  }
  const Capacity& cap = sizes.at(job.primary);
  write_onset(cache, cap.onset);
  write_half(cache, cap, cap.onset.evidence);
  if (job.primary >= 0)
    set_value(cache, "size_carveout", job.primary, 0.95, cap.onset.evidence,
              "shared-memory carveout (percent) of size_bytes: the smallest measured, the plan's default (the "
              "carveout every L1-side path is measured at); L1 capacity depends on it");
  if (sizes.size() > 1) write_by_carveout(cache, sizes);
}

void request_half_point(CacheJob& job, int co, const Capacity& cap) {
  const HalfPoint& h = cap.half;
  if (h.state != HalfPoint::State::found || h.transition >= kHalfPointMinTransition) return;
  for (int k = 1; k <= 7; ++k) {
    ChaseWish w;
    w.path = job.path;
    w.mode = "count";
    w.stride = cap.onset.stride;
    w.bytes = round_to(h.lo + (h.hi - h.lo) * k / 8, w.stride);
    if (w.bytes <= h.lo || w.bytes >= h.hi) continue;
    w.iters = std::min<std::uint64_t>((w.bytes + w.stride - 1) / w.stride, 1u << 16);
    w.carveout = co;
    w.why = job.cl.name + " capacity: 50 % point";
    job.ctx.requests.add(w);
  }
}

namespace {

// The set models the cache's replacement result allows: lru_or_fifo -> LRU (a cyclic chase cannot
// tell them apart), random -> uniform random, non-lru -> random with the per-way probabilities;
// ways: the measured ones when every set has the same, else every count from 1 to 256 that has
// been seen on GPUs and CPUs (powers of two: the ways change the curve's shape only a little, the
// capacity not).
std::vector<SetModel> policy_models(const nlohmann::json& c, std::uint64_t line, std::uint64_t hi) {
  std::vector<SetModel> out;
  const nlohmann::json rep = c.value("replacement", nlohmann::json());
  if (!rep.is_string()) return out;
  SetModel base;
  const std::string r = rep.get<std::string>();
  if (r == "lru_or_fifo") base.policy = "lru";
  else if (r == "random") base.policy = "random";
  else if (r == "non-lru" && c.value("replacement_probabilities", nlohmann::json()).is_array()) {
    base.policy = "random";
    base.weights = c["replacement_probabilities"].get<std::vector<double>>();
  } else if (policy::canonical_policy_name(r) != "") base.policy = policy::canonical_policy_name(r);
  else return out;
  std::vector<std::uint32_t> ways;
  const nlohmann::json w = c.value("ways", nlohmann::json());
  if (w.is_array() && !w.empty() && std::all_of(w.begin(), w.end(), [&](auto& x) { return x == w.front(); }))
    ways.push_back(w.front().get<std::uint32_t>());
  else if (!base.weights.empty())
    ways.push_back(static_cast<std::uint32_t>(base.weights.size()));
  else
    ways = {2, 4, 8, 16, 32, 64, 128};
  for (auto k : ways) {
    if (k * line > hi || !policy::policy_ways_problem(base.policy, k).empty()) continue;
    SetModel m = base;
    m.ways = k;
    out.push_back(m);
  }
  return out;
}

}  // namespace

namespace {

// What a fit of the primary sweep reads: the sweep's shape, the capacities tried and the footprints
// up to the fit's upper end (beyond it every model misses everywhere). False without a line or with
// fewer than 4 footprints.
struct FitInput {
  SweepShape shape;
  std::uint64_t lo = 0, hi = 0;
  std::vector<std::uint64_t> sz;
  std::vector<double> miss, n;
};
bool fit_input(const CacheJob& job, const Capacity& cap, FitInput& in) {
  const nlohmann::json& c = job.cache;
  if (!has_value(c, "line_bytes") || cap.sizes.size() < 4) return false;
  in.shape.stride = cap.onset.stride;
  in.shape.line = c["line_bytes"].get<std::uint64_t>();
  in.shape.fill = has_value(c, "sector_bytes") ? c["sector_bytes"].get<std::uint64_t>() : in.shape.line;
  in.shape.timed_passes = cap.timed_passes;
  in.lo = std::max<std::uint64_t>(in.shape.line, cap.onset.lo / 2);
  in.hi = std::max<std::uint64_t>(2 * std::max(cap.half.hi, cap.onset.hi), in.lo);
  for (std::size_t i = 0; i < cap.sizes.size() && cap.sizes[i] <= in.hi; ++i)
    in.sz.push_back(cap.sizes[i]), in.miss.push_back(cap.miss[i]), in.n.push_back(cap.n[i]);
  return true;
}

void write_fit(nlohmann::json& c, const CapacityFit& f, std::uint64_t lo, std::uint64_t hi, const Evidence& ev,
               const std::string& extra) {
  set_value(c, "size_bytes", f.bytes, 0.8, ev, "capacity: " + f.note + extra);
  set_value(c, "size_bracket_bytes", nlohmann::json::array({lo, hi}), 0.9, ev,
            "capacities whose model curve fits the measured one as well as the best");
  set_value(c, "size_source", "model_fit", 0.9, ev, "size_bytes is a model fit of the miss-rate curve");
}

}  // namespace

bool fit_capacity_to_policy(CacheJob& job, const Capacity& cap, std::vector<SetModel> models) {
  nlohmann::json& c = job.cache;
  FitInput in;
  if (!fit_input(job, cap, in)) return false;
  if (models.empty()) models = policy_models(c, in.shape.line, in.hi);
  if (models.empty()) return false;
  const CapacityFit f = fit_capacity(in.sz, in.miss, in.n, in.shape, models, in.lo, in.hi);
  if (!f.found) {
    c["provenance"]["size_bytes"]["model_fit"] = f.note;
    return false;
  }
  write_fit(c, f, f.lo, f.hi, cap.onset.evidence, "");
  return true;
}

namespace {

// The policies whose cyclic-chase curve rises gradually (LRU, FIFO and SLRU step from no miss to all
// misses at the capacity): each is fitted at 2-128 ways.
const char* const kGradualPolicies[] = {"random", "plru", "plru_tree", "bit_plru", "bit_plru_n", "nru", "srrip", "brrip"};

struct PolicyFits {
  std::vector<CapacityFit> fits;  // one per policy with a model, best first
  std::vector<std::string> tied;  // the policies that fit as well as the best (the best first)
};
PolicyFits fit_every_policy(const FitInput& in) {
  PolicyFits out;
  for (const char* p : kGradualPolicies) {
    std::vector<SetModel> models;
    for (std::uint32_t w = 2; w <= 128; w *= 2)
      if (w * in.shape.line <= in.hi && policy::policy_ways_problem(p, w).empty()) models.push_back({p, w, {}});
    if (models.empty()) continue;
    out.fits.push_back(fit_capacity(in.sz, in.miss, in.n, in.shape, models, in.lo, in.hi));
  }
  std::sort(out.fits.begin(), out.fits.end(), [](auto& a, auto& b) { return a.rms < b.rms; });
  if (out.fits.empty()) return out;
  const double b = out.fits.front().rms, noise = out.fits.front().noise_rms;
  // The fit's own tolerance between capacities: within 1.5 x the best sum of squares plus sampling.
  for (const auto& f : out.fits)
    if (f.found && f.rms * f.rms <= 1.5 * b * b + noise * noise + kFitSlack * kFitSlack) out.tied.push_back(f.set.policy);
  return out;
}

}  // namespace

bool fit_capacity_over_policies(CacheJob& job, const Capacity& cap) {
  nlohmann::json& c = job.cache;
  FitInput in;
  if (!fit_input(job, cap, in)) return false;
  const PolicyFits pf = fit_every_policy(in);
  std::string table;
  for (const auto& f : pf.fits)
    table += (table.empty() ? "" : ", ") + f.set.policy + " " + std::to_string(f.set.ways) + " ways " +
             std::to_string(f.bytes) + " bytes rms " + std::to_string(std::lround(f.rms * 1000) / 1000.0).substr(0, 5);
  const std::string read = c.value("replacement", nlohmann::json()).dump();
  if (pf.tied.empty()) {
    c["provenance"]["size_bytes"]["model_fit"] = "no policy model describes the curve (" + table + ")";
    set_null(c, "replacement", "the capacity sweep read as " + read + ", but no policy model (" + table +
                                   ") describes its miss-rate curve", cap.onset.evidence);
    return false;
  }
  const CapacityFit& best = pf.fits.front();
  std::uint64_t lo = best.lo, hi = best.hi;
  for (const auto& f : pf.fits)
    if (std::find(pf.tied.begin(), pf.tied.end(), f.set.policy) != pf.tied.end())
      lo = std::min(lo, f.lo), hi = std::max(hi, f.hi);
  write_fit(c, best, lo, hi, cap.onset.evidence, "; every gradual policy fitted at 2-128 ways: " + table);
  c["replacement_candidates"] = pf.tied;
  if (pf.tied.size() == 1) {
    set_value(c, "replacement", best.set.policy, 0.6, cap.onset.evidence,
              "the one policy whose model fits the capacity sweep's miss-rate curve (" + table + "; read first as " +
                  read + ")");
  } else {
    std::string names;
    for (const auto& t : pf.tied) names += (names.empty() ? "" : ", ") + t;
    set_null(c, "replacement", "the capacity sweep's curve is not LRU/FIFO's step, and " + names +
                                   " fit it equally well (" + table + "): replacement_candidates", cap.onset.evidence);
  }
  return true;
}

void write_structure_capacity(CacheJob& job, std::uint64_t bytes, const std::string& how, const Evidence& ev) {
  set_value(job.cache, "size_bytes", bytes, 0.9, ev, "capacity from the structure: " + how);
  set_value(job.cache, "size_bracket_bytes", nlohmann::json::array({bytes, bytes}), 0.9, ev,
            "exact: sets x ways x line");
  set_value(job.cache, "size_source", "structure", 0.9, ev, "size_bytes is sets x ways x line");
}

}  // namespace memhier::analysis
