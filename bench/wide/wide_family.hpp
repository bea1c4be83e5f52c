// Shared by the whole-memory families (tlb, latency_spectrum): a group of chases that one
// Backend::run_wide_batch call answers on one mapping, the benchmark names of the tlb sweep, and
// the counters and trace of one result.
#pragma once
#include <benchmark/benchmark.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/backends/backend.hpp"

namespace memhier {

// One point of the tlb sweep. Defaults (left out of the name): count mode, 4096 lines, 64 KiB span,
// seed 0, 4096 recorded accesses.
struct TlbPoint {
  WideAlloc alloc = WideAlloc::malloc;
  Mode mode = Mode::count;
  std::uint64_t bytes = 0, stride = 0;
  std::uint64_t lines = 4096;  // distinct data lines a run reads (slots x passes, at least the slots)
  std::uint64_t span = kWideSpanBytes;
  std::uint64_t seed = 0;
  std::uint64_t timed = 4096;  // recorded accesses, at least (whole passes)
};
constexpr std::uint64_t kTlbDefaultLines = 4096;
constexpr std::uint64_t kTlbMinTimed = 4096;  // recorded accesses of a run, at least

// `tlb/alloc:malloc/bytes:N/stride:S[/mode:fine][/lines:L][/span:X][/seed:K][/timed:T]`
std::string tlb_bench_name(const TlbPoint& p);
// The chase of a point: one warm pass over the chain, then whole passes, at least kTlbMinTimed accesses.
WideChaseRequest tlb_chase(const TlbPoint& p);

// Members registered from one group share one run_wide_batch call: the first member to run (or a
// member whose result was already taken, as with --benchmark_repetitions) runs the whole group.
class WideGroup {
 public:
  int add(WideChaseRequest r, std::string name = "") {
    reqs_.push_back(std::move(r));
    names_.push_back(std::move(name));
    return static_cast<int>(reqs_.size()) - 1;
  }
  const WideChaseRequest& request(int i) const { return reqs_[i]; }
  WideChaseResult take(int i);
  std::size_t size() const { return reqs_.size(); }

 private:
  std::vector<WideChaseRequest> reqs_;
  std::vector<std::string> names_;
  std::vector<WideChaseResult> results_;
  std::vector<bool> fresh_;
};

// The --benchmark_filter of this run (main sets it): a group runs only the members it selects
// (Google Benchmark's rule: regex search; a leading '-' negates).
void set_wide_filter(const std::string& filter);
bool wide_selected(const std::string& name);

using WideReport = std::function<void(benchmark::State&, const std::string&, const WideChaseRequest&,
                                      const WideChaseResult&)>;
void register_wide(const std::string& name, std::shared_ptr<WideGroup> group, int member, WideReport report);

// Skips with the result's error (false), or sets the manual time and latency_cycles,
// clock_overhead_cycles, accesses and mapped_bytes (true).
bool report_wide_basics(benchmark::State& state, const WideChaseResult& res);
// Counters (latency_cycles, latency_sd_cycles, latency_ci95_cycles, accesses, slots, passes, ...),
// the manual time, and the trace (histogram, or fine records with the element index). Calls
// SkipWithError when the result carries an error.
void report_wide(benchmark::State& state, const std::string& name, const WideChaseRequest& req,
                 const WideChaseResult& res);
// Half-width of the 95 % interval of the mean from the block means (batch means, Student t); -1
// with fewer than 8 blocks.
double block_ci95(const std::vector<double>& block_means);

}  // namespace memhier
