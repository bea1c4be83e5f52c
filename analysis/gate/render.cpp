// Renderings of the gate (analysis/gate/gate.hpp): console (<= 100 columns), Markdown (a CI job
// summary or pull-request comment) and JSON (format memhier-compare/2, docs/formats.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <sstream>
#include <vector>

#include "analysis/gate/gate.hpp"
#include "analysis/gate/compare_detail.hpp"

namespace memhier::analysis {

namespace compare_detail {

// Words wrapped to `width` columns, continuation lines indented by `indent`.
// A word longer than a line (a JSON list of values) is broken after its commas, else anywhere.
std::string wrap(const std::string& text, std::size_t width, std::size_t indent) {
  std::istringstream in(text);
  std::string word, line, out;
  const std::size_t room = width > indent + 8 ? width - indent : 8;
  std::vector<std::string> words;
  while (in >> word) {
    while (word.size() > room) {
      std::size_t cut = word.rfind(',', room - 1);
      cut = cut == std::string::npos || cut == 0 ? room : cut + 1;
      words.push_back(word.substr(0, cut));
      word = word.substr(cut);
    }
    words.push_back(word);
  }
  for (const auto& w : words) {
    if (!line.empty() && line.size() + 1 + w.size() > width) {
      out += line + "\n";
      line = std::string(indent, ' ');
    }
    line += (line.empty() || line.back() == ' ' ? "" : " ") + w;
  }
  return out + line + "\n";
}

namespace {
std::string fmt1(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}
// x in the largest unit of `units` (each `step` times the one before) that keeps it >= 1.
std::string scaled(double x, double step, const std::vector<const char*>& units) {
  std::size_t u = 0;
  while (u + 1 < units.size() && std::fabs(x) >= step) x /= step, ++u;
  if (u == 0 && x == std::floor(x)) return fmt1("%.0f ", x) + units[0];
  return fmt1(std::fabs(x) < 10 ? "%.2f " : std::fabs(x) < 1000 ? "%.1f " : "%.0f ", x) + units[u];
}
}  // namespace

std::string unit_text(const std::string& id, bool latency, double x) {
  auto has_part = [&](const char* p) { return id.find(p) != std::string::npos; };
  if (has_part("bytes_per_second")) return scaled(x, 1000, {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"});
  if (has_part("per_clock")) return fmt1("%.1f B/clk", x);
  if (latency) return fmt1("%.1f", x);
  if (has_part("_bytes")) return scaled(x, 1024, {"B", "KiB", "MiB", "GiB", "TiB"});
  return fmt1("%g", x);
}

}  // namespace compare_detail

using compare_detail::wrap;

namespace {

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// A value in its unit; text is never cut.
std::string value_text(const GateRow& row, const nlohmann::json& v) {
  if (v.is_null()) return "-";
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array() && v.size() > 2 && std::all_of(v.begin(), v.end(), [&](const nlohmann::json& x) { return x == v[0]; }))
    return std::to_string(v.size()) + " x " + v[0].dump();  // ways of equal sets
  if (!v.is_number()) return v.dump();
  return compare_detail::unit_text(row.id, row.kind == Figure::Kind::latency, v.get<double>());
}

std::string change_text(const GateRow& row) {
  if (row.base.is_number() && row.now.is_number()) {
    const double d = row.now.get<double>() - row.base.get<double>();
    if (d == 0) return "";
    if (row.kind == Figure::Kind::latency) return fmt("%+.1f cy", d);
    if (row.change) return fmt("%+.1f %%", 100 * *row.change);
    return "new";
  }
  if (row.base.is_null() || row.now.is_null() || row.base == row.now) return "";
  return "differs";
}

std::string ratio_text(const GateRow& row) {
  if (row.base.is_number() && row.now.is_number() && row.base.get<double>() != 0)
    return fmt("x%.3f", row.now.get<double>() / row.base.get<double>());
  if (row.base == row.now) return "=";
  return row.base.is_null() || row.now.is_null() ? "" : "differs";
}

// A note is shown for a row with a verdict other than SAME, and for a SAME row that a spread or a
// tolerance kept from a verdict (its note says so); not where one side is "-" (that says it).
bool note_shown(const GateRow& row) {
  if (row.note.empty() || row.base.is_null() || row.now.is_null()) return false;  // "-" says it
  return row.verdict != Verdict::same || has(row.note, "within");
}

std::string tail(const std::string& s, std::size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - (n - 3)); }

std::string run_line(const RunInfo& i) {
  std::string s = i.gpu + ", driver " + i.driver;
  if (i.backend != "cuda") s += ", " + i.backend;
  if (!i.utc.empty()) s += ", " + i.utc;
  return s;
}

std::string gate_line(const GateResult& r) {
  std::ostringstream o;
  if (r.refused()) {
    std::string keys;
    for (const auto& k : r.identity_keys_differing) keys += (keys.empty() ? "" : ", ") + k;
    return "gate: REFUSED - different GPUs (" + keys + " differ); compare side by side with --ignore-device";
  }
  if (r.refused_conditions()) {
    std::string s = "gate: REFUSED - not measured on an idle, unthrottled GPU: ";
    for (std::size_t i = 0; i < r.untrusted.size(); ++i) s += (i ? "; " : "") + r.untrusted[i];
    return s + "; compare anyway with --allow-contended";
  }
  if (r.options.ignore_device && !r.same_device)
    return "gate: none - different GPUs side by side (--ignore-device): no verdicts, ratios new/base";
  if (r.no_verdict())
    return "gate: NO VERDICT - " + std::to_string(r.unjudged) +
           " per-benchmark differences rest on single samples (no noise model); compare archives or repetitions";
  const int w = r.worse(), c = r.headline ? r.structural_changes() : (r.detail.structure() == "CHANGED" ? 1 : 0);
  int figures = 0, fields = 0;
  for (const auto& row : r.rows) (row.kind == Figure::Kind::structure ? fields : figures)++;
  o << "gate: " << (w || c ? "FAIL" : "PASS") << " - ";
  if (r.same_input()) o << "same input: " << r.analysis.same_input << "; ";
  o << w << " worse";
  if (r.headline) o << " of " << figures << " figures, " << c << " structural change" << (c == 1 ? "" : "s") << " of " << fields << " fields";
  else o << " per-benchmark rows, structure " << (r.detail.structure().empty() ? "not compared" : r.detail.structure());
  if (const int a = r.analyzer_changes(); a > 0)
    o << "; " << a << " ANALYZER-CHANGED (structural differences between the archived topologies' analyzers: not failures)";
  return o.str();
}

// "worse: l1 hit latency +10.0 cy, ...; changed: l1 line" (empty when neither).
std::string failing_text(const GateResult& r) {
  std::string worse, changed;
  for (const auto& row : r.rows) {
    std::string& s = row.verdict == Verdict::worse ? worse : changed;
    if (row.verdict == Verdict::worse || row.verdict == Verdict::changed) {
      const std::string c = change_text(row);
      s += (s.empty() ? "" : ", ") + row.label + (c.empty() ? "" : " " + c);
    }
  }
  std::string out = worse.empty() ? "" : "worse: " + worse;
  if (!changed.empty()) out += (out.empty() ? "" : "; ") + std::string("changed: ") + changed;
  return out;
}

std::string detail_line(const CompareResult& d) {
  const int differ = d.count(Verdict::worse) + d.count(Verdict::better) + d.count(Verdict::changed) + d.count(Verdict::info);
  std::ostringstream o;
  o << "per-benchmark rows (not gated): " << differ << " of " << d.rows.size()
    << " differ beyond their threshold (--detail lists them)";
  return o.str();
}

// How the topologies came about, in one line ("" for bench.json files).
std::string analysis_line(const GateResult& r) {
  const PairAnalysis& a = r.analysis;
  if (!r.headline || a.running.empty() || r.same_input()) return "";
  const std::string archived = "(archived: " + a.archived_base + ", " + a.archived_now + ")";
  if (a.reanalyzed) return "re-analyzed both archives with analyzer " + a.running + " " + archived;
  std::string s = "compared the archived topologies " + archived + ", " +
                  (a.as_archived ? std::string("as asked (--as-archived)") : "not analyzed again: " + a.kept_why);
  if (r.analyzers_differ) s += "; different analyzers: a structural difference is ANALYZER-CHANGED";
  return s;
}

std::string undetermined_text(const GateResult& r) {
  std::string s;
  for (const auto& [section, fields] : r.undetermined) {
    s += s.empty() ? "" : "; ";
    s += section + ":";
    for (std::size_t i = 0; i < fields.size(); ++i) s += (i ? ", " : " ") + fields[i];
  }
  return s;
}

}  // namespace

namespace {

// A context value in the unit of its magnitude where its key names one (l2_cache_bytes 50.0 MiB,
// theoretical_dram_bytes_per_second 3.35 TB/s, mem_clock_khz 2619 MHz); other values as recorded.
std::string context_value(const std::string& key, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end == v.c_str() || *end != 0) return v;
  if (key.size() > 4 && key.compare(key.size() - 4, 4, "_khz") == 0) return fmt("%.0f MHz", x / 1000);
  if (key.find("_bytes") != std::string::npos) return compare_detail::unit_text(key, false, x);
  return v;
}

struct Columns {
  std::size_t label = 24, value = 10, change = 10;
};

// Widths from the rows shown: a label never cut (one too long for the line sits on its own line).
Columns columns_of(const GateResult& r, const std::vector<const GateRow*>& rows) {
  Columns c;
  for (const auto* row : rows) {
    c.value = std::max({c.value, value_text(*row, row->base).size() + 2, value_text(*row, row->now).size() + 2});
    c.label = std::max(c.label, row->label.size());
  }
  c.value = std::min<std::size_t>(c.value, 22);
  const std::size_t rest = 2 * c.value + c.change + (r.options.ignore_device && !r.same_device ? 0 : 2 + 16 + 5);
  c.label = std::min(c.label, rest < 96 ? 96 - rest : std::size_t(20));
  return c;
}

void console_row(std::ostringstream& o, const GateResult& r, const GateRow& row, const Columns& c,
                 std::vector<std::string>& notes) {
  const bool side = r.options.ignore_device && !r.same_device;
  const std::string b = value_text(row, row.base), n = value_text(row, row.now);
  std::ostringstream line, tail;  // tail: the change, the verdict and the note's number
  tail << std::right << std::setw(static_cast<int>(c.change)) << (side ? ratio_text(row) : change_text(row));
  if (!side) tail << "  " << verdict_name(row.verdict);
  if (note_shown(row)) {
    notes.push_back(row.label + ": " + row.note);
    tail << " [" << notes.size() << "]";
  }
  line << std::right << std::setw(static_cast<int>(c.value)) << b << std::setw(static_cast<int>(c.value)) << n
       << tail.str();
  const bool fits = row.label.size() <= c.label && b.size() < c.value && n.size() < c.value;
  if (fits) {
    o << std::left << std::setw(static_cast<int>(c.label)) << row.label << line.str() << "\n";
    return;
  }
  o << row.label << "\n";  // the name whole, the values below it
  if (b.size() < c.value && n.size() < c.value) o << std::string(c.label, ' ') << line.str() << "\n";
  else o << wrap("    " + b + " -> " + n + "  " + tail.str(), 100, 6);
}

}  // namespace

