#include "analysis/report/tlb.hpp"

#include <sstream>

namespace memhier::analysis {

namespace {

std::string bytes_text(const nlohmann::json& v) {
  if (!v.is_number()) return "—";
  const double b = v.get<double>();
  std::ostringstream o;
  o.precision(4);
  if (b >= (1ull << 30)) o << b / (1ull << 30) << " GiB";
  else if (b >= (1ull << 20)) o << b / (1ull << 20) << " MiB";
  else if (b >= 1024) o << b / 1024 << " KiB";
  else o << b << " B";
  return o.str();
}

std::string val(const nlohmann::json& v) { return v.is_null() ? "—" : v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

std::string render_translation_markdown(const nlohmann::json& t) {
  if (!t.contains("address_translation") || !t["address_translation"].contains("levels")) return {};
  const auto& at = t["address_translation"];
  std::ostringstream o;
  o << "## Address translation\n\n";
  o << "Whole-memory chases through the L2 (tlb family): page " << bytes_text(at.value("page_bytes", nlohmann::json()))
    << " (" << at.value("page_note", "") << "); smallest step resolvable between two footprints "
    << val(at["resolution_cycles"]) << " cycles, scatter between footprints " << val(at["noise_between_footprints_cycles"])
    << " cycles, placement scatter of one slot " << val(at.value("placement_scatter_per_slot_cycles", nlohmann::json()))
    << " cycles.\n\n";
  o << "| Level | Miss penalty (cycles, ±95 %) | Reach of one entry | Entries | Total reach | Sets × ways |\n"
       "|---|---|---|---|---|---|\n";
  for (const auto& l : at["levels"]) {
    const auto& c = t["caches"].value(l.value("name", ""), nlohmann::json::object());
    const std::string pen = l["miss_penalty_cycles"].is_null() && l.contains("miss_penalty_lower_bound_cycles")
                                ? "≥ " + val(l["miss_penalty_lower_bound_cycles"]) + " (not saturated)"
                                : val(l["miss_penalty_cycles"]) + " ± " + val(l.value("miss_penalty_ci95_cycles", nlohmann::json()));
    o << "| " << l.value("name", "") << " | " << pen
      << " | " << bytes_text(l["reach_per_entry_bytes"]) << " | " << val(c.value("entries", nlohmann::json())) << " | "
      << bytes_text(c.value("size_bytes", nlohmann::json())) << " | " << val(c.value("ways", nlohmann::json())) << " |\n";
  }
  if (at["levels"].empty()) o << "| — | no level found | | | | |\n";
  for (const char* n : {"l1_tlb", "l2_tlb"}) {  // a level not seen: why, and what it must hold
    const auto& c = t["caches"].value(n, nlohmann::json::object());
    if (!c.value("present", nlohmann::json()).is_null()) continue;
    const auto& why = c.value("provenance", nlohmann::json::object()).value("present", nlohmann::json::object());
    o << "\n" << n << ": not seen — " << why.value("reason", std::string("no reason given")) << ".\n";
  }
  o << "\nRises per stride (reach bracket, height ± 95 %):\n\n";
  for (const auto& l : at["levels"]) {
    o << "- " << l.value("name", "") << ": ";
    bool first = true;
    for (const auto& r : l["rises"]) {
      o << (first ? "" : "; ") << bytes_text(r["stride"]) << " → [" << bytes_text(r["reach_bracket_bytes"][0]) << ", "
        << bytes_text(r["reach_bracket_bytes"][1]) << ") +" << val(r["height_cycles"]) << "±" << val(r["ci95_cycles"]);
      first = false;
    }
    o << "\n";
  }
  for (const auto& r : at.value("not_translation", nlohmann::json::array()))
    o << "\nNot translation (+"
      << val(r["miss_penalty_cycles"].is_null() ? r.value("miss_penalty_lower_bound_cycles", nlohmann::json()) : r["miss_penalty_cycles"])
      << " cycles): " << r.value("reason", "") << ".\n";
  if (at.contains("smallest_step") && !at["smallest_step"].is_null())
    o << "\nSmallest resolved step: " << val(at["smallest_step"]["height_cycles"]) << " ± "
      << val(at["smallest_step"]["ci95_cycles"]) << " cycles at stride " << bytes_text(at["smallest_step"]["stride"]) << ".\n";
  o << "\n";
  return o.str();
}

}  // namespace memhier::analysis
