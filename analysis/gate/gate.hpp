// memhier-compare's gate: two runs compared on their headline (analysis/gate/headline.hpp) — every
// structural field and the headline figures — with verdicts only beyond both the threshold of the
// figure's kind and the larger of the two runs' own spreads; the per-benchmark comparison
// (analysis/gate/compare.hpp) rides along as the detail. docs/methodology.md section `compare` states the
// rules, docs/formats.md section `compare` the JSON, docs/ci.md the exit codes.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/gate/compare.hpp"
#include "analysis/gate/headline.hpp"

namespace memhier::analysis {

struct GateOptions {
  double bandwidth_threshold = 0.05;   // relative change of a bandwidth that counts
  double latency_threshold = 0.05;     // relative change of a latency that counts ...
  double latency_floor_cycles = 10;    // ... and at least this many cycles
  double size_tolerance = 0.05;        // structural sizes: see CompareOptions::size_tolerance
  int min_samples = kMinSamples;       // fewer samples: never decides alone
  bool ignore_device = false;          // different GPUs: side by side, no verdicts
  bool common_only = false;            // detail: benchmarks in one run only are counted, not listed
  bool allow_contended = false;        // verdicts even on a run marked contended or throttled
  // --baseline (analysis/gate/fleet.hpp): a fleet's board-to-board spread per figure id; a change
  // within it is SAME (apply_fleet_baseline). `fleet_baseline` names the fleet in the notes.
  std::map<std::string, double> fleet_spread;
  std::string fleet_baseline;
};

struct GateRow {
  std::string id, label;
  Figure::Kind kind = Figure::Kind::structure;
  nlohmann::json base, now;          // values (null: not determined)
  std::optional<double> change;      // (new - base) / |base| for numbers
  double threshold = 0;              // absolute, in the figure's unit (measured figures)
  double spread = 0;                 // larger of the two runs' spreads
  int samples_base = 0, samples_now = 0;
  std::string test;                  // "threshold+spread", "range", "exact"
  Verdict verdict = Verdict::same;
  std::string note;
};

// How the two topologies came about (prepare_pair, analysis/gate/gate_inputs.cpp): both analyzed
// again by the running analyzer from the archives' raw measurements (the default), or as archived.
struct PairAnalysis {
  std::string same_input;        // non-empty: base and new are one input (says how)
  bool reanalyzed = false;       // both topologies are the running analyzer's
  bool as_archived = false;      // --as-archived: the archived topologies on request
  std::string running, archived_base, archived_now;  // analyzer_text of each
  std::string kept_why;          // why the archived topologies were kept ("new: no traces (traces)")
};
// Fills `analysis` of the two inputs: same input detected first (nothing analyzed), then both
// archives analyzed again unless `as_archived`, or one lacks its raw data (then neither is).
PairAnalysis prepare_pair(CompareInput& base, CompareInput& now, bool as_archived);

struct RunInfo {
  std::string label, gpu, driver, backend, cuda_runtime, utc;
};

struct GateResult {
  RunInfo base, now;
  GateOptions options;
  bool same_device = true;
  std::vector<std::string> identity_keys_differing;
  std::vector<ContextDiff> context_diffs;  // besides the driver (always in the header)
  bool headline = false;                   // topology.json on both sides: the gate judged the headline
  std::vector<GateRow> rows;               // structure first, then figures
  std::map<std::string, std::vector<std::string>> undetermined;  // section -> fields null in both runs
  std::vector<std::string> notes;
  CompareResult detail;                    // per-benchmark rows (--detail)
  // Without topology.json the gate judges the per-benchmark rows, but only those with a noise model
  // (repetitions on both sides: U test or spread, or an exact comparison); a difference beyond the
  // threshold between single samples is INFO and counted here.
  int unjudged = 0;       // per-benchmark rows demoted to INFO for want of a noise model
  int noise_judged = 0;   // per-benchmark rows judged with one (utest, spread)
  bool detail_all = false;                 // --all: SAME rows too (headline, and the detail with --detail)
  PairAnalysis analysis;                   // how the topologies came about (prepare_pair)
  // The two topologies were written by different analyzers (analyzer.hpp, same_analyzer) and not
  // analyzed again: a structural difference is ANALYZER-CHANGED, reported and never a failure.
  bool analyzers_differ = false;
  int analyzer_changes() const;
  bool same_input() const { return !analysis.same_input.empty(); }

  int worse() const;
  int structural_changes() const;
  bool refused() const { return !same_device && !options.ignore_device; }
  // No verdict: nothing failed and every difference rests on single samples (no noise model).
  bool no_verdict() const;
  // Runs marked contended or throttled by memhier-bench ("base: contended: <evidence>"): the gate
  // gives no verdict on them unless options.allow_contended.
  std::vector<std::string> untrusted;
  bool refused_conditions() const { return !untrusted.empty() && !options.allow_contended; }
};

GateResult gate_compare(const CompareInput& base, const CompareInput& now, const GateOptions& o,
                        const PairAnalysis& analysis = {});

// Exit status (docs/ci.md): 0 pass, 1 a figure WORSE, 3 a structural field CHANGED (with or without
// worse figures), 4 different GPUs without --ignore-device, 5 no verdict (bench.json files whose
// differences rest on single samples), 7 a run marked contended or throttled (without
// allow_contended). `fail_on_worse` / `fail_on_structure` false relax the gate (driver surveys):
// that condition (and no verdict) then exits 0.
int gate_exit_code(const GateResult& r, bool fail_on_worse, bool fail_on_structure);

std::string render_gate_console(const GateResult& r, bool detail);
std::string render_gate_markdown(const GateResult& r, bool detail);
nlohmann::json render_gate_json(const GateResult& r, bool detail);

}  // namespace memhier::analysis
