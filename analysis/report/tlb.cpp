#include "analysis/report/tlb.hpp"

#include <sstream>

#include "analysis/report/format.hpp"

namespace memhier::analysis {

namespace {

namespace rf = report_format;
using json = nlohmann::json;

std::string bytes_text(const json& v) { return v.is_number() ? rf::bytes_short(v.get<double>()) : "—"; }

std::string val(const json& v, int digits = 3) { return rf::plain(v, digits); }

// One level's miss penalty: "9.81 ± 0.221", or "≥ 93.886 (not saturated)".
std::string penalty_text(const json& l) {
  const json pen = l.value("miss_penalty_cycles", json());
  if (pen.is_null() && l.contains("miss_penalty_lower_bound_cycles"))
    return "≥ " + val(l["miss_penalty_lower_bound_cycles"]) + " (not saturated)";
  const json ci = l.value("miss_penalty_ci95_cycles", json());
  return val(pen) + (ci.is_number() ? " ± " + val(ci) : "");
}

void render_intro(std::ostringstream& o, const json& t, const json& at) {
  const json page = at.value("page_bytes", json());
  const std::string note = at.value("page_note", std::string());
  const json l1 = t.value("caches", json::object()).value("l1_tlb", json::object());
  const std::string l1_reason =
      l1.value("provenance", json::object()).value("page_bytes", json::object()).value("reason", std::string());
  o << "Whole-memory chases through the L2 (tlb family). Page: ";
  if (page.is_number()) o << rf::bytes_long(page.get<double>()) << (note.empty() ? "" : " (" + note + ")");
  else if (!note.empty() && note == l1_reason) o << "not determined (the reason under Caches, l1_tlb)";
  else o << "not determined — " << (note.empty() ? "no reason stated" : note);
  if (at.contains("page_bytes_at_most") && at["page_bytes_at_most"].is_number())
    o << "; at most " << rf::bytes_long(at["page_bytes_at_most"].get<double>());
  o << ".\n\nSmallest step resolvable between two footprints: " << val(at.value("resolution_cycles", json()))
    << " cycles; scatter between footprints: " << val(at.value("noise_between_footprints_cycles", json()))
    << " cycles; placement scatter of one slot: " << val(at.value("placement_scatter_per_slot_cycles", json()))
    << " cycles.\n\n";
}

void render_levels(std::ostringstream& o, const json& t, const json& at) {
  if (at["levels"].empty()) {
    o << "No translation level found.\n";
    return;
  }
  o << "| level | miss penalty (cycles, ± 95 %) | reach per entry | entries | total reach | sets × ways |\n"
       "|---|---|---|---|---|---|\n";
  const json caches = t.value("caches", json::object());
  for (const auto& l : at["levels"]) {
    const json c = caches.value(l.value("name", ""), json::object());
    o << "| " << l.value("name", "") << " | " << penalty_text(l) << " | " << bytes_text(l.value("reach_per_entry_bytes", json()))
      << " | " << val(c.value("entries", json())) << " | " << bytes_text(c.value("size_bytes", json())) << " | "
      << rf::sets_ways_text(c.value("sets", json()), c.value("ways", json())) << " |\n";
  }
  o << "\n— not determined (the reasons under Caches).\n";
}

void render_rises(std::ostringstream& o, const json& at) {
  if (at["levels"].empty()) return;
  o << "\nRises per stride (stride: total reach in [lo, hi), height ± 95 % in cycles):\n\n";
  for (const auto& l : at["levels"]) {
    o << "- " << l.value("name", "") << ": ";
    bool first = true;
    for (const auto& r : l.value("rises", json::array())) {
      const json br = r.value("reach_bracket_bytes", json());
      o << (first ? "" : "; ") << bytes_text(r.value("stride", json())) << ": "
        << (br.is_array() && br.size() == 2 && br[0].is_number() && br[1].is_number()
                ? rf::bytes_interval(br[0].get<double>(), br[1].get<double>(), false) : "—")
        << " +" << val(r.value("height_cycles", json())) << " ± " << val(r.value("ci95_cycles", json()));
      first = false;
    }
    o << "\n";
  }
}

}  // namespace

std::string render_translation_markdown(const json& t) {
  if (!t.contains("address_translation") || !t["address_translation"].is_object() ||
      !t["address_translation"].contains("levels"))
    return {};
  const auto& at = t["address_translation"];
  std::ostringstream o;
  o << "## Address translation\n\n";
  render_intro(o, t, at);
  render_levels(o, t, at);
  const json caches = t.value("caches", json::object());
  for (const char* n : {"l1_tlb", "l2_tlb"}) {  // a level not seen: why, and what it must hold
    const json c = caches.value(n, json::object());
    if (!c.value("present", json()).is_null()) continue;
    const json why = c.value("provenance", json::object()).value("present", json::object());
    o << "\n" << n << ": not seen — " << why.value("reason", std::string("no reason stated")) << ".\n";
  }
  render_rises(o, at);
  for (const auto& r : at.value("not_translation", json::array()))
    o << "\nNot translation (+"
      << val(r.value("miss_penalty_cycles", json()).is_null() ? r.value("miss_penalty_lower_bound_cycles", json()) : r["miss_penalty_cycles"])
      << " cycles): " << r.value("reason", "") << ".\n";
  if (at.contains("smallest_step") && at["smallest_step"].is_object())
    o << "\nSmallest resolved step: " << val(at["smallest_step"].value("height_cycles", json())) << " ± "
      << val(at["smallest_step"].value("ci95_cycles", json())) << " cycles at stride "
      << bytes_text(at["smallest_step"].value("stride", json())) << ".\n";
  o << "\n";
  return o.str();
}

}  // namespace memhier::analysis
