// Synthetic Google Benchmark entries for analysis tests: an iteration entry named as memhier-bench
// names it (run name + Google Benchmark's suffixes), with the given counters.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "common/bench_json.hpp"

namespace memhier::test_support {

inline BenchEntry bench_entry(const std::string& name, std::map<std::string, double> counters, int iterations = 1) {
  BenchEntry e;
  e.name = e.run_name = name + "/iterations:" + std::to_string(iterations) + "/manual_time";
  e.params = *BenchName::parse(e.run_name);
  e.run_type = "iteration";
  e.counters = std::move(counters);
  return e;
}

// A run of these entries with the given context, read from "synthetic.json".
inline BenchRun bench_run(std::vector<BenchEntry> entries, std::map<std::string, std::string> context) {
  BenchRun r;
  r.path = "synthetic.json";
  r.context = std::move(context);
  r.entries = std::move(entries);
  return r;
}

}  // namespace memhier::test_support
