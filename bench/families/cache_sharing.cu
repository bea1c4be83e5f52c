// cache_sharing (003 §4.5) and caches_per_sm (003 §4.6): a victim's data are filled into its cache,
// an evictor streams 4 x the per-SM L1/shared array through a path, the victim is re-read with
// every access timed. docs/methodology.md, section requests_sharing_partitions.
//   cache_sharing/victim:<cache>/bytes:F   counters <E>_miss_rate, <E>_latency_cycles per evictor E
//                                          (none = reference, the victim's own path = control)
//   caches_per_sm/cache:<cache>/bytes:F    counters reference_*, control_* (evictor in warp 0),
//                                          w<w>_miss_rate, w<w>_latency_cycles (evictor in warp w)
// Caches: l1 (ld.global.ca), texture (tex1Dfetch), readonly (ld.global.nc), constant_l1 and
// constant_l15 (ld.const: footprints inside / beyond the constant L1). Carveout 0.
#include <algorithm>
#include <string>
#include <vector>

#include "bench/families/gmem_throughput.hpp"
#include "bench/core/registry.hpp"
#include "common/levels.hpp"
#include "kernels/cache_sharing.cuh"
#include "runtime/event_timer.hpp"

namespace memhier {
namespace {

using kern::LoadPath;
constexpr int kReps = 3;
constexpr int kCarveout = 0;

struct CacheKind {
  std::string name;
  LoadPath path;
  std::uint32_t stride_bytes;  // victim chain stride: the fill granularity (constant: 64-byte lines)
};

const CacheKind& cache_kind(const std::string& n) {
  static const std::vector<CacheKind> all = {{"l1", LoadPath::global_ca, 32},
                                             {"texture", LoadPath::texture, 32},
                                             {"readonly", LoadPath::ldg, 32},
                                             {"constant_l1", LoadPath::constant, 64},
                                             {"constant_l15", LoadPath::constant, 64},
                                             {"constant", LoadPath::constant, 4}};
  for (const auto& c : all)
    if (c.name == n) return c;
  throw std::invalid_argument("unknown cache " + n);
}

Path backend_path(LoadPath p) {
  switch (p) {
    case LoadPath::global_ca: return Path::global_ca;
    case LoadPath::texture: return Path::texture;
    case LoadPath::ldg: return Path::ldg;
    case LoadPath::constant: return Path::constant;
    default: break;
  }
  throw std::invalid_argument("no backend path for this load path");
}

// The per-SM L1/shared array rounded up to a power of two (H100: 256 KiB): the scale of the
// footprints and of the evictor stream (4 x).
std::uint64_t array_scale() {
  std::uint64_t s = 1;
  while (s < tput::device().d.smem_per_sm_bytes) s <<= 1;
  return s;
}

struct Arrays {
  std::uint64_t scale = array_scale();
  DeviceBuffer<std::uint32_t> victim{scale / 4 / 4};  // up to S/4 bytes
  DeviceBuffer<std::uint32_t> evictor{scale};         // 4 x S bytes
  TextureObject victim_tex, evictor_tex;
  DeviceBuffer<unsigned long long> out{4};
  Arrays() {
    victim.zero();
    evictor.zero();
    victim_tex = TextureObject(victim.get(), victim.size());
    evictor_tex = TextureObject(evictor.get(), evictor.size());
  }
};

Arrays& arrays() {
  static Arrays* a = new Arrays;  // kept for the process's life (see gmem_throughput.cu)
  return *a;
}

// Victim chain of `bytes` at the cache's stride: element e -> e + stride (cyclic), in the global
// victim array or in the constant symbol (elements [0, bytes/4)).
void write_victim(const CacheKind& v, std::uint64_t bytes) {
  const std::uint32_t n = static_cast<std::uint32_t>(bytes / 4), st = v.stride_bytes / 4;
  std::vector<std::uint32_t> h(n, 0);
  for (std::uint32_t e = 0; e < n; e += st) h[e] = (e + st) % n;
  if (v.path == LoadPath::constant) {
    h.resize(kern::kConstElements, 0);  // the rest of the bank: the constant evictor's stream
    upload_constant(kern::c_chase, h.data(), h.size());
  } else {
    arrays().victim.upload(h);
  }
}

using ShareKernel = void (*)(kern::ShareArgs);
template <LoadPath V, LoadPath E>
ShareKernel pick(bool evict) {
  return evict ? kern::sharing_kernel<V, E, true> : kern::sharing_kernel<V, E, false>;
}
template <LoadPath V>
ShareKernel pick_e(LoadPath e, bool evict) {
  switch (e) {
    case LoadPath::global_ca: return pick<V, LoadPath::global_ca>(evict);
    case LoadPath::texture: return pick<V, LoadPath::texture>(evict);
    case LoadPath::ldg: return pick<V, LoadPath::ldg>(evict);
    case LoadPath::constant: return pick<V, LoadPath::constant>(evict);
    default: break;
  }
  throw std::invalid_argument("unsupported evictor path");
}
ShareKernel share_kernel(LoadPath v, LoadPath e, bool evict) {
  switch (v) {
    case LoadPath::global_ca: return pick_e<LoadPath::global_ca>(e, evict);
    case LoadPath::texture: return pick_e<LoadPath::texture>(e, evict);
    case LoadPath::ldg: return pick_e<LoadPath::ldg>(e, evict);
    case LoadPath::constant: return pick_e<LoadPath::constant>(e, evict);
    default: break;
  }
  throw std::invalid_argument("unsupported victim path");
}

struct Outcome {
  double latency_cycles = 0, miss_rate = 0;
};

struct Run {
  const CacheKind* victim;
  std::uint64_t bytes;
  const CacheKind* evictor;  // nullptr: reference
  std::uint32_t evictor_thread = 1, evictor_threads = 31, block = 32;
};

// The victim's or the evictor's arrays (the constant path reads c_chase whatever these say).
kern::LoadSource source(bool victim) {
  Arrays& a = arrays();
  kern::LoadSource s{};
  s.global = victim ? a.victim.get() : a.evictor.get();
  s.tex = victim ? a.victim_tex.get() : a.evictor_tex.get();
  return s;
}

// One configuration, kReps times (the victim chain must be in place): medians.
Outcome run_once(const Run& r) {
  Arrays& a = arrays();
  Backend& be = backend();
  kern::ShareArgs s{};
  s.victim = source(true);
  s.victim_start = 0;
  s.victim_accesses = static_cast<std::uint32_t>(r.bytes / r.victim->stride_bytes);
  const LoadPath ep = r.evictor ? r.evictor->path : r.victim->path;
  s.evictor = source(false);
  if (ep == LoadPath::constant) {  // the bank beyond the victim's elements
    s.evictor_first = r.victim->path == LoadPath::constant ? static_cast<std::uint32_t>(r.bytes / 4) : 0;
    s.evictor_elems = kern::kConstElements - s.evictor_first;
  } else {
    s.evictor_first = 0;
    s.evictor_elems = static_cast<std::uint32_t>(a.evictor.size());
  }
  s.evictor_stride = ep == LoadPath::constant ? 16 : 8;  // 64-byte constant lines, 32-byte sectors
  s.evictor_thread = r.evictor_thread;
  s.evictor_threads = r.evictor_threads;
  s.miss_threshold = static_cast<std::uint32_t>(kLevelRatio * be.hit_baseline(backend_path(r.victim->path)) + 0.5);
  s.overhead = static_cast<std::uint32_t>(be.clock_overhead().fine_cycles + 0.5);
  s.out = a.out.get();
  ShareKernel fn = share_kernel(r.victim->path, ep, r.evictor != nullptr);
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, kCarveout));
  std::vector<double> lat, miss;
  for (int rep = 0; rep < kReps; ++rep) {
    fn<<<1, r.block>>>(s);
    MEMHIER_LAUNCH_CHECK();
    const auto o = a.out.download();
    if (o[2] == 0) throw std::runtime_error("the sharing kernel recorded no access");
    lat.push_back(static_cast<double>(o[0]) / static_cast<double>(o[2]));
    miss.push_back(static_cast<double>(o[1]) / static_cast<double>(o[2]));
  }
  return {tput::median(lat), tput::median(miss)};
}

