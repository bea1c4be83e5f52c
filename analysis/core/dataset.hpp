// The analyzer's input: one or more memhier-bench JSON files of one device (the plan and the
// refinement passes), their P-chase-style entries parsed into parameters, and their traces
// (loaded lazily, once).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/bench_json.hpp"
#include "common/trace.hpp"

namespace memhier::analysis {

// One pchase or tlb benchmark entry with its parameters.
struct Chase {
  std::string family;  // "pchase" or "tlb"
  std::string path;    // global_ca, global_cg, ldg, texture, constant, shared (tlb: global_cg)
  std::string mode;    // classic, fine, count (tlb: count)
  std::uint64_t bytes = 0, stride = 0, iters = 0;
  bool warm = true;
  int carveout = -1;
  const BenchEntry* entry = nullptr;
  std::size_t run = 0;  // index into Dataset::runs
  std::string name() const { return entry ? entry->params.str() : std::string(); }
  std::uint64_t chain() const { return stride ? (bytes + stride - 1) / stride : 0; }
};

class Dataset {
 public:
  // Loads every file; throws std::runtime_error with one line on a bad file, on files of
  // different devices, and (unless allow_errors) on a benchmark entry that failed.
  static Dataset load(const std::vector<std::string>& paths, bool allow_errors = false);
  // For tests: a dataset from runs already in memory (traces added with add_trace).
  static Dataset from_runs(std::vector<BenchRun> runs);

  const std::vector<BenchRun>& runs() const { return runs_; }
  const std::map<std::string, std::string>& context() const { return runs_.front().context; }
  const std::vector<Chase>& chases() const { return chases_; }
  std::vector<const BenchEntry*> family(const std::string& fam) const;
  const std::vector<std::string>& skipped() const { return skipped_; }  // failed entries (allow_errors)
  // Counted warnings about what was read but not used (entries of families this analyzer does not
  // read); memhier-infer prints them and the topology keeps them (measurement.input_warnings).
  const std::vector<std::string>& warnings() const { return warnings_; }

  // The trace of a fine or count entry, or nullptr when none was written/kept. Throws on a trace
  // file that exists but is damaged (truncated, wrong format).
  const Trace* trace(const Chase& c) const;
  const Trace* trace(const BenchEntry& e, std::size_t run) const;
  void add_trace(const std::string& bench_name, Trace t);

  // A value computed once per dataset from its data alone and read by several sections (a load
  // path's latency levels: the L2 path's were clustered seven times an analysis), made by `make` on
  // first use under `key`. Call it from one thread. A copy of the dataset starts without memos
  // (theirs may point into the original's chases).
  template <typename T, typename Make>
  const T& memo(const std::string& key, Make&& make) const {
    auto it = memo_.slots.find(key);
    if (it == memo_.slots.end()) it = memo_.slots.emplace(key, std::make_shared<T>(make())).first;
    return *std::static_pointer_cast<const T>(it->second);
  }

 private:
  void index();
  std::vector<BenchRun> runs_;
  std::vector<Chase> chases_;
  std::vector<std::string> skipped_;
  std::vector<std::string> warnings_;
  mutable std::map<std::string, std::shared_ptr<Trace>> traces_;  // by benchmark name
  struct Memos {
    Memos() = default;
    Memos(const Memos&) {}
    Memos& operator=(const Memos&) { slots.clear(); return *this; }
    Memos(Memos&&) = default;
    Memos& operator=(Memos&&) = default;
    std::map<std::string, std::shared_ptr<const void>> slots;
  };
  mutable Memos memo_;
};

// Context keys that identify a device; files that disagree on one are refused.
const std::vector<std::string>& device_identity_keys();

// The items of a trace header's comma list (sm_ids, line_offsets, refs, ...); empty when absent.
std::vector<std::string> trace_list(const Trace& t, const std::string& key);

}  // namespace memhier::analysis
