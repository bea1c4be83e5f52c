#include "analysis/gate/gate.hpp"
#include "analysis/gate/fleet.hpp"  // the --baseline hook: apply_fleet_baseline
#include "analysis/gate/analyzer.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <regex>
#include <set>
#include <sstream>

namespace memhier::analysis {

namespace {

RunInfo info_of(const CompareInput& in) {
  RunInfo i;
  i.label = in.label;
  const auto& b = in.bench;
  i.gpu = b.context_or("gpu_name", "?");
  i.driver = b.context_or("driver_version", "?");
  i.backend = b.context_or("device_backend", "?");
  i.cuda_runtime = b.context_or("cuda_runtime", "?");
  // The archive's UTC timestamp (its directory name), else the run's own date.
  std::string dir = in.label;
  while (!dir.empty() && dir.back() == '/') dir.pop_back();
  const std::string last = dir.substr(dir.find_last_of('/') == std::string::npos ? 0 : dir.find_last_of('/') + 1);
  std::smatch m;
  static const std::regex ts("^(\\d{4})(\\d{2})(\\d{2})T(\\d{2})(\\d{2})(\\d{2})Z$");
  if (std::regex_match(last, m, ts))
    i.utc = m[1].str() + "-" + m[2].str() + "-" + m[3].str() + " " + m[4].str() + ":" + m[5].str() + ":" + m[6].str() + "Z";
  else
    i.utc = b.context_or("date", "");
  return i;
}

bool numbers_equal(const nlohmann::json& a, const nlohmann::json& b) {
  return a == b || (a.is_number() && b.is_number() && a.get<double>() == b.get<double>());
}

std::string fmt_number(double v) {
  std::ostringstream s;
  s << std::setprecision(4) << v;
  return s.str();
}

std::string samples_text(int a, int b) {
  std::ostringstream s;
  if (a == b) s << a;
  else s << a << "/" << b;
  return s.str();
}

void judge_measured(GateRow& row, const Figure& a, const Figure& b, const GateOptions& o) {
  const double va = a.value.get<double>(), vb = b.value.get<double>(), delta = vb - va;
  if (va != 0) row.change = delta / std::fabs(va);
  const double rel = a.relative_threshold > 0                 ? a.relative_threshold
                     : row.kind == Figure::Kind::bandwidth ? o.bandwidth_threshold
                                                           : o.latency_threshold;
  row.threshold = row.kind == Figure::Kind::bandwidth ? rel * std::fabs(va)
                                                      : std::max(o.latency_floor_cycles, rel * std::fabs(va));
  row.spread = std::max(a.spread, b.spread);
  row.samples_base = a.samples;
  row.samples_now = b.samples;
  row.test = "threshold+spread";
  // The threshold counts inclusively (a drop of exactly 5 % is one), up to rounding of the data.
  if (delta == 0 || std::fabs(delta) < row.threshold * (1 - 1e-9)) return;  // SAME
  std::ostringstream n;
  if (std::fabs(delta) <= row.spread) {
    n << "within the runs' spread (" << (a.spread_source.empty() ? b.spread_source : a.spread_source) << ", "
      << fmt_number(row.spread) << " over " << samples_text(a.spread_samples, b.spread_samples) << ")";
    row.note = n.str();
    return;
  }
  const bool few = (a.samples > 0 && a.samples < o.min_samples) || (b.samples > 0 && b.samples < o.min_samples);
  if (few) {
    row.verdict = Verdict::info;
    n << "rests on " << samples_text(a.samples, b.samples) << " samples: not decisive alone";
    row.note = n.str();
    return;
  }
  const bool lower_better = row.kind == Figure::Kind::latency;
  row.verdict = (delta < 0) == lower_better ? Verdict::better : Verdict::worse;
}

void judge_row(GateRow& row, const Figure* a, const Figure* b, const Headline& ha, const Headline& hb,
               const GateOptions& o) {
  const bool da = a && !a->value.is_null(), db = b && !b->value.is_null();
  if (!da || !db) {
    row.verdict = Verdict::info;
    row.test = "exact";
    row.note = !da ? (a ? "now determined" : "only in new") : (b ? "no longer determined" : "only in base");
    return;
  }
  if (row.kind != Figure::Kind::structure && a->value.is_number() && b->value.is_number()) {
    judge_measured(row, *a, *b, o);
    return;
  }
  row.test = "exact";
  if (a->value.is_number() && b->value.is_number() && a->value.get<double>() != 0)
    row.change = (b->value.get<double>() - a->value.get<double>()) / std::fabs(a->value.get<double>());
  if (numbers_equal(a->value, b->value)) return;
  const StructuralJudgement sj = judge_structural(ha.flat, hb.flat, row.id, o.size_tolerance);
  row.test = sj.test;
  row.verdict = sj.changed ? Verdict::changed : sj.low_confidence ? Verdict::info : Verdict::same;
  row.note = sj.note;
}

// "caches.l1.line_bytes" -> {"l1", "line_bytes"}; "shared_memory.banks" -> {"shared_memory", "banks"}
std::pair<std::string, std::string> section_of(const std::string& id) {
  std::string s = id.rfind("caches.", 0) == 0 ? id.substr(7) : id;
  const auto dot = s.find('.');
  if (dot == std::string::npos) return {s, ""};
  return {s.substr(0, dot), s.substr(dot + 1)};
}

// The per-benchmark rows as the gate of two bench.json files judges them: a difference between
// single samples has no noise model (two back-to-back H100 runs differ by 6-8 % in throughput),
// so it is INFO, never WORSE; rows with repetitions on both sides keep their U-test or spread verdict.
void judge_without_headline(GateResult& r) {
  for (auto& row : r.detail.rows) {
    if (row.kind != "counter") continue;
    if (row.test == "utest" || row.test == "spread") ++r.noise_judged;
    if (row.test != "threshold" || row.verdict == Verdict::same || row.verdict == Verdict::info) continue;
    row.verdict = Verdict::info;
    row.note = "one sample a side: no noise model (repetitions or archives decide)";
    ++r.unjudged;
  }
  if (r.unjudged > 0)
    r.notes.push_back(std::to_string(r.unjudged) + " per-benchmark difference" + (r.unjudged == 1 ? "" : "s") +
                      " beyond the threshold rest on one sample a side: listed as INFO, not judged (give "
                      "archives with topology.json for the headline gate, or runs with "
                      "--benchmark_repetitions=2 or more)");
}

}  // namespace

bool GateResult::no_verdict() const {
  return !headline && !refused() && unjudged > 0 && noise_judged == 0 && worse() == 0;
}

int GateResult::worse() const {
  if (!headline) return detail.count(Verdict::worse);
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const GateRow& r) { return r.verdict == Verdict::worse; }));
}

