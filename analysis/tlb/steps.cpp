#include "analysis/tlb/steps.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/cache/infer_caches.hpp"

namespace memhier::analysis {

namespace {

// Standard error of a run's mean: its batch-means interval, else the spread of its samples.
double standard_error(const BenchEntry& e, const std::vector<WeightedValue>& s) {
  if (e.has("latency_ci95_cycles")) return e.counter("latency_ci95_cycles") / 1.96;
  double n = 0, m = 0, q = 0;
  for (const auto& x : s) {
    n += x.weight;
    m += x.weight * x.value;
    q += x.weight * x.value * x.value;
  }
  if (n < 2) return 0;
  m /= n;
  return std::sqrt(std::max(0.0, q / n - m * m) / n);
}

// Runs of one footprint (repetitions, longer stage-2 runs): inverse-variance weighted; each run
// is kept as well (stage 2 checks that they agree on the misses of a step).
void pool_into(TlbFootprint& p, const TlbFootprint& x) {
  const double wp = 1 / std::max(p.se * p.se, 1e-12), wx = 1 / std::max(x.se * x.se, 1e-12);
  p.mean = (p.mean * wp + x.mean * wx) / (wp + wx);
  p.se = std::sqrt(1 / (wp + wx));
  p.accesses += x.accesses;
  p.runs.insert(p.runs.end(), x.runs.begin(), x.runs.end());
  p.samples.insert(p.samples.end(), x.samples.begin(), x.samples.end());
  p.evidence.insert(p.evidence.end(), x.evidence.begin(), x.evidence.end());
}

}  // namespace

std::vector<TlbSeries> tlb_series(const Dataset& data) {
  std::map<std::pair<std::string, std::uint64_t>, std::map<std::uint64_t, TlbFootprint>> by;
  for (const auto& c : data.chases()) {
    if (c.family != "tlb" || !c.entry) continue;
    TlbFootprint p;
    p.bytes = c.bytes;
    p.slots = c.bytes / c.stride;
    p.mean = c.entry->counter("latency_cycles", 0);
    p.accesses = c.entry->counter("accesses", 0);
    if (const Trace* t = data.trace(c)) p.samples = samples_of(*t);
    p.se = standard_error(*c.entry, p.samples);
    p.runs.emplace_back(p.mean, p.se);
    p.evidence.push_back(c.name());
    auto& slot = by[{c.entry->params.get_or("alloc", "malloc"), c.stride}];
    auto it = slot.find(c.bytes);
    if (it == slot.end()) slot.emplace(c.bytes, std::move(p));
    else pool_into(it->second, p);
  }
  std::vector<TlbSeries> out;
  for (auto& [key, pts] : by) {
    TlbSeries s;
    s.alloc = key.first;
    s.stride = key.second;
    for (auto& [b, p] : pts) s.points.push_back(std::move(p));
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace memhier::analysis

namespace memhier::analysis {

namespace {

constexpr double kFloorSd = 0.01;  // cycles: a noise-free (simulated) mean still has a finite weight
constexpr double kStepAlpha = 0.01;  // family-wise: split tests over all footprints (Bonferroni)

double normal_quantile_upper(double p) {  // z with P(Z > z) = p
  double lo = 0, hi = 40;
  for (int i = 0; i < 100; ++i) {
    const double mid = (lo + hi) / 2;
    (0.5 * std::erfc(mid / std::sqrt(2.0)) > p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

struct Seg {
  std::size_t a = 0, b = 0;  // points [a, b)
  double m = 0, V = 0;       // weighted mean and its variance
};

Seg segment(const std::vector<double>& x, const std::vector<double>& v, std::size_t a, std::size_t b) {
  Seg s{a, b, 0, 0};
  double w = 0;
  for (std::size_t i = a; i < b; ++i) {
    w += 1 / v[i];
    s.m += x[i] / v[i];
  }
  s.m /= w;
  s.V = 1 / w;
  return s;
}

double z_of(const Seg& l, const Seg& r) { return (r.m - l.m) / std::sqrt(l.V + r.V); }

// Binary segmentation: split [a, b) where the two sides differ most, while that is significant.
void split(const std::vector<double>& x, const std::vector<double>& v, std::size_t a, std::size_t b, double zc,
           std::vector<std::size_t>& cuts) {
  if (b - a < 2) return;
  std::size_t best = 0;
  double bz = 0;
  for (std::size_t t = a + 1; t < b; ++t) {
    const double z = std::fabs(z_of(segment(x, v, a, t), segment(x, v, t, b)));
    if (z > bz) bz = z, best = t;
  }
  if (bz < zc) return;
  cuts.push_back(best);
  split(x, v, a, best, zc, cuts);
  split(x, v, best, b, zc, cuts);
}

// Plateaus of one curve: segmentation, then neighbours that no longer differ are merged.
std::vector<Seg> plateaus(const std::vector<double>& x, const std::vector<double>& v, double zc) {
  std::vector<std::size_t> cuts{0, x.size()};
  split(x, v, 0, x.size(), zc, cuts);
  std::sort(cuts.begin(), cuts.end());
  std::vector<Seg> segs;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) segs.push_back(segment(x, v, cuts[k], cuts[k + 1]));
  for (bool merged = true; merged && segs.size() > 1;) {
    merged = false;
    std::size_t wk = 0;
    double wz = 1e300;
    for (std::size_t k = 0; k + 1 < segs.size(); ++k)
      if (std::fabs(z_of(segs[k], segs[k + 1])) < wz) wz = std::fabs(z_of(segs[k], segs[k + 1])), wk = k;
    if (wz < zc) {
      segs[wk] = segment(x, v, segs[wk].a, segs[wk + 1].b);
      segs.erase(segs.begin() + static_cast<std::ptrdiff_t>(wk) + 1);
      merged = true;
    }
  }
  return segs;
}

// Rises between plateaus; a one-footprint plateau between two rises is part of one ramp.
std::vector<TlbRise> rises_of(const TlbSeries& s, const std::vector<Seg>& segs, std::vector<std::string>& notes) {
  std::vector<TlbRise> out;
  for (std::size_t k = 0; k + 1 < segs.size();) {
    if (segs[k + 1].m <= segs[k].m) {
      notes.push_back(s.alloc + " stride " + std::to_string(s.stride) + ": latency falls by " +
                      std::to_string(segs[k].m - segs[k + 1].m) + " cycles after " +
                      std::to_string(s.points[segs[k].b - 1].bytes) + " bytes (not a TLB effect)");
      ++k;
      continue;
    }
    std::size_t top = k + 1;
    while (top + 1 < segs.size() && segs[top].b - segs[top].a == 1 && segs[top + 1].m > segs[top].m) ++top;
    TlbRise r;
    r.alloc = s.alloc;
    r.stride = s.stride;
    r.i_lo = segs[k].b - 1;
    r.i_hi = segs[k + 1].a;
    r.lo = s.points[r.i_lo].bytes;
    r.hi = s.points[r.i_hi].bytes;
    r.before = segs[k].m;
    r.before_se = std::sqrt(segs[k].V);
    r.after = segs[top].m;
    r.height = r.after - r.before;
    r.ci95 = 1.96 * std::sqrt(segs[k].V + segs[top].V);
    r.z = z_of(segs[k], segs[top]);
    for (std::size_t i = r.i_lo; i <= r.i_hi; ++i)
      r.evidence.insert(r.evidence.end(), s.points[i].evidence.begin(), s.points[i].evidence.end());
    out.push_back(std::move(r));
    k = top;
  }
  return out;
}

// Rises of one curve within 1.5 times the first one's reach are one level overflowing set by
// set (a partial ramp with short plateaus): one rise from the first onset to the last top.
std::vector<TlbRise> merge_ramps(std::vector<TlbRise> rs) {
  std::vector<TlbRise> out;
  for (auto& r : rs) {
    if (!out.empty() && 2 * r.lo < 3 * out.back().lo) {
      TlbRise& m = out.back();
      m.after = r.after;
      m.height = m.after - m.before;
      m.ci95 = std::sqrt(m.ci95 * m.ci95 + r.ci95 * r.ci95);
      m.z = std::max(m.z, r.z);
      m.evidence.insert(m.evidence.end(), r.evidence.begin(), r.evidence.end());
      continue;
    }
    out.push_back(std::move(r));
  }
  return out;
}

// A curve's means and their variances (own interval, scatter between footprints, placement of
// the data behind its slots, floor).
void curve_of(const TlbSeries& s, const TlbSteps& st, std::vector<double>* x, std::vector<double>* v) {
  for (const auto& p : s.points) {
    x->push_back(p.mean);
    const double n = static_cast<double>(std::max<std::uint64_t>(p.slots, 1));
    v->push_back(p.se * p.se + st.tau * st.tau + st.placement * st.placement / n + kFloorSd * kFloorSd);
  }
}

// The placement scatter of one slot, from neighbouring footprints of few slots (a < b <= 8: every
// line of each slot's span is read, so a footprint's mean is the mean of its slots'): their
// difference has the variance se_a^2 + se_b^2 + sigma^2 (1/a + 1/b) where no level rises. The
// upper quartile (z^2 of a normal z: 1.32 var there), not the median: placement often repeats
// from one footprint to the next (the same slots lean the same way), and a scatter that shows in
// a quarter of the pairs must still not pass for a step; rises are rare among so few slots.
double placement_sigma(const std::vector<TlbSeries>& series) {
  constexpr std::uint64_t kFewSlots = 8;
  std::vector<double> r;
  for (const auto& s : series)
    for (std::size_t i = 1; i < s.points.size(); ++i) {
      const TlbFootprint &a = s.points[i - 1], &b = s.points[i];
      if (a.slots < 2 || b.slots > kFewSlots) continue;
      const double d = b.mean - a.mean, w = 1.0 / static_cast<double>(a.slots) + 1.0 / static_cast<double>(b.slots);
      r.push_back((d * d - a.se * a.se - b.se * b.se) / w);
    }
  if (r.size() < 8) return 0;
  std::sort(r.begin(), r.end());
  return std::sqrt(std::max(0.0, r[r.size() * 3 / 4] / 1.32));
}

// The scatter between footprints beyond each mean's interval, from the residuals about the plateaus
// of a first segmentation (plateaus of at least 3 footprints): median(r^2) = 0.455 var for normal r.
double residual_tau(const std::vector<TlbSeries>& series, const TlbSteps& st, double med_se2) {
  std::vector<double> r2, p2;
  for (const auto& s : series)
    for (const auto& p : s.points) p2.push_back(st.placement * st.placement / static_cast<double>(std::max<std::uint64_t>(p.slots, 1)));
  const double med_placement2 = p2.empty() ? 0 : median(p2);
  for (const auto& s : series) {
    std::vector<double> x, v;
    curve_of(s, st, &x, &v);
    if (x.size() < 3) continue;
    for (const auto& g : plateaus(x, v, st.z_crit))
      if (g.b - g.a >= 3)
        for (std::size_t i = g.a; i < g.b; ++i) r2.push_back((x[i] - g.m) * (x[i] - g.m));
  }
  if (r2.size() < 8) return st.tau;
  return std::sqrt(std::max(0.0, median(r2) / 0.455 - med_se2 - med_placement2));
}

}  // namespace

TlbSteps find_tlb_steps(const std::vector<TlbSeries>& series) {
  TlbSteps st;
  std::vector<double> diffs, se2;
  std::size_t points = 0;
  for (const auto& s : series) {
    points += s.points.size();
    for (std::size_t i = 0; i < s.points.size(); ++i) {
      se2.push_back(s.points[i].se * s.points[i].se);
      if (i) diffs.push_back(std::fabs(s.points[i].mean - s.points[i - 1].mean));
    }
  }
  if (points == 0) return st;
  const double sd_diff = diffs.empty() ? 0 : 1.4826 * median(diffs);
  const double med_se2 = median(se2);
  st.tau = std::sqrt(std::max(0.0, sd_diff * sd_diff / 2 - med_se2));  // first guess: steps are rare
  st.z_crit = normal_quantile_upper(kStepAlpha / (2.0 * static_cast<double>(std::max<std::size_t>(points, 1))));
  st.placement = placement_sigma(series);
  st.tau = residual_tau(series, st, med_se2);
  st.resolution = st.z_crit * std::sqrt(2 * (med_se2 + st.tau * st.tau + kFloorSd * kFloorSd));
  for (const auto& s : series) {
    std::vector<double> x, v;
    curve_of(s, st, &x, &v);
    if (x.size() < 2) continue;
    st.extent[{s.alloc, s.stride}] = {s.points.front().bytes, s.points.back().bytes};
    st.rises[{s.alloc, s.stride}] = merge_ramps(rises_of(s, plateaus(x, v, st.z_crit), st.notes));
  }
  return st;
}

}  // namespace memhier::analysis
