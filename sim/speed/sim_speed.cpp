// memhier-sim-speed: how many accesses per second the simulated device answers on one core
// (counter accesses_per_second; the warm pass counts, it is simulated as well). Workloads are the
// P-chases the families run: an L1-side footprint twice the first level (misses to L2), a 4-byte
// stride (repeat accesses to one line), and a TLB sweep point (2 MiB stride over 72 pages).
//   memhier-sim-speed [--sim_config_dir=DIR] [Google Benchmark flags]
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "sim/device.hpp"

namespace {

using namespace memhier::sim;

std::string g_config_dir = MEMHIER_SIM_CONFIG_DIR;

std::vector<std::uint32_t> uniform(std::uint64_t bytes, std::uint64_t stride) {
  std::vector<std::uint32_t> c;
  for (std::uint64_t b = 0; b < bytes; b += stride) c.push_back(static_cast<std::uint32_t>(b / 4));
  return c;
}

void run(benchmark::State& state, const std::string& cfg_name, const std::string& path, std::uint64_t bytes,
         std::uint64_t stride) {
  std::unique_ptr<SimDevice> dev;
  try {
    dev = std::make_unique<SimDevice>(load_config(g_config_dir + "/" + cfg_name + ".json"));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const int pid = dev->path_id(path);
  if (pid < 0) {
    state.SkipWithError(("path " + path + " not mapped").c_str());
    return;
  }
  const auto chain = uniform(bytes, stride);
  ChaseSpec s;
  s.path = pid;
  s.chain = &chain;
  s.iters = 1u << 20;
  s.warm = true;
  s.hist_bins = 1024;
  s.hist_bin_width = 4;
  std::uint64_t accesses = 0, cycles = 0;
  for (auto _ : state) {
    ChaseOutcome o = run_chase(*dev, s);
    accesses += o.accesses + chain.size();
    cycles += o.total_cycles;
    benchmark::DoNotOptimize(o.total_cycles);
  }
  state.counters["accesses_per_second"] = benchmark::Counter(static_cast<double>(accesses), benchmark::Counter::kIsRate);
  state.counters["mean_latency_cycles"] = static_cast<double>(cycles) / static_cast<double>(state.iterations() * s.iters);
}

struct Case {
  const char* config;
  const char* path;
  std::uint64_t bytes, stride;
  const char* what;
};

const Case kCases[] = {
    {"fermi_l1_16k", "global_ca", 32768, 128, "l1_overflow"},
    {"fermi_l1_16k", "global_ca", 16512, 128, "l1_plus_one_line"},
    {"fermi_l1_16k", "global_ca", 65536, 4, "stride4"},
    {"kepler_texture_l1", "texture", 24576, 32, "l1_overflow"},
    {"maxwell_readonly_24k", "ldg", 49152, 32, "l1_overflow"},
    {"plain_lru", "global_ca", 65536, 32, "l1_overflow"},
    {"plain_lru", "global_cg", 2u << 20, 128, "l2_overflow"},
    {"tlb_000", "global_cg", 72ull << 21, 2u << 20, "tlb_2MiB_stride"},
    {"hopper_like", "global_ca", 491520, 128, "l1_overflow_qlru_gf2"},
    {"hopper_like", "global_cg", 16u << 20, 128, "l2_overflow_random_gf2"},
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> keep{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--sim_config_dir=", 17) == 0) g_config_dir = argv[i] + 17;
    else keep.push_back(argv[i]);
  }
  int n = static_cast<int>(keep.size());
  for (const Case& c : kCases) {
    const std::string name = std::string("sim_speed/config:") + c.config + "/path:" + c.path + "/bytes:" +
                             std::to_string(c.bytes) + "/stride:" + std::to_string(c.stride) + "/what:" + c.what;
    const Case cc = c;
    benchmark::RegisterBenchmark(name.c_str(), [cc](benchmark::State& st) { run(st, cc.config, cc.path, cc.bytes, cc.stride); })
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&n, keep.data());
  if (benchmark::ReportUnrecognizedArguments(n, keep.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
