// Statistics used by the analyzer (003 §3.3, 000 §4): two-sample Kolmogorov–Smirnov test, single
// change-point estimation (Opt with a squared-error cost), geometric reduction of multi-dimensional
// series, and clustering of latency values into levels (recursive Otsu split accepted only when the
// classes are well separated: no fixed latency threshold).
#pragma once
#include <cstddef>
#include <optional>
#include <vector>

namespace memhier::analysis {

// Significance level of every hypothesis test the analyzer runs (docs/methodology.md, inference).
constexpr double kAlpha = 0.05;

struct KsResult {
  double d = 0;         // max |F - G|
  double critical = 0;  // d_alpha = sqrt(-ln(alpha/2) / 2 * (n+m)/(n*m))
  bool reject = false;  // d > critical: the samples differ (a real change)
};
KsResult ks_two_sample(const std::vector<double>& a, const std::vector<double>& b, double alpha = kAlpha);

// Opt with one change point: the index t (1 <= t < n) minimising cost(0..t-1) + cost(t..n-1), cost =
// squared error about the segment mean. Returns 0 when n < 2.
std::size_t opt_single_change_point(const std::vector<double>& y);

// Geometric mapping (003 §3.3.2): each vector to its distance from the origin and its angle to the
// reference vector 1 = (1, ..., 1).
struct GeometricSeries {
  std::vector<double> distance, angle;
};
GeometricSeries geometric_map(const std::vector<std::vector<double>>& x);

struct ChangePoint {
  bool found = false;    // KS confirmed the change at `index`
  std::size_t index = 0; // first element of the second segment
  KsResult ks;
  const char* series = "distance";  // which reduced series decided
};
// Reduction + Opt + KS on a series of vectors (one per measured size).
ChangePoint detect_change_point(const std::vector<std::vector<double>>& x, double alpha = kAlpha);
ChangePoint detect_change_point_1d(const std::vector<double>& y, double alpha = kAlpha);

// A weighted latency sample (value in cycles, how many accesses had it).
struct WeightedValue {
  double value;
  double weight;
};
struct Level {
  double lo = 0, hi = 0;  // smallest and largest value in the class
  double mean = 0, weight = 0;
};
// Levels sorted by latency. `resolution` is the measurement granularity (histogram bin width).
// Classes lighter than min_fraction of the total weight are not split off. A split needs a gap of
// more than two resolution steps between the classes' trimmed ranges (kLevelTrim of each class may
// lie inside it) and medians >= 4 robust standard deviations (IQR / 1.349) of the tighter class apart.
constexpr double kLevelTrim = 0.001;
std::vector<Level> cluster_levels(std::vector<WeightedValue> values, double resolution = 1,
                                  double min_fraction = 0.002);
// Boundary between level i and level i+1 (midpoint of the gap); latencies above it are slower.
double level_boundary(const std::vector<Level>& levels, std::size_t i);
// Index of the level a latency belongs to.
std::size_t level_of(const std::vector<Level>& levels, double latency);

// Chi-square test that counts come from equal probabilities; true when uniformity is rejected.
bool chi_square_rejects_uniform(const std::vector<double>& counts, double alpha = kAlpha);

double median(std::vector<double> v);
// 1.4826 x the median absolute deviation (a standard deviation for normal data); 0 when empty.
double robust_sigma(const std::vector<double>& v);

// Counting test (soft cache edges, docs/methodology.md inference): one-sided upper tail.
// P(X >= k) for X ~ Poisson(lambda); 1 for k <= 0, 0 for lambda == 0 and k >= 1.
double poisson_upper_tail(double k, double lambda);
// P(X <= k) for X ~ Poisson(lambda): 1 - P(X >= k + 1) (absolute precision ~1e-16, for tests at
// significance levels).
double poisson_lower_tail(double k, double lambda);
// One-sided upper confidence limit of a Poisson mean after observing k events: the lambda at which
// P(X <= k) = alpha (k = 0: -ln alpha).
double poisson_upper_limit(double k, double alpha);

}  // namespace memhier::analysis
