#include "analysis/core/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace memhier::analysis {

KsResult ks_two_sample(const std::vector<double>& a, const std::vector<double>& b, double alpha) {
  KsResult r;
  if (a.empty() || b.empty()) return r;
  std::vector<double> x = a, y = b;
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  const double n = static_cast<double>(x.size()), m = static_cast<double>(y.size());
  std::size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const double v = std::min(x[i], y[j]);
    while (i < x.size() && x[i] <= v) ++i;
    while (j < y.size() && y[j] <= v) ++j;
    r.d = std::max(r.d, std::fabs(i / n - j / m));
  }
  r.critical = std::sqrt(-std::log(alpha / 2) / 2 * (n + m) / (n * m));
  r.reject = r.d > r.critical;
  return r;
}

std::size_t opt_single_change_point(const std::vector<double>& y) {
  const std::size_t n = y.size();
  if (n < 2) return 0;
  std::vector<double> s(n + 1, 0), q(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    s[i + 1] = s[i] + y[i];
    q[i + 1] = q[i] + y[i] * y[i];
  }
  auto cost = [&](std::size_t u, std::size_t v) {  // [u, v)
    const double len = static_cast<double>(v - u), sum = s[v] - s[u];
    return (q[v] - q[u]) - sum * sum / len;
  };
  std::size_t best = 1;
  double best_c = cost(0, 1) + cost(1, n);
  for (std::size_t t = 2; t < n; ++t) {
    const double c = cost(0, t) + cost(t, n);
    if (c < best_c - 1e-12 * (1 + std::fabs(best_c))) {
      best_c = c;
      best = t;
    }
  }
  return best;
}

GeometricSeries geometric_map(const std::vector<std::vector<double>>& x) {
  GeometricSeries g;
  for (const auto& v : x) {
    double norm2 = 0, dot = 0;
    for (double e : v) {
      norm2 += e * e;
      dot += e;
    }
    const double norm = std::sqrt(norm2);
    g.distance.push_back(norm);
    const double c = norm > 0 && !v.empty() ? dot / (norm * std::sqrt(static_cast<double>(v.size()))) : 1;
    g.angle.push_back(std::acos(std::clamp(c, -1.0, 1.0)));
  }
  return g;
}

ChangePoint detect_change_point_1d(const std::vector<double>& y, double alpha) {
  ChangePoint cp;
  if (y.size() < 2) return cp;
  cp.index = opt_single_change_point(y);
  std::vector<double> a(y.begin(), y.begin() + cp.index), b(y.begin() + cp.index, y.end());
  cp.ks = ks_two_sample(a, b, alpha);
  cp.found = cp.ks.reject;
  return cp;
}

ChangePoint detect_change_point(const std::vector<std::vector<double>>& x, double alpha) {
  const GeometricSeries g = geometric_map(x);
  ChangePoint d = detect_change_point_1d(g.distance, alpha);
  if (d.found) return d;
  ChangePoint a = detect_change_point_1d(g.angle, alpha);
  a.series = "angle";
  return a.found ? a : d;
}

namespace {

// The classes of cluster_levels over values sorted by value, each [lo, hi) of indices.
class LevelSplitter {
 public:
  LevelSplitter(const std::vector<WeightedValue>& values, double resolution)
      : v_(values), resolution_(resolution), res_var_(resolution * resolution / 12.0), cum_(values.size() + 1, 0) {
    for (std::size_t i = 0; i < v_.size(); ++i) cum_[i + 1] = cum_[i] + v_[i].weight;
  }

  Level stats(std::size_t lo, std::size_t hi) const {  // [lo, hi)
    Level l;
    l.lo = v_[lo].value;
    l.hi = v_[hi - 1].value;
    double s = 0;
    for (std::size_t i = lo; i < hi; ++i) {
      l.weight += v_[i].weight;
      s += v_[i].weight * v_[i].value;
    }
    l.mean = s / l.weight;
    return l;
  }

