#include "analysis/cache/capacity_curve.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace memhier::analysis {

std::vector<double> isotonic_fit(const std::vector<double>& y, const std::vector<double>& w) {
  struct Block {
    double sum, weight;
    std::size_t count;
  };
  std::vector<Block> b;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double wi = i < w.size() && w[i] > 0 ? w[i] : 1;
    b.push_back({y[i] * wi, wi, 1});
    while (b.size() > 1 && b[b.size() - 2].sum / b[b.size() - 2].weight > b.back().sum / b.back().weight) {
      Block top = b.back();
      b.pop_back();
      b.back().sum += top.sum;
      b.back().weight += top.weight;
      b.back().count += top.count;
    }
  }
  std::vector<double> fit;
  for (const auto& x : b) fit.insert(fit.end(), x.count, x.sum / x.weight);
  return fit;
}

namespace {

std::uint64_t floor_to(double x, std::uint64_t s) {
  const double v = std::max(0.0, x);
  return s ? static_cast<std::uint64_t>(v / s) * s : static_cast<std::uint64_t>(v);
}
std::uint64_t ceil_to(double x, std::uint64_t s) {
  const double v = std::max(0.0, x);
  return s ? static_cast<std::uint64_t>(std::ceil(v / s)) * s : static_cast<std::uint64_t>(std::ceil(v));
}
constexpr double kTransitionLo = 0.1, kTransitionHi = 0.9;

std::string num(double x) {
  std::ostringstream o;
  o << std::setprecision(3) << x;
  return o.str();
}

// The plateau: the isotonic fit at the largest footprint; saturated when the last three footprints
// measured lie within 2 % (absolute) of it.
void find_plateau(const std::vector<double>& fit, HalfPoint& h) {
  h.plateau = fit.back();
  h.saturated = fit.size() >= 3;
  for (std::size_t i = fit.size() >= 3 ? fit.size() - 3 : 0; i < fit.size(); ++i)
    h.saturated = h.saturated && std::fabs(fit[i] - h.plateau) <= 0.02;
}

// Local straight line through the transition footprints nearest the crossing (up to four on each
// side, miss rates between 10 % and 90 % of the plateau: the curve's middle, where it is nearly
// straight): its residual scatter (at least the binomial error of a footprint) and slope give the
// interval of the crossing, x50 +- 2 sigma / slope.
void scatter_interval(const std::vector<std::uint64_t>& sizes, const std::vector<double>& miss,
                      const std::vector<double>& n, std::size_t i, double x50, HalfPoint& h) {
  const double level = h.plateau / 2;
  std::vector<double> xs, ys;
  double nsum = 0;
  const std::size_t from = i >= 4 ? i - 4 : 0, to = std::min(sizes.size(), i + 4);
  for (std::size_t k = from; k < to; ++k)
    if (miss[k] >= kTransitionLo * h.plateau && miss[k] <= kTransitionHi * h.plateau) {
      xs.push_back(static_cast<double>(sizes[k]));
      ys.push_back(miss[k]);
      nsum += n[k];
    }
  h.transition = static_cast<int>(xs.size());
  if (h.transition < kHalfPointMinTransition) return;
  const double m = static_cast<double>(xs.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t k = 0; k < xs.size(); ++k) sx += xs[k], sy += ys[k], sxx += xs[k] * xs[k], sxy += xs[k] * ys[k];
  const double den = m * sxx - sx * sx;
  const double slope = den > 0 ? (m * sxy - sx * sy) / den : 0;
  if (slope <= 0) return;
  const double icpt = (sy - slope * sx) / m;
  double ss = 0;
  for (std::size_t k = 0; k < xs.size(); ++k) ss += std::pow(ys[k] - icpt - slope * xs[k], 2);
  const double binom = std::sqrt(level * (1 - std::min(level, 1.0)) / (nsum / m));
  h.sigma = std::max(std::sqrt(ss / (m - 2)), binom);
  const double half = 2 * h.sigma / slope;
  h.ilo = floor_to(x50 - half, 1);
  h.ihi = ceil_to(x50 + half, 1);
}

}  // namespace

HalfPoint half_point(const std::vector<std::uint64_t>& sizes, const std::vector<double>& miss,
                     const std::vector<double>& n, std::uint64_t stride) {
  HalfPoint h;
  if (sizes.size() < 2) {
    h.note = "fewer than two footprints measured";
    return h;
  }
  const std::vector<double> fit = isotonic_fit(miss, n);
  find_plateau(fit, h);
  const double level = h.plateau / 2;
  std::size_t i = 0;
  while (i < fit.size() && !(fit[i] >= level && fit[i] > 0)) ++i;
  if (h.plateau <= 0 || i == fit.size()) {
    h.state = HalfPoint::State::above;
    h.lo = sizes.back();
    h.note = "no capacity misses up to " + std::to_string(sizes.back()) + " bytes";
    return h;
  }
  if (i == 0) {
    h.state = HalfPoint::State::below;
    h.hi = sizes.front();
    h.note = "the miss rate is already at half its plateau at " + std::to_string(sizes.front()) + " bytes";
    return h;
  }
  h.state = HalfPoint::State::found;
  h.lo = sizes[i - 1];
  h.hi = sizes[i];
  const double f = (level - fit[i - 1]) / (fit[i] - fit[i - 1]);
  const double x50 = static_cast<double>(h.lo) + f * static_cast<double>(h.hi - h.lo);
  h.bytes = std::max(h.lo, floor_to(x50, stride));
  h.ilo = h.lo;
  h.ihi = h.hi;
  scatter_interval(sizes, miss, n, i, x50, h);
  h.ilo = std::min(floor_to(static_cast<double>(h.ilo), stride), h.bytes);
  h.ihi = std::max(ceil_to(static_cast<double>(h.ihi), stride), h.bytes);
  h.note = "miss rate reaches half its plateau (" + num(h.plateau) + (h.saturated ? "" : ", not saturated") +
           ") between " + std::to_string(h.lo) + " and " + std::to_string(h.hi) + " bytes (isotonic fit, interpolated)";
  if (h.transition >= kHalfPointMinTransition)
    h.note += "; interval +-2 sigma / slope of a line through " + std::to_string(h.transition) +
              " footprints around it (sigma " + num(h.sigma) + ")";
  else
    h.note += "; interval: those two footprints (" + std::to_string(h.transition) + " footprint(s) in the transition, " +
              std::to_string(kHalfPointMinTransition) + " make a scatter)";
  return h;
}

}  // namespace memhier::analysis