int GateResult::analyzer_changes() const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const GateRow& r) { return r.verdict == Verdict::analyzer_changed; }));
}

int GateResult::structural_changes() const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const GateRow& r) {
    return r.kind == Figure::Kind::structure && r.verdict == Verdict::changed;
  }));
}

namespace {

// "base: contended: <evidence>" for each run memhier-bench marked (bench/cli/conditions.hpp).
std::vector<std::string> untrusted_runs(const CompareInput& base, const CompareInput& now) {
  std::vector<std::string> out;
  for (const auto& [side, in] : {std::pair<const char*, const CompareInput*>{"base", &base}, {"new", &now}}) {
    const bool c = in->bench.context_or("measurement_contended", "") == "true";
    const bool t = in->bench.context_or("measurement_throttled", "") == "true";
    if (c || t)
      out.push_back(std::string(side) + ": " + (c && t ? "contended and throttled" : c ? "contended" : "throttled") + " (" +
                    in->bench.context_or("measurement_evidence", "no evidence recorded") + ")");
  }
  return out;
}

}  // namespace

// Topologies of different analyzers, compared as archived: their structural differences are the
// analyzers' (ANALYZER-CHANGED), the headline's and the detail's alike.
void mark_analyzer_changes(GateResult& r, std::vector<std::pair<std::string, GateRow>>& rows) {
  if (!r.analyzers_differ) return;
  const std::string note = "the archived topologies are of different analyzers (" + r.analysis.archived_base + ", " +
                           r.analysis.archived_now + "): not a change of the GPU";
  for (auto& [k, row] : rows)
    if (row.verdict == Verdict::changed) row.verdict = Verdict::analyzer_changed, row.note = note;
  for (auto& row : r.detail.rows)
    if (row.kind == "topology" && row.verdict == Verdict::changed) row.verdict = Verdict::analyzer_changed;
}

