// Cache-resident read bandwidth (l1_throughput, l2_throughput): one runner over
// kern::cached_read. CUDA host code: include from .cu files only.
#pragma once
#include "bench/core/guard.hpp"
#include <memory>
#include <string>

#include "bench/families/gmem_throughput.hpp"
#include "bench/core/registry.hpp"
#include "runtime/event_timer.hpp"

namespace memhier::tput {

struct CachedReadConfig {
  kern::CacheOp op = kern::CacheOp::cg;
  std::uint64_t bytes = 0;   // working set
  int cta_size = 256, ctas = 8, ilp = 4;
  bool tile = true;          // true: CTAs tile the working set; false: each reads all of it (L1, L2 layout:all)
  int carveout = -1;         // shared-memory carveout percent for the kernel, -1: default
  int overlap = 1;           // tile: each CTA's window spans `overlap` tiles (every line read by that many CTAs)
  int share = 1;             // tile: `share` consecutive CTAs read the same window in step
  bool stagger = false;      // tile: each CTA starts its round at a golden-ratio phase of its window
};

// Vectors each CTA reads per round: tile: overlap x n / grid (at least one CTA step, at most n); else n.
inline std::uint64_t cached_window(const CachedReadConfig& c) {
  const std::uint64_t n = c.bytes / 16;
  const std::uint64_t tiles = static_cast<std::uint64_t>(c.ctas) * device().d.sm_count / std::max(1, c.share);
  if (!c.tile) return n;
  return std::min(n, std::max<std::uint64_t>(n / std::max<std::uint64_t>(tiles, 1) * std::max(1, c.overlap),
                                             c.cta_size * c.ilp));
}

// The working-set buffer (largest asked for so far), filled with a non-zero pattern.
struct WorkingSet {
  DeviceBuffer<uint4> buf;
  DeviceBuffer<std::uint32_t> sink;
  std::uint64_t bytes = 0;
};

inline WorkingSet& working_set(std::uint64_t bytes) {
  static WorkingSet* ws = new WorkingSet;  // kept until the whole-memory chases free it (see gmem_throughput.cu)
  if (ws->bytes < bytes) {
    if (ws->bytes == 0)
      keep_device_cache([] {
        ws->buf = DeviceBuffer<uint4>();
        ws->sink = DeviceBuffer<std::uint32_t>();
        ws->bytes = 0;
      });
    ws->buf = DeviceBuffer<uint4>();
    ws->buf = DeviceBuffer<uint4>(bytes / 16);
    ws->bytes = bytes;
    kern::fill_words<std::uint32_t><<<device().d.sm_count * 4, 512>>>(
        reinterpret_cast<std::uint32_t*>(ws->buf.get()), bytes / 4, 0x5A5A5A5Au);
    MEMHIER_LAUNCH_CHECK();
    if (!ws->sink.get()) ws->sink = DeviceBuffer<std::uint32_t>(1);
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }
  return *ws;
}

// The kernel of a configuration (for the occupancy query).
template <kern::CacheOp Op>
const void* cached_kernel_op(int ilp, bool tile) {
  switch (ilp) {
    case 1: return tile ? (const void*)kern::cached_read<Op, 1, true> : (const void*)kern::cached_read<Op, 1, false>;
    case 2: return tile ? (const void*)kern::cached_read<Op, 2, true> : (const void*)kern::cached_read<Op, 2, false>;
    case 4: return tile ? (const void*)kern::cached_read<Op, 4, true> : (const void*)kern::cached_read<Op, 4, false>;
    case 8: return tile ? (const void*)kern::cached_read<Op, 8, true> : (const void*)kern::cached_read<Op, 8, false>;
    case 16: return tile ? (const void*)kern::cached_read<Op, 16, true> : (const void*)kern::cached_read<Op, 16, false>;
  }
  return nullptr;
}
inline const void* cached_kernel(const CachedReadConfig& c) {
  return c.op == kern::CacheOp::ca   ? cached_kernel_op<kern::CacheOp::ca>(c.ilp, c.tile)
         : c.op == kern::CacheOp::na ? cached_kernel_op<kern::CacheOp::na>(c.ilp, c.tile)
                                     : cached_kernel_op<kern::CacheOp::cg>(c.ilp, c.tile);
}

// Whether the configuration can run: the wrap arithmetic needs cta_size x ilp vectors per window,
// and all `ctas` CTAs of an SM must be resident at once (registers included: a grid that runs in
// waves reads only part of the working set at a time and overstates the bandwidth of the whole).
inline bool cached_read_fits(const CachedReadConfig& c) {
  const auto& dev = device();
  const void* fn = cached_kernel(c);
  if (!fn) return false;
  if (c.carveout >= 0)
    MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, c.carveout));
  int resident = 0;
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, fn, c.cta_size, 0));
  if (resident < c.ctas) return false;
  const std::uint64_t n = c.bytes / 16;
  const std::uint64_t grid = static_cast<std::uint64_t>(c.ctas) * dev.d.sm_count;
  const std::uint64_t window = cached_window(c);
  (void)grid;
  return c.cta_size * c.ctas <= dev.max_threads_per_sm && c.ctas <= dev.max_blocks_per_sm &&
         static_cast<std::uint64_t>(c.cta_size) * c.ilp <= window && window <= n && n < (1ull << 31);
}