void put(benchmark::State& st, const std::string& prefix, const Outcome& o) {
  st.counters[prefix + "_miss_rate"] = o.miss_rate;
  st.counters[prefix + "_latency_cycles"] = o.latency_cycles;
}

// cache_sharing: the reference, then every evictor path.
void run_sharing(benchmark::State& state, const std::string& victim, std::uint64_t bytes,
                 const std::vector<std::string>& evictors) {
  const CacheKind& v = cache_kind(victim);
  for (auto _ : state) {
    EventTimer t;
    t.start();
    write_victim(v, bytes);
    const Outcome ref = run_once({&v, bytes, nullptr});
    put(state, "none", ref);
    for (const auto& e : evictors) put(state, e, run_once({&v, bytes, &cache_kind(e)}));
    t.stop();
    state.SetIterationTime(t.seconds());
    state.counters["latency_cycles"] = ref.latency_cycles;
    state.counters["accesses"] = static_cast<double>(bytes / v.stride_bytes);
    state.counters["carveout"] = kCarveout;
  }
}

// caches_per_sm: the reference, the control (evictor = lanes 1..31 of warp 0), then warp w = 1..
void run_per_sm(benchmark::State& state, const std::string& cache, std::uint64_t bytes, int warps) {
  const CacheKind& v = cache_kind(cache);
  const CacheKind& e = v.path == LoadPath::constant ? cache_kind("constant") : v;
  const std::uint32_t block = static_cast<std::uint32_t>(32 * std::max(warps, 1));
  for (auto _ : state) {
    EventTimer t;
    t.start();
    write_victim(v, bytes);
    const Outcome ref = run_once({&v, bytes, nullptr, 1, 31, block});
    put(state, "reference", ref);
    put(state, "control", run_once({&v, bytes, &e, 1, 31, block}));
    for (int w = 1; w < warps; ++w)
      put(state, "w" + std::to_string(w), run_once({&v, bytes, &e, static_cast<std::uint32_t>(32 * w), 32, block}));
    t.stop();
    state.SetIterationTime(t.seconds());
    state.counters["latency_cycles"] = ref.latency_cycles;
    state.counters["warps"] = warps;
    state.counters["accesses"] = static_cast<double>(bytes / v.stride_bytes);
    state.counters["carveout"] = kCarveout;
  }
}

