// outstanding_requests (002 §3, Listing 1): Thread-Latency series of one SM. docs/methodology.md,
// section requests_sharing_partitions.
//   outstanding_requests/probe:warp_loads           per-warp limit of independent loads (first)
//   outstanding_requests/pattern:P/loads:L          one series: threads 2..limit step 2
//   outstanding_requests/pattern:P/loads:L/source:dram   the same with every line from DRAM (no
//       warm-up, a 512 MiB region): a table of E entries would make the ramp steeper by the latency
//       ratio, an issue rate would leave it as it is
// P: unique128 (one 128-byte line per load), unique32 (one 32-byte sector per load), merge<K>
// (K = 2..32 neighbouring lanes share an address). Each series writes a trace (index = threads,
// latency = median cycles until every value was consumed; docs/formats.md).
// Counters: latency_cycles (two threads), max_latency_cycles, points, invalid_samples,
// warp_load_limit, beyond_warp_limit, carveout, threads_limit (the largest thread count run),
// pinned_ctas_per_sm (the occupancy query for the two-CTA mode) (probe: warp_load_limit,
// warp_load_limit_reached, latency_cycles of one load).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "bench/families/gmem_throughput.hpp"
#include "bench/families/sm_ids.hpp"
#include "bench/core/registry.hpp"
#include "kernels/outstanding.cuh"
#include "runtime/event_timer.hpp"

