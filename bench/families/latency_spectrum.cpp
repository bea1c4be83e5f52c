// latency_spectrum: one cold fine-grained chase over a non-uniform-stride array (000 §5.2,
// Fig. 13/14) whose accesses are built to expose several patterns: far pages touched first (TLB
// miss, DRAM), new lines of a page just used (TLB hit, DRAM), those lines again (cache hit), the far
// pages again (cache hit, TLB miss), the rest of one line (L1 hit). Each pattern's median latency
// is a counter `<pattern>_cycles`; the trace labels every access with its pattern.
#include <algorithm>

#include "bench/families/chase_common.hpp"
#include "bench/guard.hpp"
#include "common/levels.hpp"

namespace memhier {
namespace {

double median(std::vector<std::uint32_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void register_spectrum(Backend& be) {
  if (plan() == Plan::none) return;
  const std::uint64_t cap = tlb_footprint_limit(be);
  SpectrumParams sp;
  sp.far_stride_bytes = 32ull << 20;
  sp.footprint_bytes = std::max<std::uint64_t>(2 * sp.far_stride_bytes, cap / sp.far_stride_bytes * sp.far_stride_bytes);
  sp.near_stride_bytes = 16ull << 10;
  sp.near_count = 32;
  sp.same_line_count = 6;
  for (Path p : {Path::global_ca, Path::global_cg}) {
    if (!be.supports(p)) continue;
    auto sc = std::make_shared<SpectrumChain>(spectrum_chain(sp));
    BenchName name("latency_spectrum");
    name.add("path", path_name(p)).add("bytes", static_cast<std::int64_t>(sp.footprint_bytes));
    name.add("far_stride", static_cast<std::int64_t>(sp.far_stride_bytes));
    name.add("near_stride", static_cast<std::int64_t>(sp.near_stride_bytes));
    std::string n = name.str();
    const double predicted = backend().predicted_seconds(static_cast<double>(sc->chain.size()));
    register_guarded(n, [n, sc, sp, p](benchmark::State& state) {
      for (auto _ : state) {
        ChaseRequest r;
        r.path = p;
        r.mode = Mode::fine;
        r.array_bytes = sp.footprint_bytes;
        r.chain = sc->chain;
        r.iters = sc->chain.size();
        r.warm = false;  // cold: the first touches are part of the spectrum
        r.max_records = static_cast<std::uint32_t>(std::max<std::size_t>(r.iters, 1));
        ChaseResult res = backend().run_chase(r);
        if (!res.error.empty()) {
          state.SkipWithError(res.error.c_str());
          break;
        }
        state.SetIterationTime(std::max(res.seconds, 1e-9));
        std::vector<std::vector<std::uint32_t>> by(kSpectrumPatterns);
        for (std::size_t k = 0; k < res.latency.size(); ++k)
          by[static_cast<int>(sc->pattern[k])].push_back(res.latency[k]);
        state.counters["latency_cycles"] = res.latency_cycles;
        state.counters["clock_overhead_cycles"] = res.clock_overhead_cycles;
        state.counters["accesses"] = static_cast<double>(res.accesses);
        for (int q = 0; q < kSpectrumPatterns; ++q)
          state.counters[std::string(spectrum_pattern_name(static_cast<SpectrumPattern>(q))) + "_cycles"] =
              median(by[q]);
        Trace t;
        t.benchmark = n;
        t.kind = Trace::Kind::fine;
        t.clock_overhead_cycles = res.clock_overhead_cycles;
        t.index = res.index;
        t.latency = res.latency;
        for (std::size_t k = 0; k < res.latency.size(); ++k) t.label.push_back(static_cast<std::uint8_t>(sc->pattern[k]));
        t.meta["labels"] = "0=cold_far 1=cold_near 2=near_hit 3=far_revisit 4=same_line";
        write_bench_trace(n, t);
      }
    }, [predicted] { return predicted; })->UseManualTime()->Iterations(1)->Unit(benchmark::kMicrosecond);
  }
}

FamilyRegistrar reg("latency_spectrum", false, register_spectrum);

}  // namespace
}  // namespace memhier
