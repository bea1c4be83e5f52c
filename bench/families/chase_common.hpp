// Shared by the P-chase-style families: counters from a ChaseResult, trace writing, and batch
// groups (one launch answers several benchmarks, one chase per SM, 003 §4.7.2).
#pragma once
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bench/backends/backend.hpp"
#include "bench/core/registry.hpp"
#include "common/bench_name.hpp"

namespace memhier {

// Sets the DESIGN.md counters (latency_cycles, clock_overhead_cycles; accesses, misses, miss_rate,
// hit/miss latency for fine and count runs), the manual time, and writes the trace of fine and
// count runs. Calls SkipWithError when the result carries an error.
void report_chase(benchmark::State& state, const std::string& bench_name, const ChaseRequest& req,
                  const ChaseResult& res);

// Benchmarks registered from one BatchGroup share launches: the first member to run (or a member
// whose previous result was already consumed, as with --benchmark_repetitions) runs the whole
// group through Backend::run_chase_batch.
class BatchGroup {
 public:
  int add(ChaseRequest r) {
    reqs_.push_back(std::move(r));
    return static_cast<int>(reqs_.size()) - 1;
  }
  const ChaseRequest& request(int i) const { return reqs_[i]; }
  ChaseResult take(int i);
  std::size_t size() const { return reqs_.size(); }
  // The slowest member's predicted seconds (the members run in parallel).
  double predicted_seconds() const {
    double m = 0;
    for (const auto& r : reqs_) m = std::max(m, backend().predicted_seconds(r));
    return m;
  }

 private:
  std::vector<ChaseRequest> reqs_;
  std::vector<ChaseResult> results_;
  std::vector<bool> fresh_;
};

// Registers one benchmark that runs `req` alone (or, with a group, as a member of the group).
void register_chase(const std::string& name, ChaseRequest req);
void register_chase_in_group(const std::string& name, std::shared_ptr<BatchGroup> group, int member);

// A requested chase (--memhier_extra) checked against this device before its chain is built: the
// array against the path's limit, the shared memory it needs (Backend::shared_memory_needed)
// against what a block may have, the predicted time against the per-benchmark budget. Throws
// std::runtime_error starting with `what` (e.g. "requests pchase[3]").
void check_requested_chase(Backend& be, Path p, Mode m, std::uint64_t bytes, std::uint64_t stride,
                           std::uint64_t iters, bool warm, std::uint64_t max_records, const std::string& what);

// Sizes (bytes, multiples of `step`) from lo to hi inclusive in `step` increments.
std::vector<std::uint64_t> linear_sizes(std::uint64_t lo, std::uint64_t hi, std::uint64_t step);
std::uint64_t next_pow2(std::uint64_t x);

}  // namespace memhier
