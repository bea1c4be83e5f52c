#include "analysis/memory/dram.hpp"

#include <algorithm>

namespace memhier::analysis {

namespace {
// Weighted median of the samples (`fallback` when none).
double weighted_median(std::vector<WeightedValue> in, double fallback) {
  double total = 0;
  for (const auto& x : in) total += x.weight;
  std::sort(in.begin(), in.end(), [](const auto& a, const auto& b) { return a.value < b.value; });
  double acc = 0;
  for (const auto& x : in)
    if ((acc += x.weight) >= total / 2) return x.value;
  return fallback;
}

// No footprint wholly beyond the hit level: the level beyond it that holds most accesses of the path.
DramLevel from_path_weights(const std::vector<Level>& L) {
  DramLevel d;
  double total = 0;
  for (std::size_t k = 1; k < L.size(); ++k) {
    total += L[k].weight;
    if (L[k].weight > L[d.level].weight || d.level == 0) d.level = k;
  }
  d.median = L[d.level].mean;
  d.share = total > 0 ? L[d.level].weight / total : 0;
  for (std::size_t k = d.level + 1; k < L.size(); ++k) d.slower.push_back({L[k].mean, L[k].weight / total});
  return d;
}
}  // namespace

std::optional<DramLevel> dram_level(const Dataset& data, const PathData& pd) {
  const auto& L = pd.levels;
  if (L.size() < 2) return std::nullopt;
  const auto big = beyond_first_level(data, pd);
  if (!big) return from_path_weights(L);
  const auto s = samples_of(*data.trace(*big->run));
  std::vector<double> w(L.size(), 0), sum(L.size(), 0);
  double total = 0;
  for (const auto& x : s) {
    const std::size_t k = level_of(L, x.value);
    w[k] += x.weight;
    sum[k] += x.weight * x.value;
    total += x.weight;
  }
  // The main mass: the levels beyond the hit level up to the last one that holds >= 10 % of the
  // accesses (the H100's DRAM accesses are bimodal, ~540 and ~730 cycles, 45 / 55 %, and the
  // clustering splits them into two levels in some runs and not in others: a dominant level's
  // median read 750 or 674 on the same distribution). Their median does not depend on the split;
  // rarer slower levels above them (a DRAM page or bank conflict, refresh) are reported beside it.
  DramLevel d;
  d.run = big->run;
  std::size_t last = 0;
  for (std::size_t k = 1; k < L.size(); ++k)
    if (w[k] >= 0.1 * total) last = k;
  if (last == 0) last = static_cast<std::size_t>(std::max_element(w.begin() + 1, w.end()) - w.begin());
  d.level = last;
  std::vector<WeightedValue> main;
  double in = 0;
  for (const auto& x : s) {
    const std::size_t k = level_of(L, x.value);
    if (k >= 1 && k <= last) main.push_back(x), in += x.weight;
  }
  d.median = weighted_median(std::move(main), L[last].mean);
  d.share = total > 0 ? in / total : 0;
  for (std::size_t k = last + 1; k < L.size(); ++k)
    if (w[k] > 0) d.slower.push_back({sum[k] / w[k], w[k] / total});
  return d;
}

}  // namespace memhier::analysis
