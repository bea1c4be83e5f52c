// memhier-compare --fleet renderings (fleet.hpp): console (one screen, <= 100 columns), Markdown
// (every figure, for a CI job summary) and JSON (memhier-fleet/1, the --baseline input).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "analysis/gate/compare_detail.hpp"
#include "analysis/gate/fleet.hpp"

namespace memhier::analysis {

using compare_detail::wrap;

namespace {

constexpr std::size_t kConsoleRows = 16;  // figure rows on the console (one screen)
constexpr std::size_t kConsoleBoards = 10;

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// A label that does not fit its column sits on a line of its own, whole; the row follows, indented.
std::string label_cell(const std::string& label, std::size_t width) {
  std::ostringstream o;
  if (label.size() < width) o << std::left << std::setw(static_cast<int>(width)) << label;
  else o << label << "\n" << std::string(width, ' ');
  return o.str();
}

std::string tail(const std::string& s, std::size_t n) { return s.size() <= n ? s : "..." + s.substr(s.size() - (n - 3)); }

std::string number_text(const std::string& id, Figure::Kind kind, double x) {
  return compare_detail::unit_text(id, kind == Figure::Kind::latency, x);
}

std::string value_text(const std::string& id, const nlohmann::json& v) {
  if (v.is_null()) return "-";
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number()) return number_text(id, Figure::Kind::structure, v.get<double>());
  if (v.is_array() && v.size() > 2 && std::all_of(v.begin(), v.end(), [&](const nlohmann::json& x) { return x == v[0]; }))
    return std::to_string(v.size()) + " x " + v[0].dump();
  return v.is_string() ? v.get<std::string>() : v.dump();  // never cut
}

std::string deviation_text(const FleetFigure& f, const FleetOutlier& w) {
  if (f.kind == Figure::Kind::latency) return fmt("%+.1f cy", w.deviation);
  return f.median != 0 ? fmt("%+.1f %%", 100 * w.deviation / std::fabs(f.median)) : fmt("%+g", w.deviation);
}

std::string z_text(const FleetOutlier& w) { return w.z ? fmt("%.1f", *w.z) : "inf"; }

int outlier_rows(const FleetResult& r) {
  int n = 0;
  for (const auto& f : r.figures) n += static_cast<int>(f.outliers.size());
  return n;
}

int disagreement_rows(const FleetResult& r) {
  int n = 0;
  for (const auto& s : r.structure) n += static_cast<int>(s.disagreements.size());
  return n;
}

// "fleet: OUTLIER - 1 of 3 boards outside: GPU-1 (16 figures, 0 structural fields)" or PASS.
std::string verdict_line(const FleetResult& r) {
  if (!r.refusal.empty()) return "fleet: REFUSED - " + r.refusal;
  const auto out = r.outlier_boards();
  std::ostringstream o;
  if (out.empty()) {
    o << "fleet: PASS - " << r.count_text() << " within the fleet on " << r.figures.size() << " figures and "
      << r.structure.size() << " structural fields";
    return o.str();
  }
  const bool one_each = r.board_count() == static_cast<int>(r.boards.size());
  o << "fleet: OUTLIER - " << out.size() << " of " << (one_each ? r.count_text() : r.count_text() + ": archives") << " outside:";
  for (std::size_t i = 0; i < out.size(); ++i)
    o << (i ? "; " : " ") << r.boards[out[i]].name << " (" << r.figure_outliers(out[i]) << " figures, "
      << r.disagreements(out[i]) << " structural fields; " << r.boards[out[i]].archive << ")";
  return o.str();
}

void console_boards(std::ostringstream& o, const FleetResult& r) {
  const auto out = r.outlier_boards();
  const bool all = r.boards.size() <= kConsoleBoards;
  o << std::left << std::setw(46) << "board" << std::setw(14) << "host" << std::setw(16) << "driver" << "run\n";
  std::size_t shown = 0;
  for (int b = 0; b < static_cast<int>(r.boards.size()); ++b) {
    if (!all && std::find(out.begin(), out.end(), b) == out.end()) continue;
    const auto& x = r.boards[b];
    o << std::setw(46) << (x.name + " ") << std::setw(14) << tail(x.host.empty() ? "-" : x.host, 12) << std::setw(16)
      << tail(x.driver, 14) << x.utc << "\n";
    ++shown;
  }
  if (shown < r.boards.size()) o << "... and " << r.boards.size() - shown << " more boards within the fleet\n";
}

void console_figures(std::ostringstream& o, const FleetResult& r) {
  const int n = outlier_rows(r);
  if (n == 0) {
    o << "\nFIGURES: every board within the fleet on " << r.figures.size() << " figures\n";
    return;
  }
  o << "\n" << std::left << std::setw(32) << "FIGURES OUTSIDE THE FLEET" << std::right << std::setw(10) << "median" << "  "
    << std::left << std::setw(26) << "board" << std::right << std::setw(10) << "value" << std::setw(11) << "deviation"
    << std::setw(7) << "z" << "\n";
  std::size_t rows = 0;
  for (const auto& f : r.figures)
    for (const auto& w : f.outliers) {
      if (++rows > kConsoleRows) continue;
      o << label_cell(f.label, 32) << std::right << std::setw(10)
        << number_text(f.id, f.kind, f.median) << "  " << std::left << std::setw(26) << (r.boards[w.board].name + " ")
        << std::right << std::setw(10) << number_text(f.id, f.kind, w.value) << std::setw(11) << deviation_text(f, w)
        << std::setw(7) << z_text(w) << "\n";
    }
  if (rows > kConsoleRows)
    o << "... and " << rows - kConsoleRows << " more (--format=markdown or json lists every one)\n";
}

void console_structure(std::ostringstream& o, const FleetResult& r) {
  if (disagreement_rows(r) == 0) {
    o << "\nSTRUCTURE: every board agrees on " << r.structure.size() << " structural fields\n";
    return;
  }
  o << "\n" << std::left << std::setw(30) << "STRUCTURAL DISAGREEMENTS" << std::setw(24) << "majority" << std::setw(28)
    << "board" << "value\n";
  std::size_t rows = 0;
  for (const auto& s : r.structure)
    for (const auto& d : s.disagreements) {
      if (++rows > kConsoleRows / 2) continue;
      const std::string maj = value_text(s.id, s.majority) + " (" + std::to_string(s.majority_boards) + " of " +
                              std::to_string(s.determined) + (s.tie ? ", tie" : "") + ")";
      o << label_cell(s.label, 30) << std::left << std::setw(24) << (maj + " ") << std::setw(28)
        << (r.boards[d.board].name + " ") << value_text(s.id, d.value) << "\n";
    }
  if (rows > kConsoleRows / 2) o << "... and " << rows - kConsoleRows / 2 << " more (--format=markdown or json)\n";
}

std::string kind_name(Figure::Kind k) {
  return k == Figure::Kind::structure ? "structure" : k == Figure::Kind::latency ? "latency" : "bandwidth";
}

}  // namespace

