// One cache's search session (cache_sequences family; docs/methodology.md, section
// cache_sequences): runs access sequences through the backend, keeps the budget in launches and
// device seconds, and records every sequence with its outcome in a sequence trace.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/backends/backend.hpp"
#include "common/seqtrace.hpp"

namespace memhier::seqsearch {

struct Budget {
  std::uint32_t launches = 600;
  double seconds = 2.5;  // device time
  // Wall time of the whole search (host and device; 0: none). On the H100 the L2 search's 2.5 s of
  // device time came with 0.5 to 13 s of host time from run to run (the plan's largest variance);
  // the CUDA backend's searches stop at twice their device seconds of wall time (cache_sequences.cpp). The simulated
  // device has none: its wall time is the simulation's, and its results stay deterministic.
  double wall_seconds = 0;
};

using Tags = std::map<std::string, std::string>;

// "0x1f80": offsets in tags.
std::string hex(std::uint64_t x);

class Session {
 public:
  Session(Backend& be, Path path, int carveout, std::uint64_t array_bytes, std::uint32_t miss_threshold, Budget b);

  // Runs `seq` and records it (and its tags) in the trace. nullopt when it could not run (the
  // error is recorded) or when the budget was already spent (nothing runs then).
  std::optional<std::vector<std::uint32_t>> run(AccessSequence seq, Tags tags);

  bool exhausted() const;
  // True once a sequence failed to run (the search stops: the trace says why).
  bool failed() const { return !first_error_.empty(); }
  const std::string& first_error() const { return first_error_; }
  // Set (and exhausted() true) once the search built a test longer than one launch holds: nothing
  // ran, the search stops with this reason.
  const std::string& limit_reason() const { return limit_reason_; }

  // The miss threshold the search uses (set from the data once the granularity probe ran).
  void set_threshold(std::uint32_t t) { threshold_ = t; }
  // Eviction tests report the fraction of measured rounds in which the target missed when a set
  // evicted it. While every such fraction is >= 0.9 the cache evicts regularly (LRU, FIFO,
  // tree-PLRU ...) and a short test is decisive; one lower fraction (random-like) makes negative
  // answers need long tests.
  void note_eviction_fraction(double f) {
    ++evictions_seen_;
    regular_ = regular_ && f >= 0.9;
  }
  bool evicts_regularly() const { return evictions_seen_ > 0 && regular_; }

  Path path() const { return path_; }
  bool path_supported(Path p) const { return be_.supports(p); }
  // Clock cycles of the last sequence's walks (SequenceResult::walk_cycles).
  std::uint64_t last_walk_cycles() const { return last_walk_cycles_; }
  std::uint8_t path_code() const { return static_cast<std::uint8_t>(path_); }
  std::uint64_t array_bytes() const { return array_bytes_; }
  std::uint32_t threshold() const { return threshold_; }
  std::size_t max_runs() const { return max_runs_; }

  SeqTrace& trace() { return trace_; }
  std::uint32_t launches() const { return launches_; }
  double seconds() const { return seconds_; }
  double wall_seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  std::uint64_t accesses() const { return accesses_; }
  const std::string& start_state() const { return start_state_; }
  int sm_id() const { return sm_id_; }
  std::uint64_t smem_bytes() const { return smem_bytes_; }

 private:
  Backend& be_;
  Path path_;
  int carveout_;
  std::uint64_t array_bytes_;
  std::uint32_t threshold_;
  Budget budget_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::size_t max_runs_;
  SeqTrace trace_;
  std::uint32_t launches_ = 0;
  double seconds_ = 0;
  std::uint64_t accesses_ = 0;
  std::uint64_t last_walk_cycles_ = 0;
  std::string first_error_, start_state_, limit_reason_;
  int sm_id_ = -1;
  std::uint64_t smem_bytes_ = 0;
  std::uint32_t evictions_seen_ = 0;
  bool regular_ = true;
};

}  // namespace memhier::seqsearch
