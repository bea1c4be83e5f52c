// clock_overhead: the cost of the timing itself, measured on the device (000 §4.2) and subtracted
// from every fine/count sample and from classic totals.
//   kind:pair  two consecutive clock reads
//   kind:fine  clock read, dependent shared store, clock read (what a fine/count sample adds)
#include "bench/families/chase_common.hpp"
#include "bench/core/guard.hpp"

namespace memhier {
namespace {

void register_clock_overhead(Backend&) {
  for (const char* kind : {"pair", "fine"}) {
    std::string name = BenchName("clock_overhead").add("kind", kind).str();
    std::string k = kind;
    register_guarded(name, [k](benchmark::State& state) {
      for (auto _ : state) {
        ClockOverhead o = backend().clock_overhead();
        double v = k == "pair" ? o.clock_pair_cycles : o.fine_cycles;
        state.SetIterationTime(1e-6);
        state.counters["clock_overhead_cycles"] = v;
        state.counters["latency_cycles"] = v;
      }
    })->UseManualTime()->Iterations(1);
  }
}

FamilyRegistrar reg("clock_overhead", false, register_clock_overhead);

}  // namespace
}  // namespace memhier
