// Two classes of latencies where a sample forms two (docs/methodology.md: the L2's two partitions
// on a Hopper make DRAM accesses bimodal, ~540 cycles through the reader's own partition and ~720
// through the other on an H200, in shares that differ from process to process, so the median of
// such a sample jumps between the modes). The cut: the split of the sorted values below their 95th
// percentile with the least within-class squared deviation (Otsu), kept when each class holds >=
// `min_share` of the values and the class medians lie >= `separation` pooled robust deviations
// (1.4826 x MAD) apart (one broad mode cut in two: 1.8-2.8 on an H200's spectrum samples; its
// two modes: 3.7-6.7).
// Shared by the bench (cache_streams' L2 targets) and the analysis (the gate's spectrum figures).
#pragma once
#include <cstddef>
#include <vector>

namespace memhier {

struct TwoClasses {
  bool split = false;           // false: one class (too few values, no such cut, too close)
  double cut = 0;               // midpoint between the classes' adjacent values: lower class < cut
  double low_median = 0, high_median = 0;
  std::size_t low = 0, high = 0;  // values per class
};

TwoClasses two_classes(std::vector<double> v, double min_share = 0.1, double separation = 3.5, std::size_t min_values = 20);

}  // namespace memhier
