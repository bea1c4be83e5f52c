// smem_bank_conflict: one warp's shared-memory latency against the stride between its lanes'
// addresses (000 §6.2, Listing 4; 001 Fig. 5/7), for 4, 8 and 16-byte accesses. Lane l reads
// element l x stride (elements of the access width); stride 0 is the broadcast.
//   name: smem_bank_conflict/width:{4,8,16}/stride:N
// Counters: latency_cycles (per access, the empty region's store + clock read removed),
// clock_overhead_cycles (what was removed, per access).
#include "bench/families/gmem_throughput.hpp"
#include "bench/core/registry.hpp"
#include "kernels/smem.cuh"
#include "runtime/event_timer.hpp"

namespace memhier {
namespace {

constexpr std::uint32_t kIterations = 8;

template <typename V>
void run_stride(benchmark::State& state, std::uint32_t stride) {
  const auto& dev = tput::device();
  const std::uint32_t n = 31 * stride + 1 < 32 ? 32 : 31 * stride + 1;
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(V);
  if (bytes > dev.d.smem_per_block_optin_bytes) throw std::runtime_error("stride needs more shared memory than a block may use");
  auto fn = kern::smem_stride_chase<V>;
  cudaFuncAttributes attr{};
  MEMHIER_CUDA(cudaFuncGetAttributes(&attr, fn));  // the static sink[] counts against the opt-in limit
  const std::size_t dyn_max = dev.d.smem_per_block_optin_bytes - attr.sharedSizeBytes;
  if (bytes > dyn_max) throw std::runtime_error("stride needs more shared memory than a block may use");
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dyn_max)));
  DeviceBuffer<std::uint64_t> out(3);
  EventTimer timer;
  std::vector<double> lat, ovh;
  for (auto _ : state) {
    timer.start();
    fn<<<1, 32, bytes>>>(n, stride, kIterations, out.get());
    MEMHIER_LAUNCH_CHECK();
    timer.stop();
    state.SetIterationTime(timer.seconds());
    auto o = out.download();
    const double per = static_cast<double>(kIterations) * kern::kConflictChain;
    lat.push_back((static_cast<double>(o[0]) - static_cast<double>(o[1])) / per);
    ovh.push_back(static_cast<double>(o[1]) / per);
  }
  state.counters["latency_cycles"] = tput::median(lat);
  state.counters["clock_overhead_cycles"] = tput::median(ovh);
}

void register_smem_bank_conflict(Backend&) {
  const bool quick = plan() == Plan::quick;
  for (int w : {4, 8, 16}) {
    std::vector<std::uint32_t> strides;
    if (quick) {
      strides = {0, 1, 2, 32};
    } else {
      for (std::uint32_t s = 0; s <= 64; ++s) strides.push_back(s);
      for (std::uint32_t s : {96u, 128u}) strides.push_back(s);  // beyond 64: the law's period
    }
    for (std::uint32_t s : strides) {
      BenchName n("smem_bank_conflict");
      n.add("width", w).add("stride", static_cast<std::int64_t>(s));
      tput::register_manual(n.str(), 3, [w, s](benchmark::State& st) {
        if (w == 4) run_stride<std::uint32_t>(st, s);
        else if (w == 8) run_stride<uint2>(st, s);
        else run_stride<uint4>(st, s);
      });
    }
  }
}

FamilyRegistrar reg("smem_bank_conflict", true, register_smem_bank_conflict);

}  // namespace
}  // namespace memhier