  // Separated: an (almost) empty gap of more than two resolution steps between the classes,
  // measured between trimmed quantiles (kLevelTrim of either class may lie in it: the odd slow
  // access of a run does not bridge two levels); and either medians >= 4 pooled robust standard
  // deviations apart (Fisher), or a gap >= 3x the classes' own sampling distance (a level whose
  // slower neighbour is a broad mix of DRAM pages and partitions, whose spread swamps Fisher's
  // distance, is still a level when nothing lies between them).
  bool separated(std::size_t lo, std::size_t cut, std::size_t hi) const {
    const double gap = quantile(cut, hi, kLevelTrim) - quantile(lo, cut, 1 - kLevelTrim);
    if (!(gap > 2 * resolution_)) return false;
    const double d = quantile(cut, hi, 0.5) - quantile(lo, cut, 0.5);
    if (d >= 4 * std::sqrt((robust_var(lo, cut) + robust_var(cut, hi)) / 2)) return true;
    return gap >= 3 * std::max({resolution_, spacing(lo, cut), spacing(cut, hi)});
  }

  // The separated cut of [lo, hi) of largest between-class variance (Otsu's criterion restricted
  // to separated cuts: with three or more levels the unrestricted best cut can fall where no gap
  // is); 0 when none, where each class weighs at least min_w.
  std::size_t best_cut(std::size_t lo, std::size_t hi, const Level& all, double min_w) const {
    double best = -1, w0 = 0, s0 = 0;
    std::size_t cut = 0;
    for (std::size_t i = lo; i + 1 < hi; ++i) {
      w0 += v_[i].weight;
      s0 += v_[i].weight * v_[i].value;
      const double w1 = all.weight - w0;
      if (w0 < min_w || w1 < min_w) continue;
      const double m0 = s0 / w0, m1 = (all.weight * all.mean - s0) / w1;
      const double between = w0 * w1 * (m1 - m0) * (m1 - m0);
      if (between > best && separated(lo, i + 1, hi)) {
        best = between;
        cut = i + 1;
      }
    }
    return best > 0 ? cut : 0;
  }

 private:
  // Weighted quantile p of [lo, hi) by binary search over the prefix weights.
  double quantile(std::size_t lo, std::size_t hi, double p) const {
    const double target = cum_[lo] + p * (cum_[hi] - cum_[lo]);
    const auto it = std::lower_bound(cum_.begin() + static_cast<std::ptrdiff_t>(lo) + 1,
                                     cum_.begin() + static_cast<std::ptrdiff_t>(hi) + 1, target);
    const std::size_t i = static_cast<std::size_t>(it - cum_.begin()) - 1;
    return v_[std::min(i, hi - 1)].value;
  }
  // Robust variance (interquartile range / 1.349, squared) plus the quantisation variance: a level's
  // tail (DRAM pages, a far partition) does not widen it.
  double robust_var(std::size_t lo, std::size_t hi) const {
    const double s = (quantile(lo, hi, 0.75) - quantile(lo, hi, 0.25)) / 1.349;
    return s * s + res_var_;
  }
  // Median distance between consecutive distinct values of [lo, hi): how densely a class is sampled.
  double spacing(std::size_t lo, std::size_t hi) const {
    std::vector<double> d;
    for (std::size_t i = lo; i + 1 < hi; ++i) d.push_back(v_[i + 1].value - v_[i].value);
    return median(d);
  }

  const std::vector<WeightedValue>& v_;
  double resolution_, res_var_;
  std::vector<double> cum_;
};

}  // namespace

std::vector<Level> cluster_levels(std::vector<WeightedValue> values, double resolution, double min_fraction) {
  std::sort(values.begin(), values.end(), [](auto& a, auto& b) { return a.value < b.value; });
  values.erase(std::remove_if(values.begin(), values.end(), [](auto& v) { return !(v.weight > 0); }),
               values.end());
  std::vector<Level> out;
  if (values.empty()) return out;
  double total = 0;
  for (auto& v : values) total += v.weight;
  const double min_w = min_fraction * total;
  const LevelSplitter split(values, resolution);
  // Recursive split of [lo, hi) at its best separated cut.
  std::vector<std::pair<std::size_t, std::size_t>> stack{{0, values.size()}};
  while (!stack.empty()) {
    auto [lo, hi] = stack.back();
    stack.pop_back();
    const Level all = split.stats(lo, hi);
    const std::size_t cut = split.best_cut(lo, hi, all, min_w);
    if (cut > 0) {
      stack.push_back({cut, hi});
      stack.push_back({lo, cut});
    } else {
      out.push_back(all);
    }
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.mean < b.mean; });
  return out;
}

