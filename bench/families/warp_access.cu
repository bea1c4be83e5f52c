// warp_access: one warp's latency per access for the access patterns of 004 (broadcast,
// parallel, strided, misaligned, permuted) on shared, constant, global (L1 path) and texture
// memory, and a private per-thread array in registers or in local memory.
//   name: warp_access/memory:{shared,constant,global,texture}/pattern:P[/stride:N]
//         warp_access/memory:{register,local}/pattern:private
// Counters: latency_cycles (per access, the empty region's store + clock read removed),
// clock_overhead_cycles.
#include "bench/families/gmem_throughput.hpp"
#include "bench/core/registry.hpp"
#include "kernels/warp_access.cuh"
#include "runtime/event_timer.hpp"

namespace memhier {
namespace {

using kern::WarpMem;
using kern::WarpPattern;

constexpr std::uint32_t kIterations = 8;
constexpr std::uint32_t kWords = 2048;  // covers 32 lanes x stride 32 + 1

const char* mem_name(WarpMem m) {
  switch (m) {
    case WarpMem::shared: return "shared";
    case WarpMem::constant: return "constant";
    case WarpMem::global: return "global";
    case WarpMem::texture: return "texture";
  }
  return "?";
}
const char* pattern_name(WarpPattern p) {
  switch (p) {
    case WarpPattern::broadcast: return "broadcast";
    case WarpPattern::parallel: return "parallel";
    case WarpPattern::strided: return "strided";
    case WarpPattern::misaligned: return "misaligned";
    case WarpPattern::permuted: return "permuted";
  }
  return "?";
}

// Zeroed global words, a texture over them, and the zeroed constant array (this TU's symbol).
struct Arrays {
  DeviceBuffer<std::uint32_t> words{kWords};
  TextureObject tex;
  DeviceBuffer<std::uint64_t> out{3};
  Arrays() {
    words.zero();
    tex = TextureObject(words.get(), words.size());
    std::vector<std::uint32_t> zeros(kern::kWarpConstWords, 0);
    upload_constant(kern::c_warp, zeros.data(), zeros.size());
  }
};

Arrays& arrays() {
  static Arrays* a = new Arrays;  // kept for the process's life (see gmem_throughput.cu)
  return *a;
}

void report(benchmark::State& state, const std::vector<double>& lat, const std::vector<double>& ovh) {
  state.counters["latency_cycles"] = tput::median(lat);
  state.counters["clock_overhead_cycles"] = tput::median(ovh);
}

void run_pattern(benchmark::State& state, WarpMem m, WarpPattern p, std::uint32_t stride) {
  Arrays& a = arrays();
  EventTimer timer;
  std::vector<double> lat, ovh;
  const std::size_t smem = m == WarpMem::shared ? kWords * 4 : 0;
  for (auto _ : state) {
    timer.start();
    switch (m) {
      case WarpMem::shared:
        kern::warp_pattern_chase<WarpMem::shared><<<1, 32, smem>>>(a.words.get(), a.tex.get(), kWords, p, stride, kIterations, 0u, a.out.get());
        break;
      case WarpMem::constant:
        kern::warp_pattern_chase<WarpMem::constant><<<1, 32>>>(a.words.get(), a.tex.get(), kWords, p, stride, kIterations, 0u, a.out.get());
        break;
      case WarpMem::global:
        kern::warp_pattern_chase<WarpMem::global><<<1, 32>>>(a.words.get(), a.tex.get(), kWords, p, stride, kIterations, 0u, a.out.get());
        break;
      case WarpMem::texture:
        kern::warp_pattern_chase<WarpMem::texture><<<1, 32>>>(a.words.get(), a.tex.get(), kWords, p, stride, kIterations, 0u, a.out.get());
        break;
    }
    MEMHIER_LAUNCH_CHECK();
    timer.stop();
    state.SetIterationTime(timer.seconds());
    auto o = a.out.download();
    const double per = static_cast<double>(kIterations) * kern::kWarpChain;
    lat.push_back((static_cast<double>(o[0]) - static_cast<double>(o[1])) / per);
    ovh.push_back(static_cast<double>(o[1]) / per);
  }
  report(state, lat, ovh);
}

void run_private(benchmark::State& state, bool local) {
  Arrays& a = arrays();
  EventTimer timer;
  std::vector<double> lat, ovh;
  for (auto _ : state) {
    timer.start();
    if (local)
      kern::private_array_chase<true><<<1, 32>>>(0, kIterations, a.out.get());
    else
      kern::private_array_chase<false><<<1, 32>>>(0, kIterations, a.out.get());
    MEMHIER_LAUNCH_CHECK();
    timer.stop();
    state.SetIterationTime(timer.seconds());
    auto o = a.out.download();
    const double per = static_cast<double>(kIterations) * kern::kPrivateChain;
    lat.push_back((static_cast<double>(o[0]) - static_cast<double>(o[1])) / per);
    ovh.push_back(static_cast<double>(o[1]) / per);
  }
  report(state, lat, ovh);
}

void register_warp_access(Backend&) {
  const bool quick = plan() == Plan::quick;
  const std::vector<WarpMem> mems = {WarpMem::shared, WarpMem::constant, WarpMem::global, WarpMem::texture};
  for (WarpMem m : mems) {
    struct P {
      WarpPattern p;
      std::uint32_t stride;
    };
    std::vector<P> ps = {{WarpPattern::broadcast, 0}, {WarpPattern::parallel, 1}, {WarpPattern::strided, 2},
                         {WarpPattern::misaligned, 1}, {WarpPattern::permuted, 1}};
    if (!quick) ps.push_back({WarpPattern::strided, 32});
    for (const P& p : ps) {
      BenchName n("warp_access");
      n.add("memory", mem_name(m)).add("pattern", pattern_name(p.p));
      if (p.p == WarpPattern::strided) n.add("stride", static_cast<std::int64_t>(p.stride));
      tput::register_manual(n.str(), 3, [m, p](benchmark::State& st) { run_pattern(st, m, p.p, p.stride); });
    }
  }
  for (bool local : {false, true}) {
    BenchName n("warp_access");
    n.add("memory", local ? "local" : "register").add("pattern", "private");
    tput::register_manual(n.str(), 3, [local](benchmark::State& st) { run_private(st, local); });
  }
}

FamilyRegistrar reg("warp_access", true, register_warp_access);

}  // namespace
}  // namespace memhier
