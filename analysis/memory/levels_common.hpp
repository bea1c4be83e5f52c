// Shared tools of the level sections (analysis/memory/levels.hpp): one point per configuration
// (the median of each counter over its repetitions, with their range), selection by parameters,
// the noise a difference is judged against, and the decision of an effect.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/core/field.hpp"
#include "common/bench_json.hpp"

namespace memhier::analysis::levels {

// The clock's resolution: two latencies closer than one cycle are never told apart.
constexpr double kResolutionCycles = 1;

struct Point {
  std::string name;  // the benchmark name without Google Benchmark's suffixes
  BenchName params;
  std::map<std::string, std::vector<double>> samples;  // counter -> its values over repetitions
  double med(const std::string& counter) const;        // NaN when absent
  double lo(const std::string& counter) const;
  double hi(const std::string& counter) const;
  // Spread of a latency: its repetitions' range, and the range of its own min/max counters
  // (latency_min_cycles / latency_max_cycles: over clusters) where the family writes them.
  double spread(const std::string& counter) const;
  std::string text(const std::string& key) const { return params.get_or(key, ""); }
  long long num(const std::string& key) const { return params.get_int_or(key, -1); }
};

// Every configuration of a family, in the order first seen (iteration runs, errors skipped).
std::vector<Point> points(const std::vector<BenchRun>& runs, const std::string& family);
// The points whose parameters have the given values.
std::vector<const Point*> select(const std::vector<Point>& ps, const std::map<std::string, std::string>& want);
// The point with the largest median of `counter` (nullptr when none has it).
const Point* best(const std::vector<const Point*>& ps, const std::string& counter);

double context_number(const std::vector<BenchRun>& runs, const std::string& key);  // NaN when absent
std::string context_text(const std::vector<BenchRun>& runs, const std::string& key);
// A number of the topology built so far at a dotted path (NaN when absent or null).
double topology_number(const nlohmann::json& t, const std::string& dotted);

double median_or_nan(std::vector<double> v);  // NaN when empty
double round_to(double v, int decimals);  // NaN stays NaN (written as null)
std::string significant(double v, int digits);  // v with `digits` significant digits, for reasons
nlohmann::json number_or_null(double v, int decimals = 1);
nlohmann::json params_json(const BenchName& b);  // {chunk: 4096, method: "bulk", ...}

// An effect over values that should agree unless something depends on the parameter: its size
// (largest minus smallest) against the noise (the largest spread of the values' own
// measurements, at least kResolutionCycles). {cycles, decided: "none" | `depends` | null, reason}.
struct Labelled {
  std::string label;
  double value = 0, spread = 0;
};
nlohmann::json decide_effect(const std::vector<Labelled>& values, const std::string& depends, const std::string& what);

// Figures against a link (host, peers), among the points with the parameters `base`: the fastest
// stream of `op` ({bytes_per_second, pct_of_link, benchmark, configuration}, or a null with "no
// <what> <op> measured"), and per direction the largest copy (the least set-up per byte; bidir
// against both directions). `link`: bytes per second per direction (NaN: no percentage).
using Params = std::map<std::string, std::string>;
nlohmann::json link_stream(const std::vector<Point>& ps, Params base, const std::string& op, double link,
                           const std::string& what);
nlohmann::json link_copies(const std::vector<Point>& ps, const Params& base, const std::vector<std::string>& dirs,
                           double link);

// Evidence of a set of points (their names).
Evidence evidence_of(const std::vector<const Point*>& ps);

}  // namespace memhier::analysis::levels
