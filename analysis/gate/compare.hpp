// Comparison of two memhier runs (memhier-compare): benchmarks matched by name and compared on
// their counters (latency, bytes per second, miss rate, ...), topology reports field by field.
// Noise-aware: with repetitions on both sides a Mann-Whitney U test (as google/benchmark's
// compare.py) or, for 2-3 repetitions, non-overlapping ranges; otherwise a relative threshold.
// Topology fields fall in three classes (topology_class): structural (sizes, line, sets, ways,
// policy, banks, warp-access verdicts, partition/prefetch detected: CHANGED only when the two
// runs' stated ranges or values disagree), measured (latencies, bandwidths, rates: judged like
// counters) and bookkeeping (benchmark names, configurations, curves, provenance: INFO at most).
// docs/methodology.md section `compare` states the rules, docs/formats.md the JSON output.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/bench_json.hpp"

namespace memhier::analysis {

// info: a difference that bears no verdict (bookkeeping, a value determined in one run only, a
// structural value stated at low confidence, a measured value without a better direction).
// analyzer_changed: a structural difference between two topologies written by different analyzer
// versions and compared as archived (memhier-compare could not analyze them again): reported, not
// a failure (analysis/gate/analyzer.hpp).
enum class Verdict { same, better, worse, changed, info, analyzer_changed };
const char* verdict_name(Verdict v);  // "SAME", "BETTER", "WORSE", "CHANGED", "INFO", "ANALYZER-CHANGED"

// Which way a number is good: lower (latency, misses), higher (bandwidth), structure (sizes,
// ways, policy: any difference is CHANGED), unknown (a difference beyond threshold is CHANGED).
enum class Direction { lower, higher, structure, unknown, ignore };
const char* direction_name(Direction d);
Direction counter_direction(const std::string& counter);
// Direction of a topology leaf from its dotted path (e.g. caches.l1.hit_latency_cycles).
Direction topology_direction(const std::string& path);

enum class FieldClass { structural, measured, bookkeeping };
const char* field_class_name(FieldClass c);  // "structural", "measured", "bookkeeping"
// Class of a topology leaf from its dotted path; `is_string`: the value is text (a text leaf that
// is not structural is bookkeeping).
FieldClass topology_class(const std::string& path, bool is_string = false);
// Structural values stated below this confidence (provenance.<key>.confidence) on either side do
// not make a CHANGED verdict: the difference is INFO.
constexpr double kStructuralConfidence = 0.5;
// A measured value that rests on fewer samples (accesses of a latency class, repetitions, pattern
// accesses) never decides a verdict alone: the standard error of a median of n samples is about
// 0.93 x IQR / sqrt(n), more than a quarter of the spread below 16 (docs/methodology.md, compare).
constexpr int kMinSamples = 16;

struct CompareOptions {
  double threshold = 0.05;  // relative change that counts (0.05 = 5 %; docs/methodology.md)
  // Latencies (counters and fields in cycles) also need at least this many cycles of change.
  double latency_floor_cycles = 10;
  double alpha = 0.05;      // U-test significance level
  bool ignore_device = false;
  bool common_only = false;  // benchmarks present in one run only: summary count, no rows
  // Structural sizes whose stated ranges are disjoint but closer than this fraction of the size
  // compare SAME (0.05 = 5 %: soft edges of the H100's L1 and L2 moved by up to 2.4 % and 4.3 %
  // between back-to-back runs; docs/methodology.md, compare).
  double size_tolerance = 0.05;
};

// One run to compare: an archive directory (bench.json, topology.json if present) or a
// bench.json file. Throws std::runtime_error with one clear line on bad input.
struct CompareInput {
  std::string label;  // what the user named
  BenchRun bench;
  std::optional<nlohmann::json> topology;
};
CompareInput load_compare_input(const std::string& path);

struct CompareRow {
  std::string kind;   // "counter" or "topology"
  std::string field_class;  // topology rows: "structural", "measured" or "bookkeeping"
  std::string name;   // benchmark run name, or topology path (caches.l1.size_bytes)
  std::string field;  // counter name ("" for topology rows)
  nlohmann::json base, now;  // medians (numbers) or values (topology); null when absent
  std::optional<double> change;  // relative change (now-base)/|base|; absolute for rates
  Direction direction = Direction::unknown;
  std::string test;  // "utest", "spread", "threshold", "exact"
  std::optional<double> p_value;
  int n_base = 0, n_now = 0;  // samples (repetitions) on each side
  Verdict verdict = Verdict::same;
  std::string note;
};

struct ContextDiff {
  std::string key, base, now;
};

struct CompareResult {
  std::string base_label, now_label;
  CompareOptions options;
  bool same_device = true;
  std::vector<std::string> identity_keys_differing;  // gpu_name, compute_capability, ...
  std::vector<ContextDiff> context_diffs;            // driver, clocks, plan, ...
  std::vector<CompareRow> rows;
  std::vector<std::string> notes;
  int only_base = 0, only_now = 0;  // benchmarks present in one run only
  int count(Verdict v) const;
  bool worse() const { return count(Verdict::worse) > 0; }
  // Structure verdict: CHANGED when a structural topology row is CHANGED, SAME when structural
  // rows were compared and none is, "" when no topology was compared.
  std::string structure() const;
  int structural_rows() const;
};

// Mann-Whitney U test, two-sided p value: exact distribution without ties for small samples,
// otherwise the normal approximation with tie and continuity correction (as SciPy's default).
double mann_whitney_p(const std::vector<double>& a, const std::vector<double>& b);

// Refuses different devices unless options.ignore_device: then same_device is false and no row
// is produced (the caller reports identity_keys_differing).
CompareResult compare_runs(const CompareInput& base, const CompareInput& now, const CompareOptions& options);

// Renderings. `all_rows`: include SAME rows (console and Markdown list only the others by default).
std::string render_console(const CompareResult& r, bool all_rows);
std::string render_markdown(const CompareResult& r, bool all_rows);
nlohmann::json render_json(const CompareResult& r);

}  // namespace memhier::analysis
