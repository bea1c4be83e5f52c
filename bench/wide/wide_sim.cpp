#include "bench/wide/wide_sim.hpp"

#include <algorithm>
#include <cmath>

#include "bench/wide/wide_common.hpp"

namespace memhier {

WideLimits sim_wide_limits(const sim::Config& cfg) {
  WideLimits w;
  const std::uint64_t g = cfg.device.vmm_granularity_bytes;
  // Nothing else lives in simulated memory; keep 1/16 aside as a GPU run keeps a margin.
  w.malloc_bytes = cfg.device.global_mem_bytes / 16 * 15 / g * g;
  w.vmm_bytes = w.malloc_bytes;
  w.vmm_granularity = g;
  w.l2_lines = cfg.device.l2_bytes / kWideLineBytes;
  return w;
}

namespace {

struct Accumulator {
  double sum = 0, sumsq = 0;
  std::vector<double> blocks = std::vector<double>(kWideBlocks, 0.0);
  std::vector<std::uint64_t> hist;
};

WideChaseResult run_one(sim::SimDevice& dev, const WideChaseRequest& r, const ClockOverhead& oh) {
  WideChaseResult o;
  const WideLimits lim = sim_wide_limits(dev.config());
  o.error = check_wide_request(r, lim);
  const int pid = dev.path_id(path_name(r.path));
  if (o.error.empty() && pid < 0)
    o.error = std::string("the simulated device '") + dev.config().name + "' does not map the " + path_name(r.path) + " path";
  if (!o.error.empty()) return o;
  const WideChain c = wide_chain_of(r, lim);
  const std::uint64_t elements = r.positions.empty() ? wide_elements(c) : r.positions.size();
  const std::uint64_t base = dev.config().array_base;
  auto address = [&](std::uint64_t g) {
    return base + wide_map(c, r.positions.empty() ? wide_position(c, g) : r.positions[g]);
  };
  dev.set_translation_chunk(c.chunk);
  dev.set_noise_salt(c.stride * 0x9E3779B97F4A7C15ull ^ c.slots * 0xC2B2AE3D27D4EB4Full ^
                     static_cast<std::uint64_t>(r.alloc) ^ elements);
  dev.reset();  // every chase starts cold (a cold request needs nothing more)
  Accumulator acc;
  const std::uint32_t bw = std::max<std::uint32_t>(1, r.hist_bin_width);
  if (r.mode == Mode::count) acc.hist.assign(kWideHistBins, 0);
  const std::uint64_t keep = r.mode == Mode::fine ? std::min<std::uint64_t>(r.iters, r.max_records) : 0;
  const std::uint64_t block_len = wide_block_len(r);
  std::uint64_t g = 0;
  for (std::uint64_t k = 0; k < r.warm + r.iters; ++k) {
    const std::uint32_t lat = dev.access(pid, address(g));
    const std::uint64_t e = g;
    if (++g == elements) g = 0;
    if (k < r.warm) continue;
    const std::uint64_t i = k - r.warm;
    acc.sum += lat;
    acc.sumsq += static_cast<double>(lat) * lat;
    acc.blocks[i / block_len] += lat;
    if (r.mode == Mode::count) ++acc.hist[std::min<std::uint64_t>(lat / bw, kWideHistBins - 1)];
    if (i < keep) {
      o.index.push_back(static_cast<std::uint32_t>(e));
      o.latency.push_back(lat);
    }
  }
  dev.set_translation_chunk(0);
  finish_wide_stats(o, acc.sum, acc.sumsq, acc.blocks, r.iters, block_len);
  o.clock_overhead_cycles = static_cast<double>(std::lround(oh.fine_cycles));
  o.seconds = std::max(acc.sum + o.clock_overhead_cycles * static_cast<double>(r.iters), 1.0) /
              (static_cast<double>(dev.config().device.sm_clock_khz) * 1e3);
  if (r.mode == Mode::count) {
    o.hist.bin_width = bw;
    o.hist.counts = std::move(acc.hist);
  }
  o.chunk_bytes = c.chunk;
  o.gap_bytes = c.gap;
  return o;
}

}  // namespace

std::vector<WideChaseResult> run_wide_sim(sim::SimDevice& dev, const std::vector<WideChaseRequest>& rs,
                                          const ClockOverhead& oh) {
  std::vector<WideChaseResult> out;
  std::uint64_t mapped = 0;
  for (const auto& r : rs) mapped = std::max(mapped, wide_request_bytes(r));
  for (const auto& r : rs) {
    out.push_back(run_one(dev, r, oh));
    out.back().mapped_bytes = mapped;
  }
  return out;
}

}  // namespace memhier
