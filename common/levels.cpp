#include "common/levels.hpp"

#include <algorithm>
#include <cmath>

namespace memhier {

Histogram histogram_of(const std::vector<std::uint32_t>& latencies, std::uint32_t bin_width) {
  Histogram h;
  h.bin_width = std::max<std::uint32_t>(1, bin_width);
  std::uint32_t mx = 0;
  for (auto l : latencies) mx = std::max(mx, l);
  h.counts.assign(mx / h.bin_width + 1, 0);
  for (auto l : latencies) ++h.counts[l / h.bin_width];
  return h;
}

HitMissSplit split_hit_miss(const Histogram& h, double baseline) {
  HitMissSplit out;
  if (baseline > 0) {
    const double threshold = kLevelRatio * baseline;
    double hs = 0, ms = 0;
    for (std::size_t i = 0; i < h.counts.size(); ++i) {
      const double x = (i + 0.5) * h.bin_width, c = static_cast<double>(h.counts[i]);
      if (x < threshold) {
        out.hits += h.counts[i];
        hs += c * x;
      } else {
        out.misses += h.counts[i];
        ms += c * x;
      }
    }
    out.threshold = threshold;
    out.separated = out.hits > 0 && out.misses > 0;
    out.hit_mean = out.hits ? hs / static_cast<double>(out.hits) : 0;
    out.miss_mean = out.misses ? ms / static_cast<double>(out.misses) : 0;
    return out;
  }
  const std::size_t n = h.counts.size();
  const double w = h.bin_width;
  double total = 0, total_sum = 0, total_sq = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double x = (i + 0.5) * w, c = static_cast<double>(h.counts[i]);
    total += c;
    total_sum += c * x;
    total_sq += c * x * x;
  }
  out.hits = static_cast<std::uint64_t>(total);
  out.hit_mean = total > 0 ? total_sum / total : 0;
  if (total < 2) return out;
  double best = -1;
  std::size_t best_i = 0;
  double c0 = 0, s0 = 0;
  for (std::size_t i = 0; i + 1 < n; ++i) {
    double x = (i + 0.5) * w, c = static_cast<double>(h.counts[i]);
    c0 += c;
    s0 += c * x;
    double c1 = total - c0;
    if (c0 == 0 || c1 == 0) continue;
    double m0 = s0 / c0, m1 = (total_sum - s0) / c1;
    double between = c0 * c1 * (m1 - m0) * (m1 - m0);
    if (between > best) {
      best = between;
      best_i = i;
    }
  }
  if (best < 0) return out;
  // Class statistics for the best split.
  double c0n = 0, s0n = 0, q0 = 0;
  for (std::size_t i = 0; i <= best_i; ++i) {
    double x = (i + 0.5) * w, c = static_cast<double>(h.counts[i]);
    c0n += c;
    s0n += c * x;
    q0 += c * x * x;
  }
  double c1n = total - c0n, s1n = total_sum - s0n, q1 = total_sq - q0;
  double m0 = s0n / c0n, m1 = s1n / c1n;
  double v0 = std::max(0.0, q0 / c0n - m0 * m0) + w * w / 12.0;
  double v1 = std::max(0.0, q1 / c1n - m1 * m1) + w * w / 12.0;
  double fisher = (m1 - m0) / std::sqrt((v0 + v1) / 2.0);
  if (fisher < 4.0 || (m1 - m0) < 2 * w || m1 < kLevelRatio * m0) return out;
  out.separated = true;
  out.threshold = (best_i + 1) * w;
  out.hit_mean = m0;
  out.miss_mean = m1;
  out.hits = static_cast<std::uint64_t>(c0n);
  out.misses = static_cast<std::uint64_t>(c1n);
  return out;
}

}  // namespace memhier
