// Loading Google Benchmark JSON as written by memhier-bench (--benchmark_format=json or
// --benchmark_out=...). Counters are the top-level numeric keys of each benchmark entry.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/bench_name.hpp"

namespace memhier {

struct BenchEntry {
  std::string name;            // "name" (with aggregate suffix for aggregates)
  std::string run_name;        // "run_name" (parameters only)
  BenchName params;            // parsed run_name
  std::string run_type;        // "iteration" or "aggregate"
  std::string aggregate_name;  // "mean", "median", ... for aggregates
  std::int64_t repetition_index = 0;
  std::int64_t iterations = 0;
  double real_time = 0, cpu_time = 0;
  std::string time_unit;
  bool error = false;
  std::string error_message;
  std::map<std::string, double> counters;
  // Counters Google Benchmark wrote as NaN or Infinity (read as null, not in `counters`).
  std::vector<std::string> nonfinite_counters;

  bool has(const std::string& counter) const { return counters.count(counter) != 0; }
  double counter(const std::string& c, double fallback = 0) const;
};

struct BenchRun {
  std::string path;                            // the JSON file
  std::map<std::string, std::string> context;  // every context key, numbers as text
  std::vector<BenchEntry> entries;

  std::string context_or(const std::string& key, const std::string& fallback = "") const;
  // Directory of traces (context trace_dir, relative to the JSON file), or "" when none.
  std::string trace_dir() const;
  // Entries of one family, iteration runs only (aggregates skipped), errors skipped.
  std::vector<const BenchEntry*> family(const std::string& fam) const;
};

// Throws std::runtime_error with one clear line: missing file, not JSON, not Google Benchmark
// output, or not from memhier-bench (no memhier_version in the context).
BenchRun load_bench_json(const std::string& path);
// The same from text already read (`path` names it in messages and locates its traces).
BenchRun parse_bench_json(const std::string& text, const std::string& path);

// Google Benchmark's JSON reporter (1.7, 1.8) writes a non-finite counter as NaN, -NaN, Infinity or
// -Infinity, which JSON does not have (the coefficient of variation of a counter that is 0 in every
// repetition is 0/0): those tokens outside strings become null, i.e. the counter is absent.
std::string json_without_nonfinite(const std::string& text);

}  // namespace memhier