std::string render_fleet_console(const FleetResult& r) {
  std::ostringstream o;
  o << wrap(verdict_line(r), 100, 2);  // the verdict first; a refusal is all there is to say
  if (!r.refusal.empty()) return o.str();
  o << "memhier-compare --fleet: " << r.count_text() << " of " << r.gpu << " (compute " << r.compute_capability
    << (r.backend == "cuda" ? "" : ", " + r.backend) << ")\n";
  console_boards(o, r);
  console_figures(o, r);
  console_structure(o, r);
  int few = 0;
  for (const auto& f : r.figures) few += f.few_samples;
  if (few > 0)
    o << "\n" << wrap("note: " + std::to_string(few) + (few == 1 ? " board value" : " board values") +
                          " beyond the threshold rest" + (few == 1 ? "s" : "") + " on fewer than " +
                          std::to_string(r.options.gate.min_samples) + " samples: never named alone", 100, 6);
  for (const auto& n : r.notes) o << wrap("note: " + n, 100, 6);
  o << "board-to-board spreads per figure (a baseline: --baseline FILE): --format=json -o FILE\n";
  return o.str();
}

std::string render_fleet_markdown(const FleetResult& r) {
  std::ostringstream o;
  o << "### memhier-compare --fleet: " << verdict_line(r).substr(7) << "\n\n";
  if (!r.refusal.empty()) return o.str();
  o << r.count_text() << " of " << r.gpu << " (compute " << r.compute_capability << ", " << r.backend << ")\n\n";
  o << "| board | host | driver | run | archive | figures outside | structural disagreements |\n|---|---|---|---|---|---|---|\n";
  for (int b = 0; b < static_cast<int>(r.boards.size()); ++b) {
    const auto& x = r.boards[b];
    o << "| " << x.name << " | " << x.host << " | " << x.driver << " | " << x.utc << " | `" << x.archive << "` | "
      << r.figure_outliers(b) << " | " << r.disagreements(b) << " |\n";
  }
  o << "\n| figure | median | board-to-board spread | boards | outside the fleet |\n|---|---|---|---|---|\n";
  for (const auto& f : r.figures) {
    std::string out;
    for (const auto& w : f.outliers)
      out += (out.empty() ? "" : "; ") + r.boards[w.board].name + " " + number_text(f.id, f.kind, w.value) + " (" +
             deviation_text(f, w) + ", z " + z_text(w) + ")";
    o << "| " << f.label << " | " << number_text(f.id, f.kind, f.median) << " | " << number_text(f.id, f.kind, f.spread)
      << " | " << f.n << " | " << (out.empty() ? "-" : "**" + out + "**") << " |\n";
  }
  o << "\n| structural field | majority | disagreeing boards |\n|---|---|---|\n";
  int agree = 0;
  for (const auto& s : r.structure) {
    if (s.disagreements.empty()) {
      ++agree;
      continue;
    }
    std::string d;
    for (const auto& x : s.disagreements) d += (d.empty() ? "" : "; ") + r.boards[x.board].name + ": " + value_text(s.id, x.value);
    o << "| " << s.label << " | " << value_text(s.id, s.majority) << " (" << s.majority_boards << " of " << s.determined
      << (s.tie ? ", tie" : "") << ") | **" << d << "** |\n";
  }
  o << "\n" << agree << " structural fields agree on every board that determines them.\n";
  for (const auto& n : r.notes) o << "\n- note: " << n;
  return o.str() + (r.notes.empty() ? "" : "\n");
}