std::string render_gate_console(const GateResult& r, bool detail) {
  std::ostringstream o;
  o << wrap(gate_line(r) + (failing_text(r).empty() ? "" : ": " + failing_text(r)), 100, 2);
  if (!analysis_line(r).empty()) o << wrap(analysis_line(r), 100, 2);
  o << "base: " << run_line(r.base) << "\n      " << tail(r.base.label, 94) << "\n";
  if (!r.same_input()) o << "new:  " << run_line(r.now) << "\n      " << tail(r.now.label, 94) << "\n";
  if (r.base.driver != r.now.driver) o << "driver: " << r.base.driver << " -> " << r.now.driver << "\n";
  for (const auto& d : r.context_diffs)
    o << wrap("also: " + d.key + " " + context_value(d.key, d.base) + " -> " + context_value(d.key, d.now), 100, 6);
  for (const auto& n : r.notes) o << wrap("note: " + n, 100, 6);
  if (r.refused() || r.refused_conditions()) return o.str();
  const bool side = r.options.ignore_device && !r.same_device;
  std::vector<const GateRow*> shown;
  for (const auto& row : r.rows)
    if (r.detail_all || row.verdict != Verdict::same || (side && !row.base.is_null() && row.base != row.now)) shown.push_back(&row);
  const Columns c = columns_of(r, shown);
  std::vector<std::string> notes;
  bool first = true, last_structure = false;
  for (const auto* row : shown) {
    const bool structure = row->kind == Figure::Kind::structure;
    if (first || structure != last_structure) {
      o << "\n" << std::left << std::setw(static_cast<int>(c.label)) << (structure ? "STRUCTURE" : "FIGURES") << std::right
        << std::setw(static_cast<int>(c.value)) << "base" << std::setw(static_cast<int>(c.value)) << "new"
        << std::setw(static_cast<int>(c.change)) << (side ? "new/base" : "change") << (side ? "" : "  verdict") << "\n";
      first = false;
    }
    last_structure = structure;
    console_row(o, r, *row, c, notes);
  }
  if (const std::size_t hidden = r.rows.size() - shown.size(); hidden > 0)
    o << "\n" << hidden << (side ? " rows equal on both GPUs" : " rows SAME") << (shown.empty() ? " (every row)" : "")
      << " not shown; --all lists them\n";
  if (!r.headline && !detail) o << "\n" << render_console(r.detail, false);
  if (!notes.empty()) o << "\n";
  for (std::size_t i = 0; i < notes.size(); ++i) o << wrap("[" + std::to_string(i + 1) + "] " + notes[i], 100, 4);
  if (!r.undetermined.empty()) o << "\n" << wrap("not determined in either run: " + undetermined_text(r), 100, 2);
  if (detail) o << "\nPER-BENCHMARK ROWS\n" << render_console(r.detail, r.detail_all);
  if (r.headline && !side && !detail) o << "\n" << wrap(detail_line(r.detail), 100, 2);
  return o.str();
}

