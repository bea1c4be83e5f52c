// memhier-compare's per-benchmark report: console table, Markdown, JSON (memhier-compare/1).
#include <algorithm>
#include <iomanip>
#include <sstream>

#include "analysis/gate/compare.hpp"
#include "analysis/gate/compare_detail.hpp"
#include "analysis/gate/topology_fields.hpp"

namespace memhier::analysis {

using compare_detail::is_fraction;

namespace {

std::string pct(const CompareRow& row) {
  if (!row.change) {
    if (row.base.is_number() && row.now.is_number() && row.base != row.now) return "new";
    return "";
  }
  std::ostringstream s;
  if (is_fraction(row.kind == "topology" ? row.name : row.field))
    s << std::showpos << std::fixed << std::setprecision(3) << *row.change << " abs";
  else
    s << std::showpos << std::fixed << std::setprecision(1) << 100.0 * *row.change << "%";
  return s.str();
}

std::string test_text(const CompareRow& row) {
  std::ostringstream s;
  s << row.test;
  if (row.p_value) s << " p=" << std::setprecision(3) << *row.p_value;
  if (row.n_base > 1 || row.n_now > 1) s << " n=" << row.n_base << "/" << row.n_now;
  return s.str();
}

std::string what(const CompareRow& row) { return row.field.empty() ? row.name : row.name + " " + row.field; }

std::vector<const CompareRow*> shown(const CompareResult& r, bool all_rows) {
  std::vector<const CompareRow*> v;
  for (const auto& row : r.rows)
    if (all_rows || row.verdict != Verdict::same) v.push_back(&row);
  // Worst first, then changed, better, same.
  auto rank = [](Verdict x) {
    return x == Verdict::worse ? 0 : x == Verdict::changed ? 1 : x == Verdict::better ? 2 : x == Verdict::info ? 3 : 4;
  };
  std::stable_sort(v.begin(), v.end(), [&](const CompareRow* a, const CompareRow* b) { return rank(a->verdict) < rank(b->verdict); });
  return v;
}

std::string summary_line(const CompareResult& r) {
  std::ostringstream s;
  s << r.count(Verdict::worse) << " worse, " << r.count(Verdict::better) << " better, " << r.count(Verdict::changed)
    << " changed, " << r.count(Verdict::same) << " same, " << r.count(Verdict::info) << " info (threshold "
    << 100.0 * r.options.threshold << " %, U-test alpha " << r.options.alpha << ")";
  if (!r.structure().empty()) {
    int changed = 0;
    for (const auto& row : r.rows)
      if (row.kind == "topology" && row.field_class == "structural" && row.verdict == Verdict::changed) ++changed;
    s << "; structure " << r.structure() << " (" << r.structural_rows() << " structural fields, " << changed
      << " changed)";
  }
  return s.str();
}

std::string refusal(const CompareResult& r) {
  std::string s = "different GPUs (";
  for (std::size_t i = 0; i < r.identity_keys_differing.size(); ++i) s += (i ? ", " : "") + r.identity_keys_differing[i];
  return s + " differ); compare anyway with --ignore-device";
}

}  // namespace

std::string render_console(const CompareResult& r, bool all_rows) {
  std::ostringstream o;
  o << "base: " << r.base_label << "\nnew:  " << r.now_label << "\n";
  for (const auto& d : r.context_diffs) o << "context " << d.key << ": " << d.base << " -> " << d.now << "\n";
  if (!r.same_device && !r.options.ignore_device) {
    o << "refused: " << refusal(r) << "\n";
    return o.str();
  }
  for (const auto& n : r.notes) o << "note: " << n << "\n";
  auto v = shown(r, all_rows);
  std::size_t w = 20;
  for (auto* row : v) w = std::max(w, what(*row).size());
  w = std::min<std::size_t>(w, 90);
  if (!v.empty()) {
    o << std::left << std::setw(8) << "verdict" << "  " << std::setw(static_cast<int>(w)) << "benchmark / field" << "  "
      << std::right << std::setw(14) << "base" << "  " << std::setw(14) << "new" << "  " << std::setw(10) << "change"
      << "  test\n";
    for (auto* row : v) {
      o << std::left << std::setw(8) << verdict_name(row->verdict) << "  " << std::setw(static_cast<int>(w)) << what(*row)
        << "  " << std::right << std::setw(14) << show(row->base) << "  " << std::setw(14) << show(row->now) << "  "
        << std::setw(10) << pct(*row) << "  " << test_text(*row);
      if (!row->note.empty()) o << "  (" << row->note << ")";
      o << "\n";
    }
  }
  o << summary_line(r) << "\n";
  return o.str();
}

std::string render_markdown(const CompareResult& r, bool all_rows) {
  std::ostringstream o;
  const bool refused = !r.same_device && !r.options.ignore_device;
  o << "### memhier-compare: " << (refused ? "refused" : r.worse() ? "regression" : "no regression") << "\n\n";
  o << "base `" << r.base_label << "` → new `" << r.now_label << "`\n\n";
  if (!r.context_diffs.empty()) {
    o << "| context | base | new |\n|---|---|---|\n";
    for (const auto& d : r.context_diffs) o << "| " << d.key << " | " << d.base << " | " << d.now << " |\n";
    o << "\n";
  }
  if (refused) {
    o << "**Refused:** " << refusal(r) << "\n";
    return o.str();
  }
  for (const auto& n : r.notes) o << "> " << n << "\n";
  if (!r.notes.empty()) o << "\n";
  o << "**" << summary_line(r) << "**\n\n";
  auto v = shown(r, all_rows);
  if (!v.empty()) {
    o << "| verdict | benchmark / field | base | new | change | test | note |\n|---|---|---:|---:|---:|---|---|\n";
    for (auto* row : v)
      o << "| " << verdict_name(row->verdict) << " | `" << what(*row) << "` | " << show(row->base) << " | "
        << show(row->now) << " | " << pct(*row) << " | " << test_text(*row) << " | " << row->note << " |\n";
  }
  return o.str();
}

nlohmann::json render_json(const CompareResult& r) {
  nlohmann::json j;
  j["format"] = "memhier-compare/1";
  j["base"] = r.base_label;
  j["new"] = r.now_label;
  j["options"] = {{"threshold", r.options.threshold}, {"alpha", r.options.alpha},
                  {"ignore_device", r.options.ignore_device}, {"common_only", r.options.common_only}};
  j["same_device"] = r.same_device;
  j["refused"] = !r.same_device && !r.options.ignore_device;
  j["identity_keys_differing"] = r.identity_keys_differing;
  j["context_differences"] = nlohmann::json::array();
  for (const auto& d : r.context_diffs) j["context_differences"].push_back({{"key", d.key}, {"base", d.base}, {"new", d.now}});
  j["notes"] = r.notes;
  j["only_in_base"] = r.only_base;
  j["only_in_new"] = r.only_now;
  j["summary"] = {{"worse", r.count(Verdict::worse)}, {"better", r.count(Verdict::better)},
                  {"changed", r.count(Verdict::changed)}, {"same", r.count(Verdict::same)},
                  {"info", r.count(Verdict::info)}};
  j["structure"] = r.structure().empty() ? nlohmann::json() : nlohmann::json(r.structure());
  j["worse"] = r.worse();
  j["rows"] = nlohmann::json::array();
  for (const auto& row : r.rows) {
    nlohmann::json x = {{"kind", row.kind},
                        {"name", row.name},
                        {"field", row.field},
                        {"base", row.base},
                        {"new", row.now},
                        {"change", row.change ? nlohmann::json(*row.change) : nlohmann::json()},
                        {"direction", direction_name(row.direction)},
                        {"class", row.field_class.empty() ? nlohmann::json() : nlohmann::json(row.field_class)},
                        {"test", row.test},
                        {"p_value", row.p_value ? nlohmann::json(*row.p_value) : nlohmann::json()},
                        {"n_base", row.n_base},
                        {"n_new", row.n_now},
                        {"verdict", verdict_name(row.verdict)},
                        {"note", row.note}};
    j["rows"].push_back(std::move(x));
  }
  return j;
}

}  // namespace memhier::analysis