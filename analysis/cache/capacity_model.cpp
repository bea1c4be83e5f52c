#include "analysis/cache/capacity_model.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

#include "common/policy.hpp"

namespace memhier::analysis {

namespace {
constexpr unsigned kRandomRuns = 32;  // seeded runs averaged for a random policy
constexpr std::uint64_t kMaxTrials = 2000;  // capacities tried per model
}

namespace {

// Uniform random replacement, n lines cycled through W ways, far more lines than ways: each miss
// evicts one of the W lines at random, so a line survives the m (n - 1) misses between two of its
// accesses with probability (1 - 1/W)^(m (n - 1)); the miss fraction m solves 1 - m = that.
double random_fixed_point(std::uint64_t n, std::uint32_t W) {
  double m = 1;
  for (int it = 0; it < 200; ++it) m = 1 - std::pow(1 - 1.0 / W, m * static_cast<double>(n - 1));
  return m;
}

}  // namespace

double CurveModel::set_miss(std::uint64_t n) {
  if (n <= set_.ways) return 0;
  // Closed forms: LRU and FIFO miss on every access of a cycle longer than the ways.
  if (set_.policy == "lru" || set_.policy == "fifo") return 1;
  auto it = cache_.find(n);
  if (it != cache_.end()) return it->second;
  if (set_.policy == "random" && set_.weights.empty() && n > 4 * static_cast<std::uint64_t>(set_.ways))
    return cache_[n] = random_fixed_point(n, set_.ways);
  // A warm pass over the set's n lines, then the timed accesses (the first timed_passes x n of the
  // following passes, at least one).
  const std::uint64_t timed = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(shape_.timed_passes * n)));
  std::vector<std::int64_t> seq;
  seq.reserve(n + timed);
  for (std::uint64_t k = 0; k < n + timed; ++k) seq.push_back(static_cast<std::int64_t>(k % n));
  double misses = 0;
  if (policy::policy_is_deterministic(set_.policy)) {
    const auto hit = policy::simulate_set(set_.policy, set_.ways, seq);
    for (std::uint64_t k = n; k < seq.size(); ++k) misses += hit[k] ? 0 : 1;
  } else {
    const auto p = policy::hit_probability(set_.policy, set_.ways, seq, kRandomRuns, 1, set_.weights);
    for (std::uint64_t k = n; k < seq.size(); ++k) misses += 1 - p[k];
  }
  const double f = misses / static_cast<double>(timed);
  cache_[n] = f;
  return f;
}

double CurveModel::miss_rate(std::uint64_t capacity, std::uint64_t footprint) {
  const std::uint64_t b = shape_.line, s = std::max<std::uint64_t>(shape_.stride, 4);
  const std::uint64_t per_set = static_cast<std::uint64_t>(set_.ways) * b;
  if (per_set == 0 || capacity < per_set) return 1;
  const std::uint64_t T = capacity / per_set;
  // Lines touched: every line when s <= b, one per access otherwise.
  const std::uint64_t L = s <= b ? (footprint + b - 1) / b : (footprint + s - 1) / s;
  if (L == 0) return 0;
  const std::uint64_t q = L / T, r = L % T;
  const double line_miss = (static_cast<double>((T - r) * q) * set_miss(q) + static_cast<double>(r * (q + 1)) * set_miss(q + 1)) /
                           static_cast<double>(L);
  // Every fill unit touched misses when its line is absent: misses per access = s / max(s, fill).
  return line_miss * std::min(1.0, static_cast<double>(s) / static_cast<double>(std::max<std::uint64_t>(shape_.fill, 1)));
}

namespace {

std::string num(double x) {
  std::ostringstream o;
  o << std::setprecision(3) << x;
  return o.str();
}

double sse_of(CurveModel& m, std::uint64_t C, const std::vector<std::uint64_t>& sizes, const std::vector<double>& miss) {
  double e = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) e += std::pow(m.miss_rate(C, sizes[i]) - miss[i], 2);
  return e;
}

}  // namespace