nlohmann::json render_fleet_json(const FleetResult& r) {
  nlohmann::json j;
  j["format"] = "memhier-fleet/1";
  j["gpu"] = r.gpu;
  j["compute_capability"] = r.compute_capability;
  j["backend"] = r.backend;
  j["refused"] = r.refusal;
  j["board_count"] = r.board_count();  // boards told apart by gpu_uuid ("boards" lists the archives)
  const auto& g = r.options.gate;
  j["options"] = {{"z_threshold", r.options.z_threshold}, {"bandwidth_threshold", g.bandwidth_threshold},
                  {"latency_threshold", g.latency_threshold}, {"latency_floor_cycles", g.latency_floor_cycles},
                  {"size_tolerance", g.size_tolerance}, {"min_samples", g.min_samples}};
  j["boards"] = nlohmann::json::array();
  for (int b = 0; b < static_cast<int>(r.boards.size()); ++b) {
    const auto& x = r.boards[b];
    j["boards"].push_back({{"name", x.name}, {"gpu_uuid", x.gpu_uuid}, {"host_name", x.host}, {"archive", x.archive},
                           {"driver", x.driver}, {"plan", x.plan}, {"utc", x.utc},
                           {"figures_outside", r.figure_outliers(b)}, {"structural_disagreements", r.disagreements(b)}});
  }
  j["figures"] = nlohmann::json::array();
  for (const auto& f : r.figures) {
    nlohmann::json values = nlohmann::json::object(), out = nlohmann::json::array();
    for (std::size_t b = 0; b < f.values.size(); ++b)
      if (f.values[b]) values[r.boards[b].name] = *f.values[b];
    for (const auto& w : f.outliers)
      out.push_back({{"board", r.boards[w.board].name}, {"value", w.value}, {"deviation", w.deviation},
                     {"z", w.z ? nlohmann::json(*w.z) : nlohmann::json()}, {"worse", w.worse}});
    j["figures"].push_back({{"id", f.id}, {"label", f.label}, {"kind", kind_name(f.kind)}, {"boards", f.n},
                            {"median", f.median}, {"mad", f.mad}, {"threshold", f.floor}, {"spread", f.spread},
                            {"few_samples", f.few_samples}, {"values", values}, {"outliers", out}});
  }
  j["structure"] = nlohmann::json::array();
  for (const auto& s : r.structure) {
    nlohmann::json d = nlohmann::json::array();
    for (const auto& x : s.disagreements) d.push_back({{"board", r.boards[x.board].name}, {"value", x.value}, {"note", x.note}});
    j["structure"].push_back({{"id", s.id}, {"label", s.label}, {"majority", s.majority},
                              {"majority_boards", s.majority_boards}, {"determined", s.determined}, {"tie", s.tie},
                              {"disagreements", d}});
  }
  nlohmann::json outside = nlohmann::json::array();
  for (int b : r.outlier_boards()) outside.push_back(r.boards[b].name);
  j["outside"] = outside;
  j["notes"] = r.notes;
  j["exit_code"] = fleet_exit_code(r);
  return j;
}

}  // namespace memhier::analysis
