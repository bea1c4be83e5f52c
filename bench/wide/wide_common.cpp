#include "bench/wide/wide_common.hpp"

#include <algorithm>
#include <cmath>

namespace memhier {

WideChain wide_chain_of(const WideChaseRequest& r, const WideLimits& limits) {
  WideChain c = r.chain;
  c.chunk = r.alloc == WideAlloc::malloc ? 0 : limits.vmm_granularity;
  c.gap = r.alloc == WideAlloc::vmm_gap ? limits.vmm_granularity : 0;
  if (!r.positions.empty()) {  // explicit positions: the map only (stride/slots unused)
    c.slots = r.positions.size();
    c.passes = 1;
  }
  return c;
}

std::uint64_t wide_request_bytes(const WideChaseRequest& r) {
  if (r.positions.empty()) return std::max(r.footprint_bytes, wide_footprint(r.chain));
  std::uint64_t hi = r.footprint_bytes;
  for (auto p : r.positions) hi = std::max(hi, p + kWideElementBytes);
  return std::max(hi, r.flush_end);
}

std::string check_wide_request(const WideChaseRequest& r, const WideLimits& limits) {
  if (r.path != Path::global_cg && r.path != Path::global_ca)
    return std::string("whole-memory chases run on global_cg or global_ca, not ") + path_name(r.path);
  if (r.mode == Mode::classic) return "whole-memory chases time every access (mode fine or count)";
  if (r.iters == 0) return "no recorded accesses";
  if (r.positions.empty()) {
    const std::string why = check_wide_chain(r.chain);
    if (!why.empty()) return why;
  } else {
    for (auto p : r.positions)
      if (p % kWideElementBytes) return "explicit positions must be multiples of 8 bytes";
  }
  const std::uint64_t need = wide_request_bytes(r);
  const std::uint64_t cap = r.alloc == WideAlloc::malloc ? limits.malloc_bytes : limits.vmm_bytes;
  if (cap == 0) return std::string("allocation mode ") + wide_alloc_name(r.alloc) + " is not available on this device";
  if (need > cap)
    return "footprint of " + std::to_string(need) + " bytes exceeds the " + wide_alloc_name(r.alloc) + " limit of " +
           std::to_string(cap) + " bytes on this device";
  return {};
}

std::uint64_t wide_block_len(const WideChaseRequest& r) {
  const std::uint64_t min_len = (r.iters + kWideBlocks - 1) / kWideBlocks;
  return std::max<std::uint64_t>(std::max(r.block_len, min_len), 1);
}

void finish_wide_stats(WideChaseResult& o, double sum, double sumsq, const std::vector<double>& block_sums,
                       std::uint64_t iters, std::uint64_t block_len) {
  const double n = static_cast<double>(std::max<std::uint64_t>(iters, 1));
  o.accesses = iters;
  o.latency_cycles = sum / n;
  o.latency_sd_cycles = std::sqrt(std::max(0.0, sumsq / n - o.latency_cycles * o.latency_cycles));
  o.block_means.clear();
  for (std::uint64_t b = 0; b < block_sums.size() && b * block_len < iters; ++b) {
    const std::uint64_t len = std::min(block_len, iters - b * block_len);
    o.block_means.push_back(block_sums[b] / static_cast<double>(len));
  }
}

}  // namespace memhier