void register_cache_sharing(Backend&) {
  const bool quick = plan() == Plan::quick;
  const std::uint64_t s = array_scale();
  struct V {
    std::string cache;
    std::vector<std::uint64_t> bytes;
    std::vector<std::string> evictors;
  };
  const std::vector<std::string> l1side = {"l1", "texture", "readonly"};
  const std::vector<std::string> constside = {"constant", "l1", "texture", "readonly"};
  std::vector<V> vs = {{"l1", {s / 8, s / 4}, l1side},
                       {"texture", {s / 8, s / 4}, l1side},
                       {"readonly", {s / 8, s / 4}, l1side},
                       {"constant_l1", {512, 1024}, constside},
                       {"constant_l15", {8192, 16384}, constside}};
  for (const V& v : vs)
    for (std::uint64_t b : v.bytes) {
      if (quick && b != v.bytes.back()) continue;
      const std::string name = BenchName("cache_sharing").add("victim", v.cache).add("bytes", static_cast<std::int64_t>(b)).str();
      tput::register_manual(name, 1, [v, b](benchmark::State& st) { run_sharing(st, v.cache, b, v.evictors); });
    }
}

void register_caches_per_sm(Backend&) {
  const bool quick = plan() == Plan::quick;
  const std::uint64_t s = array_scale();
  int max_block = 1024;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&max_block, cudaDevAttrMaxThreadsPerBlock, 0));
  const int warps = quick ? 5 : max_block / 32;
  struct C {
    std::string cache;
    std::vector<std::uint64_t> bytes;
  };
  const std::vector<C> cs = {{"l1", {s / 16, s / 8, s / 4}},
                             {"texture", {s / 16, s / 8, s / 4}},
                             {"readonly", {s / 16, s / 8, s / 4}},
                             {"constant_l1", {256, 512, 1024}}};
  for (const C& c : cs)
    for (std::uint64_t b : c.bytes) {
      if (quick && b != c.bytes[1]) continue;
      const std::string name = BenchName("caches_per_sm").add("cache", c.cache).add("bytes", static_cast<std::int64_t>(b)).str();
      tput::register_manual(name, 1, [c, b, warps](benchmark::State& st) { run_per_sm(st, c.cache, b, warps); });
    }
}

FamilyRegistrar reg_sharing("cache_sharing", true, register_cache_sharing);
FamilyRegistrar reg_per_sm("caches_per_sm", true, register_caches_per_sm);

}  // namespace
}  // namespace memhier
