// The Mann-Whitney U test of memhier-compare (two-sided p): exact without ties for small samples,
// the normal approximation with tie and continuity correction otherwise.
#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis/gate/compare.hpp"

namespace memhier::analysis {

namespace {

// Exact count of rank arrangements with U <= u for sample sizes n, m (no ties).
double exact_cdf(int n, int m, int u) {
  // f[i][j][k]: ways with i from a, j from b giving U = k (U counts b-before-a pairs).
  const int umax = n * m;
  std::vector<std::vector<double>> prev(m + 1, std::vector<double>(umax + 1, 0.0)), cur = prev;
  // Iterative over i (size of a); f(0, j, 0) = 1.
  for (int j = 0; j <= m; ++j) prev[j][0] = 1;
  for (int i = 1; i <= n; ++i) {
    for (auto& row : cur) std::fill(row.begin(), row.end(), 0.0);
    cur[0][0] = 1;
    for (int j = 1; j <= m; ++j)
      for (int k = 0; k <= i * j; ++k) {
        // Largest element is from a (adds j to U) or from b (adds 0).
        double v = cur[j - 1][k];
        if (k >= j) v += prev[j][k - j];
        cur[j][k] = v;
      }
    std::swap(prev, cur);
  }
  double total = 0, below = 0;
  for (int k = 0; k <= umax; ++k) {
    total += prev[m][k];
    if (k <= u) below += prev[m][k];
  }
  return below / total;
}

}  // namespace

double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  if (n == 0 || m == 0) return 1.0;
  std::vector<std::pair<double, int>> all;
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  const int N = n + m;
  std::vector<double> rank(N);
  bool ties = false;
  double tie_term = 0;
  for (int i = 0; i < N;) {
    int j = i;
    while (j + 1 < N && all[j + 1].first == all[i].first) ++j;
    const double r = (i + j) / 2.0 + 1.0;
    for (int k = i; k <= j; ++k) rank[k] = r;
    const double t = j - i + 1;
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    i = j + 1;
  }
  double ra = 0;
  for (int i = 0; i < N; ++i)
    if (all[i].second == 0) ra += rank[i];
  const double u1 = ra - n * (n + 1) / 2.0;  // pairs where a > b
  const double mu = n * m / 2.0;
  if (!ties && n <= 20 && m <= 20) {
    const int u = static_cast<int>(std::lround(std::min(u1, n * m - u1)));
    return std::min(1.0, 2.0 * exact_cdf(n, m, u));
  }
  const double var = n * m / 12.0 * ((N + 1) - tie_term / (static_cast<double>(N) * (N - 1)));
  if (var <= 0) return 1.0;  // every value equal
  const double z = std::max(0.0, std::fabs(u1 - mu) - 0.5) / std::sqrt(var);
  return std::min(1.0, std::erfc(z / std::sqrt(2.0)));
}

}  // namespace memhier::analysis
