#include "analysis/cache/latency_levels.hpp"

#include <algorithm>
#include <map>

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
  // Count runs whose histogram spans several levels add their accesses at the bin centres, moved
  // by the level's offset of exact means from bin centres over the runs wholly inside it (0 when
  // none): taking only those runs made the mean rest on whichever runs happened to be pure (H100
  // read-only path, L2 level: 270.7 vs 289.8 cycles in two runs of 21:00Z with the same
  // histograms, a false alarm of the gate).
  constexpr double kFineShare = 0.005;
  std::vector<double> fsum(L.size(), 0), fw(L.size(), 0), csum(L.size(), 0), cw(L.size(), 0);
  std::vector<double> centres(L.size(), 0), psum(L.size(), 0), pw(L.size(), 0);
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
    if (level_of(L, s.back().value) != k) {
      for (auto& x : s) {
        const std::size_t q = level_of(L, x.value);
        psum[q] += x.value * x.weight;
        pw[q] += x.weight;
      }
      continue;
    }
    double n = 0;
    for (auto& x : s) n += x.weight, centres[k] += x.value * x.weight;
    csum[k] += c->entry->counter("latency_cycles") * n;
    cw[k] += n;
  }
  for (std::size_t k = 0; k < L.size(); ++k) {
    const double offset = cw[k] > 0 ? (csum[k] - centres[k]) / cw[k] : 0;
    if (fw[k] > 0 && fw[k] >= kFineShare * L[k].weight) L[k].mean = fsum[k] / fw[k];
    else if (cw[k] + pw[k] > 0) L[k].mean = (csum[k] + psum[k] + offset * pw[k]) / (cw[k] + pw[k]);
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

namespace {

struct PathLevels {
  PathData pd;
  double resolution = 1;
};

// Latency levels of one load path (all its non-classic chases), computed.
PathLevels compute_path_data(const Dataset& data, const std::string& path) {
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
  return {pd, res};
}

}  // namespace

// Latency levels of one load path: computed once per dataset (Dataset::memo).
PathData path_data(const Dataset& data, const std::string& path, double* resolution) {
  const PathLevels& p = data.memo<PathLevels>("path_data:" + path, [&] { return compute_path_data(data, path); });
  if (resolution) *resolution = p.resolution;
  return p.pd;
}

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

std::optional<double> l2_hit_latency(const Dataset& data) {
  PathData pd = path_data(data, "global_cg", nullptr);
  if (pd.levels.empty()) return std::nullopt;
  return pd.levels[0].mean;
}

}  // namespace memhier::analysis
