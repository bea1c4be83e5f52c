#include "analysis/dram_level.hpp"

#include <algorithm>

namespace memhier::analysis {

namespace {
// Weighted median of the samples that lie in level k.
double level_median(const std::vector<WeightedValue>& s, const std::vector<Level>& L, std::size_t k) {
  std::vector<WeightedValue> in;
  double total = 0;
  for (const auto& x : s)
    if (level_of(L, x.value) == k) in.push_back(x), total += x.weight;
  std::sort(in.begin(), in.end(), [](const auto& a, const auto& b) { return a.value < b.value; });
  double acc = 0;
  for (const auto& x : in)
    if ((acc += x.weight) >= total / 2) return x.value;
  return in.empty() ? L[k].mean : in.back().value;
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
  DramLevel d;
  d.run = big->run;
  d.level = static_cast<std::size_t>(std::max_element(w.begin() + 1, w.end()) - w.begin());
  d.median = level_median(s, L, d.level);
  d.share = w[d.level] / total;
  for (std::size_t k = d.level + 1; k < L.size(); ++k)
    if (w[k] > 0) d.slower.push_back({sum[k] / w[k], w[k] / total});
  return d;
}

}  // namespace memhier::analysis