std::string render_gate_markdown(const GateResult& r, bool detail) {
  std::ostringstream o;
  const bool side = r.options.ignore_device && !r.same_device;
  const std::string g = gate_line(r);
  o << "### memhier-compare: " << g.substr(6) << "\n\n";
  if (!failing_text(r).empty()) o << "**" << failing_text(r) << "**\n\n";
  o << "- base: " << run_line(r.base) << " (`" << r.base.label << "`)\n";
  o << "- new: " << run_line(r.now) << " (`" << r.now.label << "`)\n";
  if (r.base.driver != r.now.driver) o << "- driver: " << r.base.driver << " → " << r.now.driver << "\n";
  for (const auto& d : r.context_diffs) o << "- also: " << d.key << " " << d.base << " → " << d.now << "\n";
  if (!analysis_line(r).empty()) o << "- " << analysis_line(r) << "\n";
  for (const auto& n : r.notes) o << "- note: " << n << "\n";
  o << "\n";
  if (r.refused() || r.refused_conditions()) return o.str();
  if (!r.rows.empty()) {
    o << "| figure | base | new | " << (side ? "new/base |\n|---|---:|---:|---:|\n" : "change | verdict |\n|---|---:|---:|---:|---|\n");
    std::vector<std::string> notes;
    for (const auto& row : r.rows) {
      o << "| " << (row.kind == Figure::Kind::structure ? "" : "**") << row.label
        << (row.kind == Figure::Kind::structure ? "" : "**") << " | " << value_text(row, row.base) << " | "
        << value_text(row, row.now) << " | " << (side ? ratio_text(row) : change_text(row));
      if (!side) o << " | " << verdict_name(row.verdict);
      if (note_shown(row)) {
        notes.push_back(row.label + ": " + row.note);
        o << " [" << notes.size() << "]";
      }
      o << " |\n";
    }
    o << "\n";
    for (std::size_t i = 0; i < notes.size(); ++i) o << i + 1 << ". " << notes[i] << "\n";
    if (!notes.empty()) o << "\n";
  }
  if (!r.undetermined.empty()) o << "Not determined in either run: " << undetermined_text(r) << ".\n\n";
  if (r.headline) o << detail_line(r.detail) << "\n";
  if (detail || !r.headline) o << "\n" << render_markdown(r.detail, r.detail_all);
  return o.str();
}