GateResult gate_compare(const CompareInput& base, const CompareInput& now, const GateOptions& o, const PairAnalysis& pa) {
  GateResult r;
  r.options = o;
  r.analysis = pa;
  r.base = info_of(base);
  r.now = info_of(now);
  CompareOptions co;
  co.threshold = o.bandwidth_threshold;
  co.latency_floor_cycles = o.latency_floor_cycles;
  co.ignore_device = o.ignore_device;
  co.common_only = o.common_only;
  co.size_tolerance = o.size_tolerance;
  r.detail = compare_runs(base, now, co);
  r.same_device = r.detail.same_device;
  r.identity_keys_differing = r.detail.identity_keys_differing;
  for (const auto& d : r.detail.context_diffs)
    if (d.key != "driver_version") r.context_diffs.push_back(d);
  if (r.refused()) return r;
  r.untrusted = untrusted_runs(base, now);
  if (r.refused_conditions()) return r;
  for (const auto& u : r.untrusted) r.notes.push_back("verdicts on a run marked " + u.substr(u.find(' ') + 1) + " (--allow-contended)");
  if (!base.topology || !now.topology) {
    r.notes.push_back(std::string("no topology.json in ") + (!base.topology && !now.topology ? "either run" : !base.topology ? "base" : "new") +
                      ": the gate judges the per-benchmark counters (run memhier-infer for the headline)");
    judge_without_headline(r);
    return r;
  }
  r.headline = true;
  r.analyzers_differ = !same_analyzer(*base.topology, *now.topology);
  if (r.analysis.archived_base.empty()) r.analysis.archived_base = analyzer_text(*base.topology);
  if (r.analysis.archived_now.empty()) r.analysis.archived_now = analyzer_text(*now.topology);
  const Headline ha = extract_headline(*base.topology, base.bench), hb = extract_headline(*now.topology, now.bench);
  std::set<std::string> ids;
  for (const auto& [k, v] : ha.figures) ids.insert(k);
  for (const auto& [k, v] : hb.figures) ids.insert(k);
  std::vector<std::pair<std::string, GateRow>> rows;
  for (const auto& id : ids) {
    const Figure* a = ha.figures.count(id) ? &ha.figures.at(id) : nullptr;
    const Figure* b = hb.figures.count(id) ? &hb.figures.at(id) : nullptr;
    GateRow row;
    row.id = id;
    row.label = figure_label(id);
    row.kind = (a ? a : b)->kind;
    row.base = a ? a->value : nlohmann::json();
    row.now = b ? b->value : nlohmann::json();
    if (row.base.is_null() && row.now.is_null()) {
      auto [section, field] = section_of(id);
      r.undetermined[section].push_back(field.empty() ? section : field);
      continue;
    }
    judge_row(row, a, b, ha, hb, o);
    apply_fleet_baseline(row, o);  // --baseline: within the fleet's board-to-board spread is SAME
    if (o.ignore_device && row.verdict != Verdict::same) row.verdict = Verdict::info;
    rows.emplace_back(figure_order(id, row.kind), std::move(row));
  }
  mark_analyzer_changes(r, rows);
  std::sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (auto& [k, row] : rows) r.rows.push_back(std::move(row));
  if (o.ignore_device && r.same_device)  // different GPUs: the gate line says it
    r.notes.push_back("different GPUs side by side (--ignore-device): no verdicts, ratios new/base");
  return r;
}

int gate_exit_code(const GateResult& r, bool fail_on_worse, bool fail_on_structure) {
  if (r.refused()) return 4;
  if (r.refused_conditions()) return 7;
  if (r.options.ignore_device && !r.same_device) return 0;
  if (fail_on_structure && (r.structural_changes() > 0 || (!r.headline && r.detail.structure() == "CHANGED"))) return 3;
  if (fail_on_worse && r.worse() > 0) return 1;
  if (r.no_verdict() && (fail_on_worse || fail_on_structure)) return 5;
  return 0;
}

}  // namespace memhier::analysis