CapacityFit fit_capacity(const std::vector<std::uint64_t>& sizes, const std::vector<double>& miss,
                         const std::vector<double>& n, const SweepShape& shape, const std::vector<SetModel>& models,
                         std::uint64_t lo, std::uint64_t hi) {
  CapacityFit fit;
  double var = 0;  // expected sum of squares from sampling alone (binomial)
  for (std::size_t i = 0; i < sizes.size(); ++i) var += miss[i] * (1 - miss[i]) / std::max(1.0, n[i]);
  struct Trial {
    double sse;
    std::uint64_t C;
    std::size_t model;
  };
  std::vector<Trial> trials;
  for (std::size_t k = 0; k < models.size(); ++k) {
    CurveModel m(models[k], shape);
    const std::uint64_t unit = static_cast<std::uint64_t>(models[k].ways) * shape.line;
    if (unit == 0) continue;
    // At most kMaxTrials capacities per model: a coarser grid of whole sets on large ranges.
    const std::uint64_t t0 = std::max<std::uint64_t>(1, lo / unit), t1 = hi / unit;
    const std::uint64_t dt = std::max<std::uint64_t>(1, (t1 >= t0 ? t1 - t0 : 0) / kMaxTrials + 1);
    for (std::uint64_t t = t0; t <= t1; t += dt) trials.push_back({sse_of(m, t * unit, sizes, miss), t * unit, k});
  }
  if (trials.empty() || sizes.empty()) {
    fit.note = "no model capacity in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    return fit;
  }
  auto better = [](auto& a, auto& b) { return a.sse < b.sse || (a.sse == b.sse && a.C < b.C); };
  Trial best = *std::min_element(trials.begin(), trials.end(), better);
  // A coarse grid: every whole set around the best of it, for every model.
  for (std::size_t k = 0; k < models.size(); ++k) {
    CurveModel m(models[k], shape);
    const std::uint64_t unit = static_cast<std::uint64_t>(models[k].ways) * shape.line;
    const std::uint64_t t0 = std::max<std::uint64_t>(1, lo / unit), t1 = hi / unit;
    const std::uint64_t dt = std::max<std::uint64_t>(1, (t1 >= t0 ? t1 - t0 : 0) / kMaxTrials + 1);
    if (dt == 1) continue;
    const std::uint64_t c = best.C / unit;
    for (std::uint64_t t = c > 2 * dt ? c - 2 * dt : 1; t <= c + 2 * dt; ++t)
      trials.push_back({sse_of(m, t * unit, sizes, miss), t * unit, k});
  }
  best = *std::min_element(trials.begin(), trials.end(), better);
  const double cut = 1.5 * best.sse + var;
  fit.lo = fit.hi = best.C;
  for (const auto& t : trials)
    if (t.sse <= cut) fit.lo = std::min(fit.lo, t.C), fit.hi = std::max(fit.hi, t.C);
  const double m = static_cast<double>(sizes.size());
  fit.bytes = best.C;
  fit.set = models[best.model];
  fit.rms = std::sqrt(best.sse / m);
  fit.noise_rms = std::sqrt(var / m);
  fit.found = fit.rms <= kFitTolerance * fit.noise_rms + kFitSlack;
  fit.note = "fit of the whole miss-rate curve (" + std::to_string(sizes.size()) + " footprints) with " +
             fit.set.policy + ", " + std::to_string(fit.set.ways) + " ways of " + std::to_string(shape.line) +
             "-byte lines and an index that spreads consecutive lines evenly: best " + std::to_string(best.C) +
             " bytes, rms residual " + num(fit.rms) + " (sampling alone " + num(fit.noise_rms) + "); capacities in [" +
             std::to_string(fit.lo) + ", " + std::to_string(fit.hi) + "] fit as well";
  if (!fit.found) fit.note += "; residual too large: the model does not describe the curve";
  return fit;
}

}  // namespace memhier::analysis
