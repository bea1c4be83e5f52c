// Two classes of latencies (common/two_class.hpp).
#include "common/two_class.hpp"

#include <algorithm>
#include <cmath>

namespace memhier {

namespace {
// 1.4826 x the median absolute deviation from the median of sorted v[b, e).
double robust_sd(const std::vector<double>& v, std::size_t b, std::size_t e) {
  const double m = v[b + (e - b) / 2];
  std::vector<double> d;
  for (std::size_t i = b; i < e; ++i) d.push_back(std::fabs(v[i] - m));
  std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
  return 1.4826 * d[d.size() / 2];
}
}  // namespace

TwoClasses two_classes(std::vector<double> v, double min_share, double separation, std::size_t min_values) {
  TwoClasses out;
  if (v.size() < std::max<std::size_t>(min_values, 4)) return out;
  std::sort(v.begin(), v.end());
  // The cut is searched below the 95th percentile: squared deviations let a thin tail of slow
  // accesses (page walks, refresh: ~5 % of an H200's DRAM accesses at 1000+ cycles) form a class
  // of its own instead of the two modes.
  const std::size_t n = v.size(), m = std::max<std::size_t>(4, v.size() * 95 / 100);
  std::vector<double> sum(m + 1, 0), sq(m + 1, 0);
  for (std::size_t i = 0; i < m; ++i) {
    sum[i + 1] = sum[i] + v[i];
    sq[i + 1] = sq[i] + v[i] * v[i];
  }
  const std::size_t lo_min = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(min_share * static_cast<double>(n))));
  std::size_t best = 0;
  double best_ss = 0;
  for (std::size_t c = lo_min; c + lo_min <= m; ++c) {  // classes [0, c) and [c, m) of the trimmed values
    if (v[c] == v[c - 1]) continue;                     // a cut between equal values is no cut
    const double a = sum[c], b = sum[m] - sum[c];
    const double ss = (sq[c] - a * a / static_cast<double>(c)) + (sq[m] - sq[c] - b * b / static_cast<double>(m - c));
    if (best == 0 || ss < best_ss) best = c, best_ss = ss;
  }
  if (best == 0) return out;  // every value of the tail and above belongs to the upper class
  const double lo_sd = robust_sd(v, 0, best), hi_sd = robust_sd(v, best, n);
  const double pooled = std::sqrt(0.5 * (lo_sd * lo_sd + hi_sd * hi_sd));
  out.low_median = v[best / 2];
  out.high_median = v[best + (n - best) / 2];
  out.low = best;
  out.high = n - best;
  out.cut = 0.5 * (v[best - 1] + v[best]);
  out.split = out.high_median - out.low_median >= separation * std::max(pooled, 1.0);
  return out;
}

}  // namespace memhier
