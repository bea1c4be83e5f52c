// Internals of memhier-compare shared by its parts (compare_fields, compare_counters,
// compare_topology, compare_runs, compare_render): not a public interface.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "analysis/gate/compare.hpp"

namespace memhier::analysis::compare_detail {

bool ends_with(const std::string& s, const std::string& suffix);
bool contains(const std::string& s, const std::string& part);
// Rates in [0, 1] are compared by their absolute difference (0 -> 0.02 is not "infinitely worse").
bool is_fraction(const std::string& leaf);
double median(std::vector<double> v);
// Words wrapped to `width` columns, continuation lines indented by `indent` (the gate's and the
// fleet's console notes).
std::string wrap(const std::string& text, std::size_t width, std::size_t indent);
// A number of the figure or field `id` in the unit of its magnitude: sizes in B, KiB, MiB, GiB,
// rates in MB/s, GB/s, TB/s, bytes per clock, latencies (`latency`) in cycles (the gate's and the
// fleet's renderings).
std::string unit_text(const std::string& id, bool latency, double x);

// The smallest test that decides a counter: U test from 4 repetitions a side (the exact two-sided
// p of 4 against 4 can reach 0.029), non-overlapping ranges for 2-3, the threshold alone for 1.
void judge(CompareRow& row, const std::vector<double>& a, const std::vector<double>& b, const CompareOptions& o,
           bool fraction);

// One benchmark's counters over its repetitions.
struct Samples {
  std::map<std::string, std::vector<double>> counters;
  std::string error;  // every run of it failed
  bool present = false;
};
// Per benchmark: the counters of every repetition; aggregates (median, else mean) only where a
// benchmark has no iteration run (--benchmark_report_aggregates_only).
std::map<std::string, Samples> collect(const BenchRun& run);
// The rows of one benchmark present in both runs.
void compare_benchmark(const std::string& name, const Samples& a, const Samples& b, const CompareOptions& o,
                       std::vector<CompareRow>& rows);
// Every leaf of two topology reports, by field class.
void compare_topology(const nlohmann::json& a, const nlohmann::json& b, const CompareOptions& o,
                      std::vector<CompareRow>& rows);

}  // namespace memhier::analysis::compare_detail
