#include "analysis/cache_infer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

namespace memhier::analysis {

std::vector<WeightedValue> samples_of(const Trace& t) {
  std::vector<WeightedValue> v;
  if (t.kind == Trace::Kind::fine) {
    std::map<std::uint32_t, double> m;
    for (auto l : t.latency) m[l] += 1;
    for (auto& [l, w] : m) v.push_back({static_cast<double>(l), w});
  } else {
    for (std::size_t i = 0; i < t.hist.counts.size(); ++i)
      if (t.hist.counts[i]) v.push_back({(i + 0.5) * t.hist.bin_width, static_cast<double>(t.hist.counts[i])});
  }
  return v;
}

void refine_level_means(std::vector<Level>& L, const Dataset& data, const std::vector<const Chase*>& chases) {
  if (L.empty()) return;
  // Fine traces are the exact measurement (every access as timed); count runs add their histogram
  // update to each sample (H100 L1: 34 cycles fine, 38 count), so a level with fine samples takes
  // its mean from them alone, when they are at least kFineShare of its accesses (a few cold fine
  // samples at a level's edge do not set the mean of a level seen by whole count sweeps).
  constexpr double kFineShare = 0.005;
  std::vector<double> fsum(L.size(), 0), fw(L.size(), 0), csum(L.size(), 0), cw(L.size(), 0);
  for (const Chase* c : chases) {
    if (c->mode == "classic") continue;
    const Trace* t = data.trace(*c);
    if (!t) continue;
    if (t->kind == Trace::Kind::fine) {
      for (auto l : t->latency) {
        const std::size_t k = level_of(L, l);
        fsum[k] += l;
        fw[k] += 1;
      }
      continue;
    }
    const auto s = samples_of(*t);
    if (s.empty() || !c->entry || !c->entry->has("latency_cycles")) continue;
    const std::size_t k = level_of(L, s.front().value);
    if (level_of(L, s.back().value) != k) continue;
    double n = 0;
    for (auto& x : s) n += x.weight;
    csum[k] += c->entry->counter("latency_cycles") * n;
    cw[k] += n;
  }
  for (std::size_t k = 0; k < L.size(); ++k) {
    if (fw[k] > 0 && fw[k] >= kFineShare * L[k].weight) L[k].mean = fsum[k] / fw[k];
    else if (cw[k] > 0) L[k].mean = csum[k] / cw[k];
  }
}

void merge_baseline_levels(std::vector<Level>& L, const std::vector<WeightedValue>& baseline) {
  if (L.size() < 2 || baseline.empty()) return;
  std::vector<double> w(L.size(), 0);
  double total = 0;
  for (auto& x : baseline) {
    w[level_of(L, x.value)] += x.weight;
    total += x.weight;
  }
  std::size_t first = L.size(), last = 0;
  for (std::size_t k = 0; k < L.size(); ++k)
    if (w[k] >= kBaselineShare * total) {
      first = std::min(first, k);
      last = k;
    }
  if (first >= last) return;
  Level m;
  m.lo = L[first].lo;
  m.hi = L[last].hi;
  double s = 0;
  for (std::size_t k = first; k <= last; ++k) {
    m.weight += L[k].weight;
    s += L[k].weight * L[k].mean;
  }
  m.mean = s / m.weight;
  L.erase(L.begin() + static_cast<std::ptrdiff_t>(first) + 1, L.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  L[first] = m;
}

namespace {

double resolution_of(const Trace& t) { return t.kind == Trace::Kind::fine ? 1.0 : t.hist.bin_width; }

// Weighted quantiles of samples clamped to [lo, hi].
std::vector<double> clamped_quantiles(std::vector<WeightedValue> s, double lo, double hi) {
  std::sort(s.begin(), s.end(), [](auto& a, auto& b) { return a.value < b.value; });
  double total = 0;
  for (auto& x : s) total += x.weight;
  std::vector<double> q;
  for (int i = 0; i < 10; ++i) {
    const double p = (i + 0.5) / 10 * total;
    double acc = 0, v = s.empty() ? lo : s.back().value;
    for (auto& x : s) {
      acc += x.weight;
      if (acc >= p) {
        v = x.value;
        break;
      }
    }
    q.push_back(std::clamp(v, lo, hi));
  }
  return q;
}

double weight_above(const std::vector<WeightedValue>& s, double boundary, double* total) {
  double w = 0, t = 0;
  for (auto& x : s) {
    t += x.weight;
    if (x.value > boundary) w += x.weight;
  }
  if (total) *total = t;
  return w;
}

std::uint64_t round_to(std::uint64_t x, std::uint64_t g) { return g ? x / g * g : x; }

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
  std::vector<double> k(m);
  for (std::size_t i = 0; i < m; ++i) k[i] = std::round(miss[i] * n[i]);
  auto runs_at = [&](std::size_t i) { return i < runs.size() && runs[i] > 0 ? runs[i] : 1.0; };
  // Expected noise misses of a footprint: the noise rate per access times its accesses, at least the
  // noise per run times its runs.
  double nk = 0, nn = 0, nr = 0;
  auto expect = [&](std::size_t i) {
    const double rate = nn > 0 ? nk / nn : 0, per_run = nr > 0 ? nk / nr : 0;
    return std::max(rate * n[i], per_run * runs_at(i));
  };
  auto add_noise = [&](std::size_t i) {
    nk += k[i];
    nn += n[i];
    nr += runs_at(i);
  };
  // Noise: the longest prefix of the sweep (footprints in size order) consistent with itself. The
  // prefix grows while the next footprint's count is likely (kNoiseAlpha) under the prefix's noise
  // with half a pseudo-miss per run (a clean prefix of R runs says "about 0.5/R per run", not 0). A
  // prefix without a single miss is noise-free (the simulated device): any miss is then evidence.
  auto expect_prior = [&](std::size_t i) {
    return std::max(nk / nn * n[i], (nk + 0.5) / nr * runs_at(i));
  };
  for (std::size_t i = 0; i < m; ++i) {
    if (miss[i] >= 0.5 || (nr > 0 && poisson_upper_tail(k[i], expect_prior(i)) < kNoiseAlpha)) break;
    add_noise(i);
  }
  // Poisson excess over the noise rate: misses beyond the noise rate ("weak" presence).
  std::vector<bool> P(m);
  std::vector<double> lambda(m);
  bool any = false, all = true;
  for (std::size_t i = 0; i < m; ++i) {
    lambda[i] = expect(i);
    P[i] = poisson_upper_tail(k[i], lambda[i]) < kMissAlpha;
    any = any || P[i];
    all = all && P[i];
  }
  r.noise_rate = nn > 0 ? nk / nn : 0;
  r.noise_per_run = nr > 0 ? nk / nr : 0;
  if (!any && !r.cp.found && miss.front() >= 0.5) {  // one high miss rate everywhere: all above C
    r.state = SizeResult::State::below;
    r.hi = sizes.front();
    r.reason = "capacity misses already at " + std::to_string(sizes.front()) + " bytes";
    return r;
  }
  // The first footprint from which every larger one shows excess misses.
  std::size_t h = m;
  while (h > 0 && P[h - 1]) --h;
  // Bursts: excess misses of footprints below h that clean footprints follow are noise too (real
  // GPUs: a run now and then with a dozen slow accesses in a row). Capacity misses must exceed the
  // largest such burst ("strong" presence).
  double burst = 0;
  for (std::size_t i = 0; i < h; ++i)
    if (P[i]) {
      burst = std::max(burst, k[i] - lambda[i]);
      r.isolated.push_back(sizes[i]);
    }
  r.burst = burst;
  auto strong = [&](std::size_t i) { return P[i] && k[i] - lambda[i] > burst; };
  std::size_t hs = m;
  while (hs > 0 && strong(hs - 1)) --hs;
  if (!any || hs == m) {
    r.state = SizeResult::State::above;
    r.lo = sizes.back();
    r.reason = "no capacity misses up to " + std::to_string(sizes.back()) + " bytes";
    if (!r.isolated.empty())
      r.reason += " (" + std::to_string(r.isolated.size()) + " footprint(s) with excess misses followed by clean ones)";
    return r;
  }
  if (all || hs == 0) {
    r.state = SizeResult::State::below;
    r.hi = sizes.front();
    r.reason = "capacity misses already at " + std::to_string(sizes.front()) + " bytes";
    return r;
  }
  // lo: the largest footprint below hs without excess misses. Footprints between lo and hs show
  // excess misses no larger than the noise's bursts: not distinguishable from noise, so the edge is
  // soft there and C lies anywhere in [lo, hi).
  std::size_t l = hs - 1;
  while (l > 0 && P[l]) --l;
  if (P[l]) {
    r.state = SizeResult::State::below;
    r.hi = sizes.front();
    r.reason = "capacity misses already at " + std::to_string(sizes.front()) + " bytes";
    return r;
  }
  for (std::size_t i = l + 1; i < hs; ++i) r.soft_sizes.push_back(sizes[i]);
  r.isolated.erase(std::remove_if(r.isolated.begin(), r.isolated.end(), [&](std::uint64_t b) { return b > sizes[l]; }),
                   r.isolated.end());
  r.soft = !r.soft_sizes.empty();
  r.lo = sizes[l];
  r.hi = sizes[hs];
  r.state = r.hi - r.lo <= stride && !r.soft ? SizeResult::State::exact : SizeResult::State::bracket;
  if (!r.cp.found)
    r.reason = "no change point confirmed by the KS test over the sweep (too few sizes or a weak change)";
  return r;
}

SetsResult sets_from_membership(const std::vector<std::vector<std::uint64_t>>& missing, std::uint64_t lines_at_c) {
  SetsResult r;
  std::set<std::uint64_t> prev;
  for (std::size_t j = 0; j < missing.size(); ++j) {
    std::set<std::uint64_t> cur(missing[j].begin(), missing[j].end());
    std::vector<std::uint64_t> added;
    for (auto l : cur)
      if (!prev.count(l)) added.push_back(l);
    const std::uint64_t new_line = lines_at_c + j;  // the line this step added
    if (added.size() >= 2) {
      r.ways.push_back(static_cast<int>(added.size()) - 1);
      r.members.push_back(added);
      r.opening_lines.push_back(new_line);
    }
    cur.insert(prev.begin(), prev.end());
    prev = cur;
    const std::uint64_t lines = lines_at_c + j + 1;
    r.complete = prev.size() >= lines;
    if (r.complete) break;
  }
  return r;
}

SetsResult sets_from_counts(const std::vector<double>& misses, std::uint64_t lines_at_c) {
  SetsResult r;
  double prev = 0;
  for (std::size_t j = 0; j < misses.size(); ++j) {
    const double d = std::round(misses[j] - prev);
    if (d >= 2) {
      r.ways.push_back(static_cast<int>(d) - 1);
      r.opening_lines.push_back(lines_at_c + j);
    }
    prev = misses[j];
    r.complete = std::round(misses[j]) >= static_cast<double>(lines_at_c + j + 1);
    if (r.complete) break;
  }
  return r;
}

IndexBits index_bits_of(const SetsResult& s, std::uint64_t line_bytes) {
  IndexBits out;
  const std::size_t t = s.ways.size();
  if (!s.complete || t == 0) return out;
  if (t == 1) {  // fully associative: no index bits
    out.bits = true;
    return out;
  }
  if ((t & (t - 1)) != 0 || s.members.size() != t) return out;
  int nb = 0;
  while ((1u << nb) < t) ++nb;
  int lb = 0;
  while ((1ull << lb) < line_bytes) ++lb;
  std::vector<int> fits;
  for (int lo = lb; lo < 40; ++lo) {
    std::set<std::uint64_t> used;
    bool ok = true;
    for (std::size_t k = 0; k < t && ok; ++k) {
      std::set<std::uint64_t> v;
      for (auto l : s.members[k]) v.insert(((l * line_bytes) >> lo) & (t - 1));
      ok = v.size() == 1 && used.insert(*v.begin()).second;
    }
    if (ok) fits.push_back(lo);
  }
  if (fits.empty()) return out;
  out.bits = true;
  out.lo = fits.front();
  out.hi = fits.front() + nb - 1;
  out.ambiguous = fits.size() > 1;
  return out;
}

PolicyResult replacement_of(const std::vector<std::uint64_t>& line, const std::vector<bool>& miss,
                            std::uint64_t period) {
  PolicyResult r;
  const std::size_t n = line.size();
  if (period == 0 || n < 2 * period) {
    r.reason = "the N = C + b trace holds " + std::to_string(n) + " accesses, fewer than two passes of " +
               std::to_string(period) + " (k >> N/s needed)";
    return r;
  }
  std::set<std::uint64_t> members;
  for (std::size_t k = 0; k < n; ++k)
    if (miss[k]) members.insert(line[k]);
  if (members.size() < 2) {
    r.reason = "fewer than two lines miss at N = C + b";
    return r;
  }
  bool periodic = true;
  for (std::size_t k = 0; k + period < n && periodic; ++k) periodic = miss[k] == miss[k + period];
  // Every member misses in every full pass?
  bool all_each_pass = true;
  for (std::size_t p = 0; (p + 1) * period <= n && all_each_pass; ++p) {
    std::set<std::uint64_t> m;
    for (std::size_t k = p * period; k < (p + 1) * period; ++k)
      if (miss[k]) m.insert(line[k]);
    all_each_pass = m.size() == members.size();
  }
  if (periodic && all_each_pass) {
    r.policy = "lru_or_fifo";
    return r;
  }
  // Fig. 11: with a+1 members and a ways, the line that misses next is the victim of the current
  // miss; the missing line takes the victim's slot.
  std::vector<std::uint64_t> seq;
  for (std::size_t k = 0; k < n; ++k)
    if (miss[k] && members.count(line[k])) seq.push_back(line[k]);
  std::map<std::uint64_t, int> slot;
  std::vector<double> count;
  for (std::size_t t = 0; t + 1 < seq.size(); ++t) {
    const std::uint64_t victim = seq[t + 1];
    if (victim == seq[t]) continue;
    auto it = slot.find(victim);
    int s;
    if (it == slot.end()) {
      s = static_cast<int>(count.size());
      count.push_back(0);
    } else {
      s = it->second;
    }
    count[s] += 1;
    slot[seq[t]] = s;
    slot.erase(victim);
  }
  r.way_counts = count;
  for (double c : count) r.replacements += c;
  std::sort(count.begin(), count.end(), std::greater<>());
  for (double c : count) r.way_probabilities.push_back(r.replacements > 0 ? c / r.replacements : 0);
  r.policy = chi_square_rejects_uniform(r.way_counts) ? "non-lru" : "random";
  return r;
}

namespace {

struct PathData {
  std::vector<const Chase*> all;
  std::vector<Level> levels;
};

std::string hex_bits(const IndexBits& b) {
  if (b.hi < b.lo) return "none (fully associative)";
  return std::to_string(b.lo) + "-" + std::to_string(b.hi);
}

struct CacheLevel {
  std::string name;
  double boundary;   // latencies above are misses
  double hit_mean;   // hit latency
  double miss_mean;  // latency of the next level
  std::string miss_note;
  Evidence miss_evidence;
  double clamp_lo, clamp_hi;
};

void infer_one(InferContext& ctx, const std::string& path, const PathData& pd, const CacheLevel& cl,
               nlohmann::json& cache) {
  const Dataset& d = ctx.data;
  Evidence lat_ev;
  // Carveout groups of the capacity sweep (count mode, warm).
  std::map<int, std::vector<const Chase*>> by_co;
  for (auto* c : pd.all)
    if (c->mode == "count" && c->warm) by_co[c->carveout].push_back(c);
  std::map<int, SizeResult> sizes;
  for (auto& [co, list] : by_co) {
    // The sweep stride: the plan's (the first input's) most common count stride; refinement runs
    // (stage 2 at the line or sector stride) do not outvote it.
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
    std::map<std::uint64_t, std::vector<WeightedValue>> per_size;
    std::map<std::uint64_t, double> runs_per_size;
    Evidence ev;
    for (auto* c : list) {
      if (c->stride != s0) continue;
      const Trace* t = d.trace(*c);
      if (!t) continue;
      auto s = samples_of(*t);
      auto& v = per_size[c->bytes];
      v.insert(v.end(), s.begin(), s.end());
      runs_per_size[c->bytes] += 1;
      ev.add(c->name());
    }
    std::vector<std::uint64_t> sz;
    std::vector<double> miss, n, nruns;
    std::vector<std::vector<double>> vec;
    for (auto& [b, s] : per_size) {
      double total = 0;
      const double w = weight_above(s, cl.boundary, &total);
      if (total <= 0) continue;
      sz.push_back(b);
      miss.push_back(w / total);
      n.push_back(total);
      nruns.push_back(runs_per_size[b]);
      vec.push_back(clamped_quantiles(s, cl.clamp_lo, cl.clamp_hi));
    }
    SizeResult r = find_size(sz, miss, vec, n, s0, nruns);
    r.evidence = ev;
    sizes[co] = r;
    // Refinement requests (003 §3.2: doubling, then narrowing the bracket).
    const int carveout = co;  // a lambda may not capture a structured binding in C++17 (clang refuses)
    auto want = [&](std::uint64_t b, const std::string& why) {
      ChaseWish w;
      w.path = path;
      w.mode = "count";
      w.bytes = b;
      w.stride = s0;
      w.iters = std::min<std::uint64_t>((b + s0 - 1) / s0, 1u << 16);
      w.carveout = carveout;
      w.why = why;
      ctx.requests.add(w);
    };
    if (r.state == SizeResult::State::above) {
      want(2 * r.lo, cl.name + " size: doubling");
    } else if (r.state == SizeResult::State::below && r.hi / 2 >= s0) {
      want(round_to(r.hi / 2, s0), cl.name + " size: halving");
    } else if (r.state == SizeResult::State::bracket && !r.soft) {
      const std::uint64_t gap = r.hi - r.lo;
      for (int k = 1; k < 32; ++k) {
        std::uint64_t b = round_to(r.lo + gap * k / 32, s0);
        if (b > r.lo && b < r.hi) want(b, cl.name + " size: narrowing");
      }
    }
  }
  int primary = by_co.empty() ? -1 : by_co.begin()->first;
  set_value(cache, "hit_latency_cycles", std::round(cl.hit_mean * 10) / 10, 0.9, lat_ev,
            "mean of the fastest latency level of path " + path);
  if (cl.miss_mean > 0)
    set_value(cache, "miss_penalty_cycles", std::round((cl.miss_mean - cl.hit_mean) * 10) / 10, 0.9,
              cl.miss_evidence, cl.miss_note);
  else
    set_null(cache, "miss_penalty_cycles", "no slower level seen on path " + path);
  if (sizes.empty()) {
    set_null(cache, "size_bytes", "no capacity sweep (count mode) on path " + path);
  } else {
    auto size_note = [](const SizeResult& r) {
      auto num = [](double x) {
        std::ostringstream o;
        o << std::setprecision(3) << x;
        return o.str();
      };
      std::string noise = "; misses decided by rate against the noise of the small footprints (" +
                          num(r.noise_rate) + " per access, " + num(r.noise_per_run) +
                          " per run; Poisson test, alpha " + num(kMissAlpha) + "; bursts up to " + num(r.burst) + " misses)";
      if (!r.isolated.empty())
        noise += "; " + std::to_string(r.isolated.size()) + " smaller footprint(s) with excess misses followed by clean "
                 "ones ignored (first " + std::to_string(r.isolated.front()) + ")";
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
    };
    auto decided = [](const SizeResult& r) {
      return r.state == SizeResult::State::exact || r.state == SizeResult::State::bracket;
    };
    const SizeResult& r = sizes[primary];
    if (decided(r)) {
      set_value(cache, "size_bytes", r.lo,
                r.state == SizeResult::State::exact ? (r.cp.found ? 0.95 : 0.7)
                : r.soft                            ? 0.4
                                                    : (r.cp.found ? 0.7 : 0.5),
                r.evidence, size_note(r));
      set_value(cache, "size_bracket_bytes", nlohmann::json::array({r.lo, r.hi}), 0.95, r.evidence,
                r.soft ? "soft edge: largest footprint without capacity misses and the first whose miss rate is "
                         "significantly above it; C lies in [lo, hi) (the size's uncertainty)"
                       : "largest footprint without and smallest with capacity misses");
    } else {
      set_null(cache, "size_bytes", r.reason.empty() ? "no change point" : r.reason, r.evidence);
    }
    if (primary >= 0)
      set_value(cache, "size_carveout", primary, 0.95, r.evidence,
                "shared-memory carveout (percent) of size_bytes: the smallest measured, the plan's default (the "
                "carveout every L1-side path is measured at); L1 capacity depends on it");
    if (sizes.size() > 1) {
      nlohmann::json by = nlohmann::json::object(), br = nlohmann::json::object();
      Evidence all;
      std::string notes;
      for (auto& [co, sr] : sizes) {
        by[std::to_string(co)] = decided(sr) ? nlohmann::json(sr.lo) : nlohmann::json();
        br[std::to_string(co)] = decided(sr) ? nlohmann::json::array({sr.lo, sr.hi}) : nlohmann::json();
        all.add(sr.evidence);
        notes += "; carveout " + std::to_string(co) + ": " + (decided(sr) ? size_note(sr) : sr.reason);
      }
      set_value(cache, "size_bytes_by_carveout", by, 0.9, all,
                "keys: shared-memory carveout percent; null: not decided" + notes);
      set_value(cache, "size_bracket_bytes_by_carveout", br, 0.95, all,
                "per carveout: largest footprint without and smallest with capacity misses");
    }
  }
  if (!has_value(cache, "size_bytes")) {
    for (auto k : {"line_bytes", "sector_bytes", "sets", "ways", "replacement", "index_bits"})
      set_null(cache, k, "needs the cache size first");
    return;
  }
  const bool size_exact = sizes[primary].state == SizeResult::State::exact;
  const std::uint64_t size_hi = sizes[primary].hi;
  const std::uint64_t C = cache["size_bytes"].get<std::uint64_t>();

  // Fill granularity from a stride-4 fine trace above C (003 §4.3).
  std::map<std::uint64_t, double> dist;
  Evidence gev;
  for (auto* c : pd.all) {
    if (c->mode != "fine" || c->stride > 8 || c->bytes < std::max(C + 1, size_hi) ||
        (c->carveout != primary && c->carveout >= 0 && primary >= 0))
      continue;
    const Trace* t = d.trace(*c);
    if (!t) continue;
    long long last = -1;
    for (std::size_t k = 0; k < t->latency.size(); ++k) {
      if (t->latency[k] <= cl.boundary) continue;
      const long long idx = t->index[k];
      if (last >= 0 && idx > last) dist[(idx - last) * 4] += 1;
      last = idx;
    }
    gev.add(c->name());
  }
  std::uint64_t g = 0;
  double gw = 0, gt = 0;
  for (auto& [dd, w] : dist) {
    gt += w;
    if (w > gw) gw = w, g = dd;
  }
  if (g == 0) {
    set_null(cache, "sector_bytes", "no stride-4 fine trace with misses above the cache size", gev);
    set_null(cache, "line_bytes", "needs the fill granularity first", gev);
    ChaseWish w{path, "fine", 2 * C, 4, 4096, true, primary, cl.name + " fill granularity"};
    ctx.requests.add(w);
    for (auto k : {"sets", "ways", "replacement", "index_bits"}) set_null(cache, k, "needs the line size first");
    return;
  }
  const double gconf = gt > 0 ? gw / gt : 0;
  set_value(cache, "sector_bytes", g, 0.5 + 0.45 * gconf, gev,
            "most common distance between consecutive misses of a stride-4 fine trace (fill granularity)");
  if (!size_exact) {
    const std::string why =
        sizes[primary].soft
            ? "needs an exact size: the edge is soft, C in [" + std::to_string(C) + ", " + std::to_string(size_hi) +
                  ") (stage 1/2 probes run at N = C + j*g)"
            : "needs the exact size first: C in [" + std::to_string(C) + ", " + std::to_string(size_hi) +
                  ") (sizes in between requested; stage 1/2 probes run at N = C + j*g)";
    for (auto k : {"line_bytes", "sets", "ways", "index_bits", "replacement"}) set_null(cache, k, why);
    return;
  }

  // Line (000 §4.2): stage-2 probes at the fill granularity, N = C + j*g (j = 1..17, count mode,
  // 8 passes). A new set overflows at the steps whose miss count jumps by more than the one new
  // unit; with lines of r*g bytes filled in g-byte sectors (or g-byte lines whose set index starts
  // r*g up) they come every r steps. r = 1: the line is g. r > 1: one run at stride r*g, N = C + r*g
  // tells the two apart: a line of r*g bytes overflows a set there, g-byte lines (only one in r of
  // them touched) do not.
  std::uint64_t u = 0;
  std::string line_note;
  Evidence lev;
  {
    auto per_pass = [&](const Chase* c) {
      double total = 0;
      const double w = weight_above(samples_of(*d.trace(*c)), cl.boundary, &total);
      return total > 0 ? w * static_cast<double>(c->chain()) / total : 0.0;
    };
    auto find_run = [&](std::uint64_t stride, std::uint64_t bytes) -> const Chase* {
      for (auto* c : pd.all)
        if (c->stride == stride && c->bytes == bytes && c->warm && c->mode == "count" &&
            (c->carveout == primary || primary < 0) && d.trace(*c))
          return c;
      return nullptr;
    };
    auto want_count = [&](std::uint64_t stride, std::uint64_t bytes, const std::string& why) {
      ChaseWish w{path, "count", bytes, stride, 8 * ((bytes + stride - 1) / stride), true, primary, why};
      ctx.requests.add(w);
    };
    constexpr std::uint64_t kProbe = 17;
    std::vector<double> m;
    for (std::uint64_t j = 1; j <= kProbe; ++j) {
      const Chase* c = find_run(g, C + j * g);
      if (!c) break;
      m.push_back(per_pass(c));
      lev.add(c->name());
    }
    if (m.size() < kProbe) {
      for (std::uint64_t j = 1; j <= kProbe; ++j) want_count(g, C + j * g, cl.name + " line: stage-2 probe at g");
      line_note = "stage-2 probes at the fill granularity not measured yet (requested)";
    } else {
      std::vector<std::uint64_t> open;
      double prev = 0;
      for (std::uint64_t j = 1; j <= kProbe; ++j) {
        if (m[j - 1] - prev >= 1.5) open.push_back(j);
        prev = m[j - 1];
      }
      std::uint64_t r = 0;
      for (std::size_t k = 1; k < open.size(); ++k) r = std::gcd(r, open[k] - open[k - 1]);
      if (open.size() < 2) {
        line_note = "fewer than two set overflows in " + std::to_string(kProbe) + " probe steps: line above " +
                    std::to_string(kProbe / 2) + " x the fill granularity, not resolved";
      } else if (r == 1) {
        u = g;
        line_note = "every probe step at the fill granularity overflows a new set: the line is the fill granularity";
      } else {
        const Chase* c = find_run(r * g, C + r * g);
        if (!c) {
          want_count(r * g, C + r * g, cl.name + " line: sector or line");
          line_note = "set overflows every " + std::to_string(r) + " probe steps; the run at stride " +
                      std::to_string(r * g) + " that tells sectors from lines is requested";
        } else {
          lev.add(c->name());
          if (per_pass(c) >= 1.5) {
            u = r * g;
            line_note = "set overflows every " + std::to_string(r) + " steps of the fill granularity, and N = C + " +
                        std::to_string(r * g) + " at that stride overflows a set: lines of " + std::to_string(u) +
                        " bytes filled in " + std::to_string(g) + "-byte sectors";
          } else {
            u = g;
            line_note = "set overflows every " + std::to_string(r) + " steps of the fill granularity, but N = C + " +
                        std::to_string(r * g) + " at that stride does not overflow: " + std::to_string(g) +
                        "-byte lines whose set index starts above them";
          }
        }
      }
    }
  }
  if (u == 0) {
    for (auto k : {"line_bytes", "sets", "ways", "index_bits", "replacement"}) set_null(cache, k, line_note, lev);
    return;
  }

  // Stage 2 (000 §4.2 step 3): N = C + j*u, s = u.
  const std::uint64_t lines_c = C / u;
  const bool use_fine = lines_c + 256 <= 4000;
  std::map<std::uint64_t, const Chase*> step;  // j -> chase
  for (auto* c : pd.all)
    if (c->stride == u && c->warm && c->bytes > C && (c->bytes - C) % u == 0 &&
        c->mode == (use_fine ? "fine" : "count") && (c->carveout == primary || primary < 0))
      step[(c->bytes - C) / u] = c;
  std::vector<std::vector<std::uint64_t>> missing;
  std::vector<double> counts;
  Evidence sev;
  std::uint64_t have = 0;
  const Chase* first_step = nullptr;
  for (std::uint64_t j = 1;; ++j) {
    auto it = step.find(j);
    if (it == step.end()) break;
    const Trace* t = d.trace(*it->second);
    if (!t) break;
    if (j == 1) first_step = it->second;
    sev.add(it->second->name());
    if (use_fine) {
      std::vector<std::uint64_t> m;
      for (std::size_t k = 0; k < t->latency.size(); ++k)
        if (t->latency[k] > cl.boundary) m.push_back(static_cast<std::uint64_t>(t->index[k]) * 4 / u);
      missing.push_back(m);
    } else {
      double total = 0;
      const double w = weight_above(samples_of(*t), cl.boundary, &total);
      const double chain = static_cast<double>(it->second->chain());
      counts.push_back(total > 0 ? w * chain / total : 0);
    }
    have = j;
  }
  SetsResult sr = use_fine ? sets_from_membership(missing, lines_c) : sets_from_counts(counts, lines_c);
  const std::uint64_t max_j = std::min<std::uint64_t>(use_fine ? 256 : 4096, lines_c);
  if (!sr.complete) {
    std::uint64_t target = 16;
    while (target <= have) target *= 2;
    // Every step so far opened a set of the same ways: all sets are likely alike, so ask for enough
    // steps to open C / (ways * line) of them at once (the stage ends at the step that opens the last).
    bool alike = !sr.ways.empty() && sr.ways.size() == have;
    for (int w : sr.ways) alike = alike && w == sr.ways.front();
    if (alike && sr.ways.front() > 0) target = std::max<std::uint64_t>(target, lines_c / sr.ways.front());
    target = std::min(target, max_j);
    for (std::uint64_t j = have + 1; j <= target; ++j) {
      const std::uint64_t n = C + j * u;
      ChaseWish w{path, use_fine ? "fine" : "count", n, u,
                  use_fine ? 4096 : 2 * (n / u), true, primary,
                  cl.name + " stage 2 (sets)"};
      // The j = 1 run also decides the replacement: its trace must hold several passes.
      if (use_fine && j == 1 && 3 * (n / u + 1) > w.iters) w.iters = w.max_records = static_cast<std::uint32_t>(3 * (n / u + 1));
      ctx.requests.add(w);
    }
  }
  if (sr.complete) {
    std::uint64_t total_ways = 0;
    for (int w : sr.ways) total_ways += w;
    // Membership counts always add up once every line missed; sets whose ways differ by more than
    // 2x are the mark of members a non-LRU policy kept (real unequal sets, 000 Fig. 9, differ less).
    const auto [wmin, wmax] = std::minmax_element(sr.ways.begin(), sr.ways.end());
    const bool consistent = total_ways * u == C && !sr.ways.empty() && *wmin > 0 && *wmax <= 2 * *wmin;
    set_value(cache, "line_bytes", u, consistent ? 0.85 : 0.5, lev, line_note);
    if (!consistent) {
      // A non-LRU set that overflows keeps some of its lines in a pass, so short traces miss members
      // and the ways do not add up to C / line (docs/methodology.md, inference: ambiguity classes).
      const std::string why = "stage 2 found " + std::to_string(sr.ways.size()) + " sets whose ways x line (" +
                              std::to_string(total_ways * u) + " bytes) do not add up to the size: a non-LRU set "
                              "keeps some members in a pass, so the traces did not show every member (ambiguity "
                              "class non_lru_stage2)";
      for (auto k : {"sets", "ways", "index_bits"}) set_null(cache, k, why, sev);
      cache["ambiguity"] = nlohmann::json::array({"non_lru_stage2"});
    } else {
    set_value(cache, "sets", sr.ways.size(), 0.9, sev, "steps of N = C + j*u that opened a new set");
    set_value(cache, "ways", sr.ways, 0.9, sev, "per set in order of opening (may be unequal)");
    }
    if (!consistent) {
    } else if (use_fine) {
      IndexBits ib = index_bits_of(sr, u);
      if (ib.bits)
        set_value(cache, "index_bits", ib.hi < ib.lo ? nlohmann::json::array() : nlohmann::json::array({ib.lo, ib.hi}),
                  ib.ambiguous ? 0.6 : 0.9, sev,
                  std::string("address bits ") + hex_bits(ib) + " reproduce the sets" +
                      (ib.ambiguous ? "; higher bit ranges also fit the lines measured" : ""));
      else
        set_value(cache, "index_bits", "hashed", 0.8, sev, "no address bit range reproduces the observed sets");
    } else {
      // Count mode (too many lines for a fine trace): every step opened a set of its own, so the
      // candidate is the bit range right above the line. Test it: W+1 lines 2^(log2 line + log2 T)
      // bytes apart share one set under that range and all miss each pass; a hash spreads them.
      const std::uint64_t T = sr.ways.size();
      bool alike = (T & (T - 1)) == 0;
      for (int w : sr.ways) alike = alike && w == sr.ways.front();
      if (!alike || !consistent) {
        set_null(cache, "index_bits",
                 "set membership needs fine traces (too many lines for one) and the sets are not alike", sev);
      } else {
        const std::uint64_t W = static_cast<std::uint64_t>(sr.ways.front());
        const std::uint64_t stride = T * u, bytes = (W + 1) * stride;
        const Chase* c = nullptr;
        for (auto* x : pd.all)
          if (x->stride == stride && x->bytes == bytes && x->warm && x->mode == "count" &&
              (x->carveout == primary || primary < 0) && d.trace(*x))
            c = x;
        int lb = 0, nb = 0;
        while ((1ull << lb) < u) ++lb;
        while ((1ull << nb) < T) ++nb;
        if (!c) {
          ChaseWish w{path, "count", bytes, stride, 8 * (W + 1), true, primary, cl.name + " index bits"};
          if (ctx.requests.add(w))
            set_null(cache, "index_bits", "the run that tests index bits " + std::to_string(lb) + "-" +
                                              std::to_string(lb + nb - 1) + " is requested", sev);
          else
            set_null(cache, "index_bits", "the run that tests the index bits (" + std::to_string(bytes) +
                                              " bytes) exceeds the device's limit for path " + path, sev);
        } else {
          Evidence iev = sev;
          iev.add(c->name());
          double total = 0;
          const double w = weight_above(samples_of(*d.trace(*c)), cl.boundary, &total);
          const double frac = total > 0 ? w / total : 0;
          if (frac > 0.99)
            set_value(cache, "index_bits", nlohmann::json::array({lb, lb + nb - 1}), 0.85, iev,
                      std::to_string(W + 1) + " lines " + std::to_string(stride) +
                          " bytes apart all miss every pass: they share one set (address bits " + std::to_string(lb) +
                          "-" + std::to_string(lb + nb - 1) + ")");
          else
            set_value(cache, "index_bits", "hashed", 0.8, iev,
                      "consecutive lines open distinct sets, but " + std::to_string(W + 1) + " lines " +
                          std::to_string(stride) + " bytes apart do not share one set: no bit range above the line");
        }
      }
    }
  } else {
    const std::string why = have == 0 ? "stage-2 runs (N = C + j*u, s = u) not measured yet (requested)"
                                      : "stage 2 up to j=" + std::to_string(have) + " has not opened every set" +
                                            (have >= max_j ? "" : " (more steps requested)");
    for (auto k : {"line_bytes", "sets", "ways", "index_bits"}) set_null(cache, k, why, sev);
  }
  // Replacement (000 §4.2 step 4) from the j = 1 fine run.
  if (first_step && use_fine) {
    const Trace* t = d.trace(*first_step);
    std::vector<std::uint64_t> ln;
    std::vector<bool> ms;
    for (std::size_t k = 0; k < t->latency.size(); ++k) {
      ln.push_back(static_cast<std::uint64_t>(t->index[k]) * 4 / u);
      ms.push_back(t->latency[k] > cl.boundary);
    }
    Evidence pev;
    pev.add(first_step->name());
    PolicyResult pr = replacement_of(ln, ms, lines_c + 1);
    if (pr.policy.empty()) {
      set_null(cache, "replacement", pr.reason, pev);
    } else {
      set_value(cache, "replacement", pr.policy, pr.policy == "lru_or_fifo" ? 0.9 : 0.8, pev,
                pr.policy == "lru_or_fifo"
                    ? "periodic: every line of the overflowed set misses in every pass; a cyclic P-chase cannot "
                      "tell LRU from FIFO"
                    : "aperiodic misses; per-way probabilities from the victims' slots (000 Fig. 11), ways sorted by "
                      "probability (their numbering is not observable)");
      if (!pr.way_probabilities.empty()) {
        nlohmann::json p = nlohmann::json::array();
        for (double x : pr.way_probabilities) p.push_back(std::round(x * 1000) / 1000);
        set_value(cache, "replacement_probabilities", p, 0.8, pev,
                  "from " + std::to_string(static_cast<long long>(pr.replacements)) + " replacements");
        set_value(cache, "replacements_observed", pr.replacements, 0.9, pev,
                  "replacements reconstructed from the N = C + b trace (the sample behind the probabilities)");
      }
    }
  } else if (!use_fine) {
    // Count mode: an overflowed set whose W+1 lines all miss in every pass (the miss count jumped by
    // exactly W+1 at each opening and the ways add up to the size) is LRU or FIFO; a random policy
    // keeps some of them.
    bool exact = sr.complete && !sr.ways.empty();
    std::uint64_t tw = 0;
    for (int w : sr.ways) tw += static_cast<std::uint64_t>(w);
    exact = exact && tw * u == C;
    if (exact)
      set_value(cache, "replacement", "lru_or_fifo", 0.8, sev,
                "count-mode stage 2: every line of each overflowed set misses in every pass; a cyclic P-chase "
                "cannot tell LRU from FIFO");
    else
      set_null(cache, "replacement",
               "too many lines for a fine trace holding several passes, and the miss counts are not those of "
               "LRU/FIFO sets");
  } else {
    set_null(cache, "replacement", "the N = C + b fine run is not measured yet (requested)");
  }
}

}  // namespace

namespace {

// Latency levels of one load path (all its non-classic chases).
PathData path_data(const Dataset& data, const std::string& path, double* resolution) {
  PathData pd;
  double res = 1;
  std::vector<WeightedValue> all;
  for (const auto& c : data.chases())
    if (c.family == "pchase" && c.path == path) {
      pd.all.push_back(&c);
      if (c.mode == "classic") continue;
      const Trace* t = data.trace(c);
      if (!t) continue;
      auto s = samples_of(*t);
      all.insert(all.end(), s.begin(), s.end());
      res = std::max(res, resolution_of(*t));
    }
  if (!all.empty()) {
    pd.levels = cluster_levels(all, res);
    // The baseline: every warm non-classic run at the path's smallest footprint.
    std::uint64_t smallest = 0;
    for (auto* c : pd.all)
      if (c->mode != "classic" && c->warm && data.trace(*c) && (!smallest || c->bytes < smallest)) smallest = c->bytes;
    std::vector<WeightedValue> base;
    for (auto* c : pd.all)
      if (c->mode != "classic" && c->warm && c->bytes == smallest && data.trace(*c)) {
        auto s = samples_of(*data.trace(*c));
        base.insert(base.end(), s.begin(), s.end());
      }
    merge_baseline_levels(pd.levels, base);
    refine_level_means(pd.levels, data, pd.all);
  }
  if (resolution) *resolution = res;
  return pd;
}

// The mean latency beyond a path's first level: the largest warm count run, when (almost) all of
// its accesses lie beyond the level (its `latency_cycles`, exact), else nullopt.
struct BeyondRun {
  const Chase* run = nullptr;
  double mean = 0;
};
std::optional<BeyondRun> beyond_first_level(const Dataset& data, const PathData& pd) {
  const auto& L = pd.levels;
  if (L.size() < 2) return std::nullopt;
  const Chase* big = nullptr;
  for (auto* c : pd.all)
    if (c->mode == "count" && c->warm && data.trace(*c) && (!big || c->bytes > big->bytes)) big = c;
  if (!big || !big->entry || !big->entry->has("latency_cycles")) return std::nullopt;
  double total = 0;
  const double w = weight_above(samples_of(*data.trace(*big)), level_boundary(L, 0), &total);
  if (total <= 0 || w < 0.99 * total) return std::nullopt;
  return BeyondRun{big, big->entry->counter("latency_cycles")};
}

}  // namespace

std::optional<double> l2_hit_latency(const Dataset& data) {
  PathData pd = path_data(data, "global_cg", nullptr);
  if (pd.levels.empty()) return std::nullopt;
  return pd.levels[0].mean;
}

void infer_path_caches(InferContext& ctx, const std::string& path, const std::vector<std::string>& names,
                       bool last_level_is_miss, nlohmann::json& caches) {
  double res = 1;
  PathData pd = path_data(ctx.data, path, &res);
  auto null_all = [&](const std::string& name, const std::string& why) {
    nlohmann::json& c = caches[name];
    for (auto k : {"size_bytes", "line_bytes", "sector_bytes", "sets", "ways", "replacement", "index_bits",
                   "hit_latency_cycles", "miss_penalty_cycles"})
      set_null(c, k, why);
  };
  if (pd.all.empty() || pd.levels.empty()) {
    for (auto& n : names) {
      null_all(n, "path " + path + " not measured");
      set_null(caches[n], "present", "path " + path + " not measured");
    }
    return;
  }
  const auto& L = pd.levels;
  nlohmann::json lv = nlohmann::json::array();
  for (auto& l : L)
    lv.push_back({{"mean_cycles", std::round(l.mean * 10) / 10}, {"min", l.lo}, {"max", l.hi}, {"accesses", l.weight}});
  // The L2 hit latency: a level of an L1-side path that already takes it is the L2, not a cache of
  // the path's own (Kepler and Maxwell cache global loads in L2 only).
  const std::optional<double> l2 = last_level_is_miss ? std::nullopt : l2_hit_latency(ctx.data);
  Evidence path_ev;
  for (auto* c : pd.all)
    if (c->mode == "count" && path_ev.names.size() < 4) path_ev.add(c->name());
  for (std::size_t i = 0; i < names.size(); ++i) {
    nlohmann::json& cache = caches[names[i]];
    cache["latency_levels_" + path] = lv;
    CacheLevel cl;
    cl.name = names[i];
    // The level that counts as a hit of this cache. The L2-only path: its fastest level (an L1 miss
    // served by the L2); every slower level is beyond the L2 hit: DRAM, and on the H100 a far-L2
    // level (~450 cycles) between the near-L2 capacity and DRAM.
    const std::size_t j = last_level_is_miss ? 0 : i;
    if (!last_level_is_miss) {
      const double l2v = l2.value_or(-1e9);
      if (j < L.size() && l2 && std::fabs(L[j].mean - l2v) <= std::max(2 * res, 0.03 * l2v)) {
        const std::string why = "path " + path + ": its latency level " + std::to_string(j) + " (" +
                                std::to_string(static_cast<long long>(std::lround(L[j].mean))) +
                                " cycles) is the L2 hit latency (" +
                                std::to_string(static_cast<long long>(std::lround(l2v))) +
                                " cycles on global_cg): no cache of its own at this level";
        null_all(names[i], why);
        set_value(cache, "present", false, 0.9, path_ev, why);
        continue;
      }
    }
    if (j >= L.size()) {
      null_all(names[i], "path " + path + " shows no latency level for this cache");
      set_null(cache, "present", "path " + path + " shows no latency level for this cache");
      continue;
    }
    if (j + 1 >= L.size()) {
      // The path's slowest level: a hit latency, and a lower bound on the size (no misses up to the
      // largest footprint measured, which the path's chase limit may cap: the 64 KiB constant bank).
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
                                (capped ? " (" + lim_key + " = " + lim->second + ": no larger footprint can be chased)"
                                        : " (larger footprints not measured)");
      null_all(names[i], "no misses of this cache seen on path " + path + ": " + bound);
      set_value(cache, "hit_latency_cycles", std::round(L[j].mean * 10) / 10, 0.85, path_ev,
                "mean of latency level " + std::to_string(j) + " of path " + path + " (its slowest)");
      set_value(cache, "present", true, j == 0 ? 0.6 : 0.85, path_ev,
                j == 0 ? "the path's only latency level" : "latency level " + std::to_string(j) + " of path " + path);
      set_null(cache, "size_bytes", bound, lev);
      set_value(cache, "size_bytes_lower_bound", largest, 0.9, lev, bound);
      continue;
    }
    set_value(cache, "present", true, 0.9, path_ev,
              last_level_is_miss ? "the L2-only path" : "a latency level of path " + path + " below the L2 hit latency");
    cl.hit_mean = L[j].mean;
    cl.boundary = level_boundary(L, j);
    cl.miss_mean = L[j + 1].mean;
    cl.miss_note = "next level's mean latency minus the hit latency";
    if (last_level_is_miss) {
      if (auto b = beyond_first_level(ctx.data, pd)) {
        cl.miss_mean = b->mean;
        cl.miss_note = "mean latency of the largest warm footprint (" + std::to_string(b->run->bytes) +
                       " bytes, every access beyond the L2 hit level: DRAM) minus the hit latency";
        cl.miss_evidence.add(b->run->name());
      }
      if (L.size() > 2) {
        nlohmann::json mid = nlohmann::json::array();
        for (std::size_t k = 1; k + 1 < L.size(); ++k) mid.push_back(std::round(L[k].mean * 10) / 10);
        cache["levels_between_hit_and_dram_cycles"] = mid;
      }
    }
    cl.clamp_lo = L[j].mean;
    cl.clamp_hi = L[j + 1].mean;
    infer_one(ctx, path, pd, cl, cache);
  }
}

}  // namespace memhier::analysis
