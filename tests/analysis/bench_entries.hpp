// Test helper: one Google Benchmark iteration entry with counters, as memhier-bench writes it.
#pragma once
#include <map>
#include <string>

#include "common/bench_json.hpp"

namespace memhier::testing {

inline void add_entry(BenchRun& r, const std::string& name, const std::map<std::string, double>& counters, int rep = 0) {
  BenchEntry e;
  e.name = e.run_name = name + "/iterations:1/manual_time";
  e.params = *BenchName::parse(e.run_name);
  e.run_type = "iteration";
  e.repetition_index = rep;
  e.counters = counters;
  r.entries.push_back(e);
}

}  // namespace memhier::testing
