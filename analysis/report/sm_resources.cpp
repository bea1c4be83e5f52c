#include "analysis/report/sm_resources.hpp"

#include <sstream>

namespace memhier::analysis {
namespace {

using json = nlohmann::json;

// A value, or "—" with the provenance's reason.
std::string val(const json& sec, const std::string& k) {
  if (!sec.is_object() || !sec.contains(k)) return "—";
  if (sec[k].is_null()) {
    const std::string why = sec.contains("provenance") && sec["provenance"].contains(k)
                                ? sec["provenance"][k].value("reason", "")
                                : "";
    return why.empty() ? "—" : "— (" + why + ")";
  }
  return sec[k].is_string() ? sec[k].get<std::string>() : sec[k].dump();
}

void outstanding(const json& o, std::ostringstream& out) {
  out << "\n## Outstanding memory requests (one SM)\n\n| Parameter | Value |\n|---|---|\n";
  for (auto [k, label] : {std::pair<const char*, const char*>{"design", "Design (MSHR / PRT)"},
                          {"entries_per_sm", "Entries per SM"}, {"merge_capacity", "Merge capacity (threads per entry)"},
                          {"max_outstanding_requests_per_sm", "Max outstanding requests per SM"},
                          {"warp_load_limit", "Independent loads per warp"}})
    out << "| " << label << " | " << val(o, k) << " |\n";
  if (o.value("max_outstanding_is_lower_bound", false)) out << "\nThe maximum is a lower bound.\n";
  if (o.value("design_basis", "") == "ramp" && o.contains("ramp")) {  // no saturation: the ramps decided
    out << "\nNo series saturates; the design comes from the ramps' cost per request:\n\n"
           "| Cost model | Cycles per unit | Per warp load instruction | Per thread | Relative rms |\n|---|---|---|---|---|\n";
    for (const auto& m : o["ramp"]["models"])
      out << "| " << m.value("unit", "") << " | " << m.value("per_unit_cycles", 0.0) << " | " << m.value("per_instruction_cycles", 0.0)
          << " | " << m.value("per_thread_cycles", 0.0) << " | " << m.value("rms_relative", 0.0) << " |\n";
    const json& sc = o["ramp"]["source_comparison"];
    out << "\nDRAM against L2: " << (sc["limit"].is_null() ? "not determined (" + sc.value("reason", std::string("?")) + ")"
                                                            : sc["limit"].get<std::string>()) << "\n";
  }
  if (!o.contains("series") || o["series"].empty()) return;
  out << "\n| Series | Source | Saturation after (threads) | Steps | Knee (threads) | Ramp (cycles/thread) |\n|---|---|---|---|---|---|\n";
  for (const auto& s : o["series"])
    out << "| " << s.value("pattern", "") << " × " << s.value("loads", 0) << " | " << s.value("source", "l2") << " | "
        << (s["saturation_threads"].is_null() ? std::string("none up to ") + s["threads_max"].dump()
                                              : s["saturation_threads"].dump())
        << " | " << s.value("steps_total", s["steps"].size()) << " | " << (s["knee_threads"].is_null() ? "—" : s["knee_threads"].dump())
        << " | " << s.value("ramp_cycles_per_thread", 0.0) << " |\n";
}

void sharing(const json& caches, std::ostringstream& out) {
  out << "\n## Cache sharing and slices per SM\n\n| Cache | Shared with | Slices per SM |\n|---|---|---|\n";
  for (const auto& [name, c] : caches.items())
    if (c.contains("shared_with") || c.contains("slices_per_sm"))
      out << "| " << name << " | " << val(c, "shared_with") << " | " << val(c, "slices_per_sm") << " |\n";
}

void partitions(const json& p, std::ostringstream& out) {
  out << "\n## L2 partitions\n\n";
  if (p.contains("map")) {
    const json& m = p["map"];
    out << "| Parameter | Value |\n|---|---|\n";
    for (const char* k : {"partitions", "near_latency_cycles", "far_latency_cycles", "cold_near_latency_cycles",
                          "cold_far_latency_cycles", "interleave_bytes", "far_latency_from", "after_pressure"})
      if (m.contains(k)) out << "| " << k << " | " << val(m, k) << " |\n";
    if (m.contains("sms_per_partition"))
      out << "| SMs per partition | " << m["sms_per_partition"][0].size() << " / " << m["sms_per_partition"][1].size()
          << " |\n| home is an XOR of page-offset bits | " << m.value("linear_in_offset_bits", false) << " |\n";
  }
  out << "\nReplication limit (one SM's footprint whose far-partition data still have a near copy): "
      << val(p, "replication_limit_bytes") << " bytes\n";
  if (p.contains("bandwidth_by_readers") && !p["bandwidth_by_readers"].empty()) {
    out << "\n| Readers per line | Bandwidth (TB/s) |\n|---|---|\n";
    for (const auto& r : p["bandwidth_by_readers"])
      out << "| " << r["readers_per_line"].dump() << " | " << r["bytes_per_second"].get<double>() / 1e12 << " |\n";
  }
}

}  // namespace

std::string render_sm_resources_markdown(const json& t) {
  std::ostringstream out;
  if (t.contains("outstanding_requests") && t["outstanding_requests"].is_object()) outstanding(t["outstanding_requests"], out);
  if (t.contains("caches") && t["caches"].is_object()) sharing(t["caches"], out);
  if (t.contains("l2_partitions") && t["l2_partitions"].is_object()) partitions(t["l2_partitions"], out);
  return out.str();
}

}  // namespace memhier::analysis
