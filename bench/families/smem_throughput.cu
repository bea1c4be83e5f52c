// smem_throughput: shared-to-shared copy throughput per SM (000 §6.1, Fig. 15/16), timed inside
// each CTA with barriers and clock reads; an SM's time is from its first CTA's start to its last
// CTA's end (its own clock), its bytes the sum over its CTAs (each copied byte is read and written:
// 2 x bytes copied).
//   name: smem_throughput/width:{4,8,16}/ilp:N/cta_size:N/ctas_per_sm:N
// Configurations whose CTAs cannot all be resident at once (occupancy API) are not registered.
// Counters: bytes_per_clock_per_sm (median over SMs), bytes_per_second (x SMs x the clock from
// the device), pct_of_peak against banks x bank width per clock, warps_per_sm.

#include "bench/families/gmem_throughput.hpp"
#include "bench/core/guard.hpp"
#include "bench/core/registry.hpp"
#include "bench/core/sm_span.hpp"
#include "kernels/smem.cuh"
#include "runtime/event_timer.hpp"

namespace memhier {
namespace {

struct Config {
  int width, ilp, cta_size, ctas_per_sm;
  std::size_t smem_bytes() const { return 2ull * ilp * cta_size * width; }
};

template <int W, int ILP>
auto kernel_of() {
  return kern::smem_copy<typename tput::VecOf<W>::type, ILP>;
}

using KernelFn = void (*)(std::uint32_t, kern::SmemStamp*);

KernelFn pick(int width, int ilp) {
  auto by_ilp = [ilp](auto k1, auto k2, auto k4, auto k8) -> KernelFn {
    switch (ilp) {
      case 1: return k1;
      case 2: return k2;
      case 4: return k4;
      case 8: return k8;
    }
    throw std::invalid_argument("ilp must be 1, 2, 4 or 8");
  };
  if (width == 4) return by_ilp(kernel_of<4, 1>(), kernel_of<4, 2>(), kernel_of<4, 4>(), kernel_of<4, 8>());
  if (width == 8) return by_ilp(kernel_of<8, 1>(), kernel_of<8, 2>(), kernel_of<8, 4>(), kernel_of<8, 8>());
  if (width == 16) return by_ilp(kernel_of<16, 1>(), kernel_of<16, 2>(), kernel_of<16, 4>(), kernel_of<16, 8>());
  throw std::invalid_argument("width must be 4, 8 or 16");
}

// CTAs of this configuration that one SM holds at once (0: none).
int resident(const Config& c) {
  KernelFn fn = pick(c.width, c.ilp);
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(tput::device().d.smem_per_block_optin_bytes)));
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  int blocks = 0;
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, c.cta_size, c.smem_bytes()));
  return blocks;
}

void run_config(benchmark::State& state, const Config& c) {
  const auto& dev = tput::device();
  if (resident(c) < c.ctas_per_sm) throw std::runtime_error("CTAs per SM exceed what one SM holds");
  KernelFn fn = pick(c.width, c.ilp);
  const int grid = c.ctas_per_sm * dev.d.sm_count;
  const double rep_bytes_per_sm = 2.0 * c.smem_bytes() / 2 * c.ctas_per_sm;  // read + write per repetition
  // About 4e5 clocks at the nominal peak per sample (~0.2 ms), at least 16 repetitions (2 under
  // MEMHIER_MIN_WORK: a sanitizer run).
  const double peak = dev.smem_bytes_per_clock_per_sm();
  const auto reps = min_work() ? 2u
                               : static_cast<std::uint32_t>(std::clamp(4e5 * (peak > 0 ? peak : 64) / rep_bytes_per_sm, 16.0, 1e6));
  DeviceBuffer<kern::SmemStamp> stamps(grid);
  auto launch = [&] {
    fn<<<grid, c.cta_size, c.smem_bytes()>>>(reps, stamps.get());
    MEMHIER_LAUNCH_CHECK();
  };
  launch();
  MEMHIER_CUDA(cudaDeviceSynchronize());
  EventTimer timer;
  std::vector<double> bpc_runs;
  for (auto _ : state) {
    timer.start();
    launch();
    timer.stop();
    state.SetIterationTime(timer.seconds());
    // per SM: first start to last end, bytes of all its CTAs (read + written)
    const auto per_sm = per_sm_rates(stamps.download(), 2.0 * c.smem_bytes() / 2 * reps);
    bpc_runs.push_back(tput::median(per_sm));
  }
  const double bpc = tput::median(bpc_runs);
  state.counters["bytes_per_clock_per_sm"] = bpc;
  state.counters["bytes_per_second"] = bpc * dev.d.sm_count * dev.d.sm_clock_khz * 1e3;
  if (peak > 0) state.counters["pct_of_peak"] = 100.0 * bpc / peak;
  state.counters["warps_per_sm"] = static_cast<double>(c.ctas_per_sm) * ((c.cta_size + 31) / 32);
}

void register_smem_throughput(Backend&) {
  const auto& dev = tput::device();
  const bool quick = plan() == Plan::quick;
  std::vector<Config> cfgs;
  auto add = [&](int w, int ilp, int cta, int ctas) {
    Config c{w, ilp, cta, ctas};
    if (cta * ctas > dev.max_threads_per_sm || ctas > dev.max_blocks_per_sm) return;
    if (c.smem_bytes() > dev.d.smem_per_block_optin_bytes) return;
    if (resident(c) < ctas) return;  // the device cannot hold them at once
    cfgs.push_back(c);
  };
  if (quick) {
    add(16, 4, 1024, 1);
    add(4, 4, 256, 2);
  } else {
    for (int w : {4, 8, 16})
      for (int cta : {32, 64, 128, 256, 512, 1024})
        for (int ctas : {1, 2, 4, 8})
          for (int ilp : {1, 2, 4, 8}) {
            if (w == 8 && ilp == 2) continue;  // thinned: 8-byte words at ILP 1, 4, 8
            add(w, ilp, cta, ctas);
          }
  }
  for (const Config& c : cfgs) {
    BenchName n("smem_throughput");
    n.add("width", c.width).add("ilp", c.ilp).add("cta_size", c.cta_size).add("ctas_per_sm", c.ctas_per_sm);
    tput::register_manual(n.str(), 3, [c](benchmark::State& st) { run_config(st, c); });
  }
}

FamilyRegistrar reg("smem_throughput", true, register_smem_throughput);

}  // namespace
}  // namespace memhier