namespace memhier {
namespace {

constexpr std::uint64_t kRegionBytes = 16ull << 20;  // L2-resident region the loads rotate through
constexpr std::uint64_t kDramRegionBytes = 512ull << 20;  // source:dram: a line returns after 512 MiB
constexpr int kReps = 3;                              // samples per point (median)
constexpr int kProbeReps = 5;
constexpr std::uint32_t kStartMargin = 4000;          // cycles: see the kernel's rendezvous
constexpr int kCarveout = 0;                          // largest L1

struct Region {
  DeviceBuffer<std::uint32_t> words{kRegionBytes / 4};
  DeviceBuffer<std::uint32_t> sink{4096};
  DeviceBuffer<unsigned long long> probe_out{2};
  Region() {
    kern::fill_words<std::uint32_t><<<tput::device().d.sm_count * 4, 512>>>(words.get(), words.size(), 1u);
    MEMHIER_LAUNCH_CHECK();
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }
  // Every SM reads the region through the L2 (ld.global.cg): each partition then holds it.
  void warm() {
    kern::warm_l2_region<<<tput::device().d.sm_count, 1024>>>(words.get(), words.size(), sink.get());
    MEMHIER_LAUNCH_CHECK();
  }
};

Region& region() {
  static Region* r = new Region;  // kept for the process's life (see gmem_throughput.cu)
  return *r;
}

// source:dram: a region of 512 MiB (>= 8 x the L2 of the GPUs this suite knows) that is never
// warmed; the launches rotate through it and each series starts after a clean L2 flush.
struct DramRegion {
  DeviceBuffer<std::uint32_t> words{kDramRegionBytes / 4};
  tput::L2Flusher flush;
  DramRegion() {
    kern::fill_words<std::uint32_t><<<tput::device().d.sm_count * 4, 512>>>(words.get(), words.size(), 1u);
    MEMHIER_LAUNCH_CHECK();
    MEMHIER_CUDA(cudaDeviceSynchronize());
  }
};

DramRegion& dram_region() {
  static DramRegion* r = new DramRegion;
  return *r;
}

struct Pattern {
  std::string name;
  std::uint32_t unit_bytes, merge;
};

std::vector<Pattern> patterns() {
  std::vector<Pattern> p = {{"unique128", 128, 1}, {"unique32", 32, 1}};
  for (std::uint32_t k : {2u, 4u, 8u, 16u, 32u}) p.push_back({"merge" + std::to_string(k), 128, k});
  return p;
}

// ---- per-warp limit of independent loads ----
struct WarpLimit {
  bool measured = false;
  int limit = 0;                // largest count without a second round trip
  bool reached = false;         // false: no jump up to kWarpProbeMax
  std::vector<int> counts;      // load counts measured (kern::kWarpProbeCounts)
  std::vector<double> latency;  // median cycles of counts[i] loads (clock pair removed)
};

using ProbeKernel = void (*)(const std::uint32_t*, std::uint32_t, unsigned long long*);
ProbeKernel probe_kernel(int n) {
  switch (n) {
    case 1: return kern::warp_loads_probe<1>;
    case 2: return kern::warp_loads_probe<2>;
    case 3: return kern::warp_loads_probe<3>;
    case 4: return kern::warp_loads_probe<4>;
    case 6: return kern::warp_loads_probe<6>;
    case 8: return kern::warp_loads_probe<8>;
    case 12: return kern::warp_loads_probe<12>;
    case 16: return kern::warp_loads_probe<16>;
    case 24: return kern::warp_loads_probe<24>;
    case 32: return kern::warp_loads_probe<32>;
    case 48: return kern::warp_loads_probe<48>;
    case 64: return kern::warp_loads_probe<64>;
  }
  throw std::invalid_argument("no probe kernel for " + std::to_string(n) + " loads");
}
WarpLimit& warp_limit_slot() {
  static WarpLimit w;
  return w;
}

const WarpLimit& measure_warp_limit() {
  WarpLimit& w = warp_limit_slot();
  if (w.measured) return w;
  Region& r = region();
  r.warm();
  const double pair = backend().clock_overhead().clock_pair_cycles;
  const std::uint32_t spacing = 32;  // words: one 128-byte line per load
  std::uint64_t off = 0;
  for (int n : kern::kWarpProbeCounts) {
    std::vector<double> v;
    for (int rep = 0; rep < kProbeReps; ++rep) {
      if (off + static_cast<std::uint64_t>(n) * spacing >= r.words.size()) off = 0;  // fresh lines for this SM's L1
      probe_kernel(n)<<<1, 32>>>(r.words.get() + off, spacing, r.probe_out.get());
      MEMHIER_LAUNCH_CHECK();
      off += static_cast<std::uint64_t>(n) * spacing;
      v.push_back(static_cast<double>(r.probe_out.download(1)[0]) - pair);
    }
    w.counts.push_back(n);
    w.latency.push_back(tput::median(v));
  }
  // The limit: the last count before the latency grows by more than half a one-load latency (a
  // second round trip) from one count to the next.
  w.limit = w.counts.back();
  for (std::size_t i = 1; i < w.counts.size(); ++i)
    if (w.latency[i] - w.latency[i - 1] > 0.5 * w.latency[0]) {
      w.limit = w.counts[i - 1];
      w.reached = true;
      break;
    }
  w.measured = true;
  return w;
}

void run_probe(benchmark::State& state, const std::string& name) {
  for (auto _ : state) {
    EventTimer t;
    t.start();
    warp_limit_slot() = WarpLimit{};
    const WarpLimit& w = measure_warp_limit();
    t.stop();
    state.SetIterationTime(t.seconds());
    Trace tr;
    tr.kind = Trace::Kind::fine;
    tr.benchmark = name;
    tr.meta = {{"content", "warp_loads"}, {"columns_mean", "index=independent loads of one thread, latency=median cycles"}};
    for (std::size_t i = 0; i < w.counts.size(); ++i) {
      tr.index.push_back(static_cast<std::uint32_t>(w.counts[i]));
      tr.latency.push_back(static_cast<std::uint32_t>(std::max(0.0, w.latency[i]) + 0.5));
    }
    write_bench_trace(name, tr);
    state.counters["warp_load_limit"] = w.limit;
    state.counters["warp_load_limit_reached"] = w.reached ? 1 : 0;
    state.counters["latency_cycles"] = w.latency[0];
  }
}

// ---- one Thread-Latency series ----
using SeriesKernel = void (*)(kern::OutstandingArgs);
SeriesKernel series_kernel(int loads) {
  switch (loads) {
    case 1: return kern::outstanding_kernel<1>;
    case 2: return kern::outstanding_kernel<2>;
    case 3: return kern::outstanding_kernel<3>;
    case 4: return kern::outstanding_kernel<4>;
    case 8: return kern::outstanding_kernel<8>;
    case 16: return kern::outstanding_kernel<16>;
  }
  throw std::invalid_argument("loads must be 1, 2, 3, 4, 8 or 16");
}

struct Series {
  Pattern pat;
  int loads;
  std::vector<std::uint32_t> threads;
  bool dram = false;  // source:dram
};

bool sample_ok(const kern::OutstandingSample& s) {
  return s.go != 0 && s.end > s.go && (s.flags & (kern::kOutLate | kern::kOutTimeout)) == 0;
}

// Block size of the two pinned CTAs past 1024 threads: 1024 (the second CTA with T - 1024 active
// threads, so warps are those of one CTA of T threads) where an SM holds 2048 threads, else halves.
unsigned pinned_block(std::uint32_t t) {
  if (tput::device().max_threads_per_sm >= 2048) return 1024;
  return ((t + 1) / 2 + 31) / 32 * 32;
}

// Largest thread count whose pinned CTAs fit one SM together (registers and the carveout's
// shared-memory size included); `ctas` gets the occupancy query's answer.
std::uint32_t pinned_limit(int loads, int* ctas) {
  const auto& dev = tput::device();
  std::uint32_t tmax = std::min<std::uint32_t>(dev.max_threads_per_sm, 2048);
  *ctas = 0;
  if (tmax <= 1024) return tmax;
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(ctas, series_kernel(loads), pinned_block(tmax), 0));
  return *ctas >= 2 ? tmax : 1024;
}

// Launches one sample into `slot`; `off` is the region offset (words), moved on by the caller.
void launch_sample(const Series& se, std::uint32_t t, std::uint64_t off, std::uint32_t stride,
                   kern::OutstandingSample* slot, std::uint32_t margin_scale = 1) {
  Region& r = region();
  const int sms = tput::device().d.sm_count;
  kern::OutstandingArgs a{};
  a.base = (se.dram ? dram_region().words.get() : r.words.get()) + off;
  a.threads = t;
  a.ctas = t > 1024 ? 2 : 1;
  a.unit_bytes = se.pat.unit_bytes;
  a.merge = se.pat.merge;
  a.load_stride = stride;
  a.target_sm = sm_ids().front();
  a.start_margin = (a.ctas == 1 ? 500 : kStartMargin) * margin_scale;
  a.sample = slot;
  a.sink = r.sink.get();
  SeriesKernel fn = series_kernel(se.loads);
  if (a.ctas == 1)
    fn<<<1, t>>>(a);
  else
    fn<<<2 * sms, pinned_block(t)>>>(a);
  MEMHIER_LAUNCH_CHECK();
}

// Region offsets (words): a launch reads L blocks of its span (distinct lines per thread group,
// 128-byte aligned), packed one after the other; the next launch starts behind them, so a line
// comes back only after the whole 16 MiB region (>= 4 MiB of sectors) went through the L1 (512 MiB
// for source:dram: through the L2 as well).
struct Rotation {
  std::uint64_t off = 0;
  std::uint64_t words = kRegionBytes / 4;
  std::uint32_t span(const Series& se, std::uint32_t t) const {
    return ((t + se.pat.merge - 1) / se.pat.merge * se.pat.unit_bytes + 127) / 128 * 32;
  }
  std::uint64_t next(const Series& se, std::uint32_t t) {
    const std::uint64_t block = static_cast<std::uint64_t>(se.loads) * span(se, t);
    if (off + block > words) off = 0;
    const std::uint64_t o = off;
    off += block;
    return o;
  }
};

// Median cycles per thread count; invalid samples are measured again (up to 3 times each).
std::vector<double> measure_series(const Series& se, int* invalid) {
  const std::size_t np = se.threads.size();
  DeviceBuffer<kern::OutstandingSample> samples(kReps * np);
  samples.zero();
  Rotation rot;
  if (se.dram) {
    rot.words = kDramRegionBytes / 4;
    dram_region().flush.flush_clean();  // no line of the region left in the L2
  } else {
    region().warm();
  }
  for (int rep = 0; rep < kReps; ++rep)
    for (std::size_t i = 0; i < np; ++i) {
      const std::uint32_t t = se.threads[i];
      launch_sample(se, t, rot.next(se, t), rot.span(se, t), samples.get() + rep * np + i);
    }
  MEMHIER_CUDA(cudaDeviceSynchronize());
  auto s = samples.download();
  *invalid = 0;
  for (std::size_t k = 0; k < s.size(); ++k)
    for (int attempt = 0; attempt < 3 && !sample_ok(s[k]); ++attempt) {
      ++*invalid;
      MEMHIER_CUDA(cudaMemset(samples.get() + k, 0, sizeof(kern::OutstandingSample)));
      const std::uint32_t t = se.threads[k % np];
      // a late start (a slow context, e.g. under compute-sanitizer) gets a 10x longer margin each try
      launch_sample(se, t, rot.next(se, t), rot.span(se, t), samples.get() + k, attempt == 0 ? 10 : 100);
      s[k] = samples.download(1, k)[0];
    }
  std::vector<double> med(np);
  for (std::size_t i = 0; i < np; ++i) {
    std::vector<double> v;
    for (int rep = 0; rep < kReps; ++rep) {
      const auto& x = s[rep * np + i];
      if (sample_ok(x)) v.push_back(static_cast<double>(x.end - x.go));
    }
    med[i] = v.empty() ? NAN : tput::median(v);  // NaN: no valid sample (left out of the trace)
  }
  return med;
}

// The first thread count run as two pinned CTAs (0: none).
std::uint32_t two_cta_from(const std::vector<std::uint32_t>& threads) {
  for (std::uint32_t t : threads)
    if (t > 1024) return t;
  return 0;
}

void run_series(benchmark::State& state, const Series& se, const std::string& name) {
  const WarpLimit& w = measure_warp_limit();
  for (auto _ : state) {
    state.counters["warp_load_limit"] = w.limit;
    state.counters["carveout"] = kCarveout;
    if (se.loads > w.limit) {  // beyond the scoreboard: the paper's series stop below it
      state.counters["beyond_warp_limit"] = 1;
      state.SetIterationTime(1e-6);
      continue;
    }
    for (int l : {1, 2, 3, 4, 8, 16})
      MEMHIER_CUDA(cudaFuncSetAttribute(series_kernel(l), cudaFuncAttributePreferredSharedMemoryCarveout, kCarveout));
    Series run = se;  // thread counts whose CTAs can share one SM on this device
    int pinned_ctas = 0;
    const std::uint32_t lim = pinned_limit(se.loads, &pinned_ctas);
    state.counters["threads_limit"] = lim;
    state.counters["pinned_ctas_per_sm"] = pinned_ctas;
    run.threads.erase(std::remove_if(run.threads.begin(), run.threads.end(), [lim](std::uint32_t x) { return x > lim; }),
                      run.threads.end());
    EventTimer t;
    t.start();
    int invalid = 0;
    const std::vector<double> med = measure_series(run, &invalid);
    t.stop();
    state.SetIterationTime(t.seconds());
    Trace tr;
    tr.kind = Trace::Kind::fine;
    tr.benchmark = name;
    tr.meta = {{"content", "thread_latency"}, {"pattern", se.pat.name}, {"loads", std::to_string(se.loads)},
               {"merge", std::to_string(se.pat.merge)}, {"unit_bytes", std::to_string(se.pat.unit_bytes)},
               {"reps", std::to_string(kReps)}, {"carveout", std::to_string(kCarveout)},
               {"source", se.dram ? "dram" : "l2"},
               {"two_cta_from", std::to_string(two_cta_from(run.threads))},
               {"columns_mean", "index=threads, latency=median cycles until every value was consumed"}};
    std::vector<double> kept;
    for (std::size_t i = 0; i < med.size(); ++i) {
      if (std::isnan(med[i])) continue;
      tr.index.push_back(run.threads[i]);
      tr.latency.push_back(static_cast<std::uint32_t>(med[i] + 0.5));
      kept.push_back(med[i]);
    }
    if (kept.empty()) throw std::runtime_error("no valid sample at any thread count");
    write_bench_trace(name, tr);
    state.counters["beyond_warp_limit"] = 0;
    state.counters["latency_cycles"] = kept.front();
    state.counters["max_latency_cycles"] = *std::max_element(kept.begin(), kept.end());
    state.counters["points"] = static_cast<double>(kept.size());
    state.counters["points_without_valid_sample"] = static_cast<double>(med.size() - kept.size());
    state.counters["invalid_samples"] = invalid;
  }
}

void register_outstanding(Backend&) {
  const bool quick = plan() == Plan::quick;
  const auto& dev = tput::device();
  const std::uint32_t tmax = static_cast<std::uint32_t>(std::min(dev.max_threads_per_sm, 2048));
  const std::uint32_t step = quick ? 64 : 2;
  std::vector<std::uint32_t> threads;
  for (std::uint32_t t = quick ? 64 : 2; t <= tmax; t += step) threads.push_back(t);
  if (quick) threads.insert(threads.begin(), 2);
  const std::string probe = BenchName("outstanding_requests").add("probe", "warp_loads").str();
  tput::register_manual(probe, 1, [probe](benchmark::State& st) { run_probe(st, probe); });
  const std::vector<int> loads = quick ? std::vector<int>{1, 2} : std::vector<int>{1, 2, 3, 4, 8, 16};
  for (const Pattern& p : patterns()) {
    if (quick && p.name != "unique128" && p.name != "merge4") continue;
    for (int l : loads) {
      Series se{p, l, threads};
      const std::string name = BenchName("outstanding_requests").add("pattern", p.name).add("loads", l).str();
      tput::register_manual(name, 1, [se, name](benchmark::State& st) { run_series(st, se, name); });
    }
  }
  // The same ramps from DRAM: does the slope follow the latency (a table) or not (an issue rate)?
  if (!quick)
    for (const auto& [pn, l] : std::vector<std::pair<std::string, int>>{{"unique128", 4}, {"unique128", 16}, {"unique32", 16}})
      for (const Pattern& p : patterns()) {
        if (p.name != pn) continue;
        Series se{p, l, threads, true};
        const std::string name =
            BenchName("outstanding_requests").add("pattern", p.name).add("loads", l).add("source", "dram").str();
        tput::register_manual(name, 1, [se, name](benchmark::State& st) { run_series(st, se, name); });
      }
}

FamilyRegistrar reg("outstanding_requests", true, register_outstanding);

}  // namespace
}  // namespace memhier