template <kern::CacheOp Op, int ILP>
void launch_cached(const CachedReadConfig& c, std::uint32_t n, std::uint32_t window, std::uint32_t start_step,
                   std::uint32_t rounds, kern::CtaStamp* stamps, WorkingSet& ws) {
  const int grid = c.ctas * device().d.sm_count;
  auto fn = c.tile ? kern::cached_read<Op, ILP, true> : kern::cached_read<Op, ILP, false>;
  if (c.carveout >= 0)
    MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, c.carveout));
  const std::uint32_t phase = c.tile && c.stagger ? static_cast<std::uint32_t>(window * 0.6180339887) : 0u;
  fn<<<grid, c.cta_size>>>(ws.buf.get(), n, window, start_step, rounds, stamps, ws.sink.get(),
                           static_cast<std::uint32_t>(std::max(1, c.share)), phase);
  MEMHIER_LAUNCH_CHECK();
}

template <kern::CacheOp Op>
void launch_cached_ilp(const CachedReadConfig& c, std::uint32_t n, std::uint32_t window, std::uint32_t start_step,
                       std::uint32_t rounds, kern::CtaStamp* stamps, WorkingSet& ws) {
  switch (c.ilp) {
    case 1: return launch_cached<Op, 1>(c, n, window, start_step, rounds, stamps, ws);
    case 2: return launch_cached<Op, 2>(c, n, window, start_step, rounds, stamps, ws);
    case 4: return launch_cached<Op, 4>(c, n, window, start_step, rounds, stamps, ws);
    case 8: return launch_cached<Op, 8>(c, n, window, start_step, rounds, stamps, ws);
    case 16: return launch_cached<Op, 16>(c, n, window, start_step, rounds, stamps, ws);
  }
  throw std::invalid_argument("ilp must be 1, 2, 4, 8 or 16");
}