double level_boundary(const std::vector<Level>& levels, std::size_t i) {
  if (i + 1 >= levels.size()) return 1e300;
  return (levels[i].hi + levels[i + 1].lo) / 2;
}

std::size_t level_of(const std::vector<Level>& levels, double latency) {
  for (std::size_t i = 0; i + 1 < levels.size(); ++i)
    if (latency <= level_boundary(levels, i)) return i;
  return levels.empty() ? 0 : levels.size() - 1;
}

namespace {
// Inverse of the standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9).
double inv_normal(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  if (p < 0.02425) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - 0.02425) return -inv_normal(1 - p);
  const double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}
}  // namespace

bool chi_square_rejects_uniform(const std::vector<double>& counts, double alpha) {
  if (counts.size() < 2) return false;
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  if (total <= 0) return false;
  const double e = total / static_cast<double>(counts.size());
  double chi = 0;
  for (double c : counts) chi += (c - e) * (c - e) / e;
  const double df = static_cast<double>(counts.size() - 1);
  const double z = inv_normal(1 - alpha), h = 2 / (9 * df);  // Wilson–Hilferty
  const double crit = df * std::pow(1 - h + z * std::sqrt(h), 3);
  return chi > crit;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  // selection, not a sort: linear in the samples (a fine trace's latencies are thousands)
  const std::size_t n = v.size();
  const auto mid = v.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (n % 2) return *mid;
  return (*std::max_element(v.begin(), mid) + *mid) / 2;
}

double robust_sigma(const std::vector<double>& v) {
  const double m = median(v);
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - m));
  return 1.4826 * median(dev);
}

namespace {

// The regularized lower incomplete gamma function P(a, x) (a > 0, x > 0): its series where it
// converges fast (x < a + 1), else 1 - Q(a, x) from Q's continued fraction (modified Lentz), both
// with the prefactor x^a e^-x / Gamma(a) in log space, so nothing underflows at large counts.
double gamma_p(double a, double x) {
  const double log_pre = -x + a * std::log(x) - std::lgamma(a);
  if (x < a + 1) {
    double ap = a, del = 1 / a, sum = del;
    for (int n = 0; n < 100000; ++n) {
      ap += 1;
      del *= x / ap;
      sum += del;
      if (std::fabs(del) < std::fabs(sum) * 1e-15) break;
    }
    return std::clamp(sum * std::exp(log_pre), 0.0, 1.0);
  }
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 100000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < 1e-15) break;
  }
  return std::clamp(1 - std::exp(log_pre) * h, 0.0, 1.0);
}

}  // namespace

// P(X >= k) for X ~ Poisson(lambda) is P(k, lambda), the regularized lower incomplete gamma
// function: a few dozen terms at any count (a sum over k terms was the analyzer's hot spot on
// the H100's capacity sweeps of tens of thousands of misses, and underflowed above lambda = 745).
double poisson_upper_tail(double k, double lambda) {
  k = std::ceil(k - 1e-9);
  if (k <= 0) return 1.0;
  if (lambda <= 0) return 0.0;
  return gamma_p(k, lambda);
}

double poisson_lower_tail(double k, double lambda) {
  if (lambda <= 0) return 1.0;
  k = std::floor(k + 1e-9);
  if (k < 0) return 0.0;
  return std::clamp(1.0 - poisson_upper_tail(k + 1, lambda), 0.0, 1.0);
}

double poisson_upper_limit(double k, double alpha) {
  k = std::max(0.0, std::floor(k + 1e-9));
  // P(X <= k | lambda) = 1 - P(X >= k + 1) falls as lambda grows: bisection.
  double lo = 0, hi = k + 10;
  while (1 - poisson_upper_tail(k + 1, hi) > alpha) hi *= 2;
  for (int i = 0; i < 100 && hi - lo > 1e-9 * std::max(1.0, hi); ++i) {
    const double mid = (lo + hi) / 2;
    (1 - poisson_upper_tail(k + 1, mid) > alpha ? lo : hi) = mid;
  }
  return hi;
}

}  // namespace memhier::analysis
