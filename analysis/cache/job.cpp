#include "analysis/cache/job.hpp"

namespace memhier::analysis {

const Chase* CacheJob::count_run(std::uint64_t stride, std::uint64_t bytes) const {
  for (auto* c : pd.all)
    if (c->stride == stride && c->bytes == bytes && c->warm && c->mode == "count" && at_primary(*c) && data().trace(*c))
      return c;
  return nullptr;
}

double CacheJob::miss_fraction(const Chase& c) const {
  double total = 0;
  const double w = weight_above(samples_of(*data().trace(c)), cl.boundary, &total);
  return total > 0 ? w / total : 0;
}

double CacheJob::misses_per_pass(const Chase& c) const {
  double total = 0;
  const double w = weight_above(samples_of(*data().trace(c)), cl.boundary, &total);
  return total > 0 ? w * static_cast<double>(c.chain()) / total : 0;
}

}  // namespace memhier::analysis