// Runs the timed loop. `expect_bytes_per_clock_per_sm` sizes a sample (about 2 ms at that rate; 1 ms
// samples changed which configuration gives the shared-lines peak on the H100 from run to run,
// 20.0 vs 21.5 TB/s: a false alarm of the gate).
// Counters: bytes_per_second, bytes_per_clock_per_sm (with the SM clock measured in the kernel,
// sm_clock_mhz), pct_of_peak against `peak_bytes_per_clock_per_sm` (when > 0).
inline void run_cached_read(benchmark::State& state, const CachedReadConfig& c, double expect_bytes_per_clock_per_sm,
                            double peak_bytes_per_clock_per_sm, double sample_seconds = 1e-3) {
  const auto& dev = device();
  if (!cached_read_fits(c)) throw std::invalid_argument("configuration does not fit the working set");
  WorkingSet& ws = working_set(c.bytes);
  const std::uint32_t n = static_cast<std::uint32_t>(c.bytes / 16);
  const int grid = c.ctas * dev.d.sm_count;
  const std::uint32_t window = static_cast<std::uint32_t>(cached_window(c));
  // L1: CTA starts spread by a golden-ratio step over the working set (multiples of 32 vectors).
  const std::uint32_t start_step =
      c.tile ? static_cast<std::uint32_t>(n / std::max<std::uint64_t>(1, grid / std::max(1, c.share)))
             : static_cast<std::uint32_t>(static_cast<std::uint64_t>(n * 0.6180339887) / 32 * 32 + 32);
  const std::uint64_t per_round = static_cast<std::uint64_t>(grid) * c.cta_size * c.ilp * 16 *
                                  ((window + c.cta_size * c.ilp - 1) / (c.cta_size * c.ilp));
  const double clk = dev.d.sm_clock_khz * 1e3;
  // a sample moves what the expected rate moves in sample_seconds (docs/methodology.md, l1_throughput / l2_throughput)
  const double target = expect_bytes_per_clock_per_sm * dev.d.sm_count * clk * sample_seconds;
  const std::uint32_t rounds = static_cast<std::uint32_t>(std::clamp<double>(target / per_round, 1, 1e6));
  DeviceBuffer<kern::CtaStamp> stamps(grid);
  auto launch = [&](std::uint32_t r) {
    if (c.op == kern::CacheOp::ca)
      launch_cached_ilp<kern::CacheOp::ca>(c, n, window, start_step, r, stamps.get(), ws);
    else if (c.op == kern::CacheOp::na)
      launch_cached_ilp<kern::CacheOp::na>(c, n, window, start_step, r, stamps.get(), ws);
    else
      launch_cached_ilp<kern::CacheOp::cg>(c, n, window, start_step, r, stamps.get(), ws);
  };
  launch(1);  // warm: the working set into the cache
  MEMHIER_CUDA(cudaDeviceSynchronize());
  EventTimer timer;
  std::vector<double> secs, hz, cta_med, cta_max;
  for (auto _ : state) {
    timer.start();
    launch(rounds);
    timer.stop();
    const double t = timer.seconds();
    secs.push_back(t);
    const auto st = stamps.download();
    hz.push_back(clock_hz_from_stamps(st));
    std::vector<double> cyc;  // each CTA's own time: the tail a static layout pays
    for (const auto& s : st)
      if (s.clk1 > s.clk0) cyc.push_back(static_cast<double>(s.clk1 - s.clk0));
    cta_med.push_back(median(cyc));
    cta_max.push_back(cyc.empty() ? 0 : *std::max_element(cyc.begin(), cyc.end()));
    state.SetIterationTime(t);
  }
  state.counters["cta_cycles_median"] = median(cta_med);
  state.counters["cta_cycles_max"] = median(cta_max);
  const double bytes = static_cast<double>(per_round) * rounds;
  const double bps = bytes / median(secs);
  const double f = median(hz) > 0 ? median(hz) : clk;
  const double bpc = bps / f / dev.d.sm_count;
  state.counters["bytes_per_second"] = bps;
  state.counters["bytes_per_clock_per_sm"] = bpc;
  state.counters["bytes_per_clock"] = bps / f;
  state.counters["sm_clock_mhz"] = f * 1e-6;
  if (peak_bytes_per_clock_per_sm > 0) state.counters["pct_of_peak"] = 100.0 * bpc / peak_bytes_per_clock_per_sm;
  state.counters["warps_per_sm"] = static_cast<double>(c.ctas) * ((c.cta_size + 31) / 32);
  state.counters["bytes_in_flight_per_sm"] = static_cast<double>(c.ctas) * c.cta_size * c.ilp * 16;
}

inline std::string cached_read_name(const char* family, const CachedReadConfig& c) {
  BenchName n(family);
  n.add("bytes", static_cast<std::int64_t>(c.bytes)).add("cta_size", c.cta_size).add("ctas", c.ctas).add("ilp", c.ilp);
  if (c.carveout >= 0) n.add("carveout", c.carveout);
  // L2 with every CTA reading the whole working set (staggered starts) instead of a tile of it.
  if (c.op != kern::CacheOp::ca && !c.tile) n.add("layout", "all");
  if (c.tile && c.overlap > 1) n.add("overlap", c.overlap);
  if (c.tile && c.share > 1) n.add("share", c.share);
  if (c.tile && c.op != kern::CacheOp::cg) n.add("op", c.op == kern::CacheOp::ca ? "ca" : "na");
  if (c.tile && c.stagger) n.add("stagger", 1);
  return n.str();
}

}  // namespace memhier::tput