nlohmann::json render_gate_json(const GateResult& r, bool detail) {
  auto run = [](const RunInfo& i) {
    return nlohmann::json{{"label", i.label}, {"gpu", i.gpu}, {"driver", i.driver}, {"backend", i.backend},
                          {"cuda_runtime", i.cuda_runtime}, {"utc", i.utc}};
  };
  nlohmann::json j;
  j["format"] = "memhier-compare/2";
  j["base"] = run(r.base);
  j["new"] = run(r.now);
  j["same_device"] = r.same_device;
  j["refused"] = r.refused();
  j["identity_keys_differing"] = r.identity_keys_differing;
  j["context_differences"] = nlohmann::json::array();
  for (const auto& d : r.context_diffs) j["context_differences"].push_back({{"key", d.key}, {"base", d.base}, {"new", d.now}});
  const auto& o = r.options;
  j["options"] = {{"bandwidth_threshold", o.bandwidth_threshold}, {"latency_threshold", o.latency_threshold},
                  {"latency_floor_cycles", o.latency_floor_cycles}, {"size_tolerance", o.size_tolerance},
                  {"min_samples", o.min_samples}, {"ignore_device", o.ignore_device}, {"common_only", o.common_only}};
  j["headline"] = r.headline;
  j["analysis"] = {{"reanalyzed", r.analysis.reanalyzed}, {"as_archived", r.analysis.as_archived},
                   {"analyzer", r.analysis.running}, {"archived_base", r.analysis.archived_base},
                   {"archived_new", r.analysis.archived_now}, {"kept_why", r.analysis.kept_why},
                   {"analyzers_differ", r.analyzers_differ},
                   {"same_input", r.same_input() ? nlohmann::json(r.analysis.same_input) : nlohmann::json()}};
  j["notes"] = r.notes;
  nlohmann::json worse = nlohmann::json::array(), changed = nlohmann::json::array(), by_analyzer = nlohmann::json::array();
  j["figures"] = nlohmann::json::array();
  for (const auto& row : r.rows) {
    if (row.verdict == Verdict::worse) worse.push_back(row.id);
    if (row.verdict == Verdict::changed) changed.push_back(row.id);
    if (row.verdict == Verdict::analyzer_changed) by_analyzer.push_back(row.id);
    j["figures"].push_back({{"id", row.id}, {"label", row.label},
                            {"kind", row.kind == Figure::Kind::structure ? "structure"
                                     : row.kind == Figure::Kind::latency ? "latency" : "bandwidth"},
                            {"base", row.base}, {"new", row.now},
                            {"change", row.change ? nlohmann::json(*row.change) : nlohmann::json()},
                            {"threshold", row.threshold}, {"spread", row.spread},
                            {"samples_base", row.samples_base}, {"samples_new", row.samples_now},
                            {"test", row.test}, {"verdict", verdict_name(row.verdict)}, {"note", row.note}});
  }
  j["undetermined"] = r.undetermined;
  j["gate"] = {{"result", r.refused() ? "refused" : r.refused_conditions() ? "refused_conditions"
                          : (r.options.ignore_device && !r.same_device) ? "none"
                          : r.no_verdict() ? "no_verdict"
                          : (r.worse() || r.structural_changes()) ? "fail" : "pass"},
               {"unjudged_rows", r.unjudged}, {"untrusted_runs", r.untrusted},
               {"worse", worse}, {"structural_changes", changed}, {"analyzer_changes", by_analyzer},
               {"exit_code", gate_exit_code(r, true, true)}};
  j["detail_summary"] = render_json(r.detail)["summary"];
  if (detail) j["detail"] = render_json(r.detail);
  return j;
}

}  // namespace memhier::analysis
