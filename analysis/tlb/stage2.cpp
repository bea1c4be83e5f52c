#include "analysis/tlb/stage2.hpp"

#include <algorithm>
#include <cmath>

namespace memhier::analysis {

// Only the heights that agree with the penalty (3 standard errors and 5 %, as saturation is judged):
// a set-indexed level's heights fall again at large strides (fewer sets used), which is no scatter.
double tlb_height_scatter(const TlbLevel& L) {
  std::vector<double> h;
  const double se_p = L.penalty_ci95 / 1.96;
  for (const auto& r : L.rises) {
    const double se = r.ci95 / 1.96;
    if (!r.shared && r.stride >= L.s_sat &&
        std::fabs(r.height - L.penalty) < 3 * std::sqrt(se * se + se_p * se_p) + 0.05 * L.penalty)
      h.push_back(r.height);
  }
  double v = 0;
  for (double x : h) v += (x - L.penalty) * (x - L.penalty);
  const double sd = h.size() > 1 ? std::sqrt(v / static_cast<double>(h.size() - 1)) : 0;
  return std::max(0.05, 3 * sd / std::max(L.penalty, 1e-9));
}

// Once every set is open every slot misses each pass and the shift there is this stride's own
// penalty: the median over all those steps, not one step (a single count scatters, and rounding a
// count near k + 1/2 flips the ways; the H100's first five runs gave 16 and 17 ways so).
double tlb_complete_fraction(const std::vector<double>& counts, const std::vector<double>& se,
                             std::uint64_t entries, double tol) {
  std::vector<double> f;
  for (std::size_t j = 0; j < counts.size() && j < se.size(); ++j) {
    const double n = static_cast<double>(entries + j + 1);
    if (f.empty() && counts[j] + 3 * se[j] < n * (1 - tol)) continue;
    f.push_back(counts[j] / n);
  }
  if (f.empty()) return 1;
  std::sort(f.begin(), f.end());
  const std::size_t m = f.size() / 2;
  const double med = f.size() % 2 ? f[m] : 0.5 * (f[m - 1] + f[m]);
  return std::fabs(med - 1) <= tol ? med : 1;
}

std::vector<double> calibrate_tlb_counts(std::vector<double> known, const std::vector<double>& counts,
                                         const std::vector<double>& se, std::uint64_t entries, double tol) {
  const double f = tlb_complete_fraction(counts, se, entries, tol);
  for (std::size_t j = 0; j < known.size(); ++j)
    known[j] = std::min(known[j] / f, static_cast<double>(entries + j + 1));
  return known;
}

// The runs of one step are read in different rounds; a round that drifted against the others
// (the H100's 20261127T215933Z: 1.1 cycles at the reach and one entry beyond) shifts its steps
// alone, and the calibration carries that shift from the steps of one round to those of another.
std::size_t tlb_unreplicated_step(const std::vector<std::vector<std::pair<double, double>>>& run_counts,
                                  const std::vector<double>& counts, const std::vector<double>& se,
                                  std::uint64_t entries, double tol, std::size_t resolved, double max_se,
                                  std::vector<double>* calibrated) {
  const double f = tlb_complete_fraction(counts, se, entries, tol);
  for (std::size_t j = 0; j < resolved && j < run_counts.size(); ++j) {
    const double n = static_cast<double>(entries + j + 1);
    std::vector<double> cal;
    for (const auto& [c, e] : run_counts[j])
      if (e / f <= max_se) cal.push_back(std::min(c / f, n));
    if (cal.size() < 2) continue;
    const auto [lo, hi] = std::minmax_element(cal.begin(), cal.end());
    if (std::round(*lo) == std::round(*hi)) continue;
    if (calibrated) *calibrated = cal;
    return j + 1;
  }
  return 0;
}

}  // namespace memhier::analysis
