#include "analysis/report/sm_resources.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "analysis/report/format.hpp"

namespace memhier::analysis {
namespace {

namespace rf = report_format;
using json = nlohmann::json;

bool has_value(const json& sec, const std::string& k) { return sec.is_object() && sec.contains(k) && !sec[k].is_null(); }

// Why a value is missing: the provenance's reason, or that the key is absent.
std::string why_not(const json& sec, const std::string& k) {
  if (!sec.is_object() || !sec.contains(k)) return "not measured";
  const std::string why = sec.contains("provenance") && sec["provenance"].contains(k) ? sec["provenance"][k].value("reason", "") : "";
  return why.empty() ? "no reason stated" : why;
}

// A value with its unit, or "—" with the reason.
std::string val(const json& sec, const std::string& k, const std::string& unit = "") {
  if (!has_value(sec, k)) return "— (" + why_not(sec, k) + ")";
  return rf::plain(sec[k], 3) + (unit.empty() ? "" : " " + unit);
}

// The Little's-law row: lines in flight per SM per source, with the method.
void littles_law_row(const json& o, std::ostringstream& out) {
  if (!o.contains("littles_law") || !o["littles_law"].is_object()) return;
  const json& ll = o["littles_law"];
  if (!has_value(ll, "outstanding_lines_per_sm")) {
    out << "| lines in flight per SM (Little's law) | not determined — " << why_not(ll, "outstanding_lines_per_sm") << " |\n";
    return;
  }
  std::string parts;
  for (const char* src : {"dram", "l2"}) {
    if (!ll.contains(src) || !ll[src].is_object()) continue;
    const json& s = ll[src];
    parts += std::string(parts.empty() ? "" : "; ") + (std::string(src) == "l2" ? "L2" : "DRAM") + " " +
             rf::plain(s.value("outstanding_lines_per_sm", json()), 4) + " = " + rf::plain(s.value("lines_per_cycle_per_sm", json()), 3) +
             " lines/cycle × " + rf::plain(json(std::round(s.value("loaded_latency_cycles", 0.0)))) + " cycles loaded latency";
    if (s.contains("all_sms") && s["all_sms"].is_object())
      parts += " (all SMs at their saturated rate need " + rf::plain(s["all_sms"].value("outstanding_lines_per_sm_needed", json()), 4) + ")";
  }
  out << "| lines in flight per SM (Little's law) | at least " << rf::plain(ll["outstanding_lines_per_sm"], 4)
      << " lines (lower bound): " << parts
      << "; rate and loaded latency from the slope and intercept of the series' ramps past the knee |\n";
}

void outstanding_table(const json& o, std::ostringstream& out) {
  static const std::vector<std::pair<const char*, std::pair<const char*, const char*>>> kRows = {
      {"design", {"design (MSHR or PRT)", ""}},
      {"entries_per_sm", {"entries per SM", "entries"}},
      {"merge_capacity", {"merge capacity", "threads per entry"}},
      {"max_outstanding_requests_per_sm", {"most outstanding requests per SM", "requests"}},
      {"warp_load_limit", {"independent loads per warp", "loads"}}};
  out << "| parameter | value |\n|---|---|\n";
  std::vector<std::string> order;  // undetermined rows sharing a reason: one row
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const auto& [k, lu] : kRows) {
    if (has_value(o, k)) {
      const bool lower = std::string(k) == "max_outstanding_requests_per_sm" && o.value("max_outstanding_is_lower_bound", false);
      out << "| " << lu.first << " | " << (lower ? "at least " : "") << val(o, k, lu.second) << (lower ? " (lower bound)" : "") << " |\n";
      continue;
    }
    const std::string why = why_not(o, k);
    if (!by_reason.count(why)) order.push_back(why);
    by_reason[why].push_back(lu.first);
  }
  for (const auto& why : order) {
    std::string names;
    for (const auto& n : by_reason[why]) names += (names.empty() ? "" : ", ") + n;
    out << "| " << names << " | not determined — " << why << " |\n";
  }
  littles_law_row(o, out);
}

void outstanding_series(const json& o, std::ostringstream& out) {
  if (!o.contains("series") || !o["series"].is_array() || o["series"].empty()) return;
  bool none_saturate = true;  // one column said once when no series saturates up to the same count
  const json max0 = o["series"][0].value("threads_max", json());
  for (const auto& s : o["series"])
    none_saturate = none_saturate && s.value("saturation_threads", json()).is_null() && s.value("threads_max", json()) == max0;
  if (none_saturate) out << "\nNo series saturates up to " << rf::plain(max0) << " threads.\n";
  out << "\n| series (pattern × loads per thread) | source | " << (none_saturate ? "" : "saturation after (threads) | ")
      << "steps | knee (threads) | ramp (cycles per thread) |\n|---|---|" << (none_saturate ? "" : "---:|") << "---:|---:|---:|\n";
  for (const auto& s : o["series"]) {
    const json sat = s.value("saturation_threads", json());
    out << "| " << s.value("pattern", "") << " × " << rf::plain(s.value("loads", json(0))) << " | " << s.value("source", "l2") << " | ";
    if (!none_saturate) out << (sat.is_null() ? "none up to " + rf::plain(s.value("threads_max", json())) : rf::plain(sat)) << " | ";
    out << rf::plain(s.value("steps_total", json(s.value("steps", json::array()).size()))) << " | "
        << rf::plain(s.value("knee_threads", json())) << " | " << rf::plain(s.value("ramp_cycles_per_thread", json(0.0)), 3) << " |\n";
  }
}

void outstanding(const json& o, std::ostringstream& out) {
  out << "\n## Outstanding memory requests (one SM)\n\n";
  outstanding_table(o, out);
  if (o.value("design_basis", "") == "ramp" && o.contains("ramp") && o["ramp"].is_object()) {  // no saturation: the ramps decided
    out << "\nNo series saturates; the design comes from the ramps' cost per request (cycles):\n\n"
           "| cost unit | per unit | per warp load instruction | per thread | relative rms |\n|---|---:|---:|---:|---:|\n";
    for (const auto& m : o["ramp"].value("models", json::array()))
      out << "| " << m.value("unit", "") << " | " << rf::plain(m.value("per_unit_cycles", json(0.0)), 3) << " | "
          << rf::plain(m.value("per_instruction_cycles", json(0.0)), 3) << " | " << rf::plain(m.value("per_thread_cycles", json(0.0)), 3)
          << " | " << rf::plain(m.value("rms_relative", json(0.0)), 3) << " |\n";
    const json sc = o["ramp"].value("source_comparison", json::object());
    out << "\nDRAM against L2: "
        << (sc.value("limit", json()).is_null() ? "not determined — " + sc.value("reason", std::string("no reason stated"))
                                                : sc["limit"].get<std::string>())
        << "\n";
  }
  outstanding_series(o, out);
}

void sharing(const json& caches, std::ostringstream& out) {
  out << "\n## Cache sharing and slices per SM\n\n| Cache | Same physical array as | Slices per SM |\n|---|---|---|\n";
  std::vector<std::string> order;  // caches with neither value, by reason: one line each
  std::map<std::string, std::vector<std::string>> none;
  for (const auto& [name, c] : caches.items()) {
    if (!c.is_object() || (!c.contains("shared_with") && !c.contains("slices_per_sm"))) continue;
    if (!has_value(c, "shared_with") && !has_value(c, "slices_per_sm")) {
      const std::string why = why_not(c, "shared_with") + (why_not(c, "slices_per_sm") == why_not(c, "shared_with") ||
                                                                   !c.contains("slices_per_sm")
                                                               ? "" : "; slices: " + why_not(c, "slices_per_sm"));
      if (!none.count(why)) order.push_back(why);
      none[why].push_back(name);
      continue;
    }
    out << "| " << name << " | " << (has_value(c, "shared_with") ? rf::list_text(c["shared_with"], "none") : val(c, "shared_with"))
        << " | " << val(c, "slices_per_sm") << " |\n";
  }
  for (const auto& why : order) {
    std::string names;
    for (const auto& n : none[why]) names += (names.empty() ? "" : ", ") + n;
    out << "\nNot determined for " << names << ": " << why << ".\n";
  }
}

void partition_map(const json& m, std::ostringstream& out) {
  static const std::vector<std::pair<const char*, const char*>> kRows = {
      {"partitions", "partitions"},
      {"near_latency_cycles", "L2 hit latency, home partition near (cycles)"},
      {"far_latency_cycles", "L2 hit latency, home partition far (cycles)"},
      {"cold_near_latency_cycles", "first access (cold), home near (cycles)"},
      {"cold_far_latency_cycles", "first access (cold), home far (cycles)"},
      {"interleave_bytes", "interleave (bytes)"},
      {"far_latency_from", "far latency seen from"},
      {"after_pressure", "far lines after pressure"}};
  out << "| parameter | value |\n|---|---|\n";
  for (const auto& [k, label] : kRows)
    if (m.contains(k)) out << "| " << label << " | " << val(m, k) << " |\n";
  if (m.contains("sms_per_partition") && m["sms_per_partition"].is_array()) {
    std::string counts;
    for (const auto& g : m["sms_per_partition"]) counts += (counts.empty() ? "" : " / ") + std::to_string(g.size());
    out << "| SMs per partition | " << counts << " |\n";
  }
  if (m.contains("linear_in_offset_bits"))
    out << "| home is an XOR of page-offset bits | " << rf::plain(m["linear_in_offset_bits"]) << " |\n";
}

void partitions(const json& p, std::ostringstream& out) {
  out << "\n## L2 partitions\n\n";
  if (p.contains("map") && p["map"].is_object()) partition_map(p["map"], out);
  out << "\nReplication limit (one SM's footprint whose far-partition data still have a near copy): "
      << (has_value(p, "replication_limit_bytes") && p["replication_limit_bytes"].is_number()
              ? rf::bytes_long(p["replication_limit_bytes"].get<double>())
              : "not determined — " + why_not(p, "replication_limit_bytes"))
      << "\n";
  if (p.contains("bandwidth_by_readers") && p["bandwidth_by_readers"].is_array() && !p["bandwidth_by_readers"].empty()) {
    std::vector<json> rows(p["bandwidth_by_readers"].begin(), p["bandwidth_by_readers"].end());
    std::stable_sort(rows.begin(), rows.end(), [](const json& a, const json& b) {
      return a.value("readers_per_line", 0.0) < b.value("readers_per_line", 0.0);
    });
    out << "\n| readers per line | bandwidth (TB/s) |\n|---:|---:|\n";
    for (const auto& r : rows)
      out << "| " << rf::plain(r.value("readers_per_line", json())) << " | "
          << (r.value("bytes_per_second", json()).is_number() ? rf::number(r["bytes_per_second"].get<double>() / 1e12, 2) : "—")
          << " |\n";
  }
}

// The slices (l2_slices): what the fingerprint told apart, per partition, and the hash's bits.
void slices(const json& s, std::ostringstream& out) {
  out << "\n## L2 slices\n\n| quantity | value |\n|---|---|\n";
  auto row = [&](const char* label, const char* key) {
    out << "| " << label << " | "
        << (has_value(s, key) && !s[key].is_null() ? rf::plain(s[key]) : "not determined — " + why_not(s, key)) << " |\n";
  };
  if (s.contains("hit_latency_cycles") && s["hit_latency_cycles"].is_object())
    out << "| L2 hit from an SM, median (5–95 %) | " << rf::plain(s["hit_latency_cycles"].value("median", json())) << " ("
        << rf::plain(s["hit_latency_cycles"].value("p05", json())) << "–" << rf::plain(s["hit_latency_cycles"].value("p95", json()))
        << ") cycles |\n";
  row("line classes by latency over every SM (fingerprint)", "line_classes");
  if (s.contains("contention") && s["contention"].is_object() && s["contention"].contains("every_probe")) {
    const json& c = s["contention"];
    out << "| references hammered (contention) | " << rf::plain(c.value("references", json())) << " |\n"
        << "| a hammered slice's lines, per hit slower by | " << rf::plain(c["every_probe"].value("slow_class_median_cycles", json()))
        << " cycles (other slices' lines: " << rf::plain(c["every_probe"].value("fast_class_median_cycles", json())) << ") |\n";
  }
  row("slices per partition", "slices_per_partition");
  row("slices", "slices");
  if (s.contains("slices_from")) out << "| slices decided by | " << rf::plain(s["slices_from"]) << " |\n";
  if (s.contains("sm_groups_by_correlation") && s["sm_groups_by_correlation"].is_array())
    out << "| SM groups that see the lines alike | " << s["sm_groups_by_correlation"].size() << " |\n";
  if (s.contains("hash") && s["hash"].is_object()) {
    const json& h = s["hash"];
    out << "| offset bits that move a line to another slice | " << rf::plain(h.value("bits_that_change_the_slice", json()))
        << " |\n| slice is an XOR of offset bits | " << rf::plain(h.value("xor_of_offset_bits", json()))
        << (h.contains("reason") ? " (" + h["reason"].get<std::string>() + ")" : std::string()) << " |\n";
  }
}

// The sets (l2_sets): ways from minimal eviction sets of the whole L2, sets and sets per slice.
void l2_sets(const json& s, std::ostringstream& out) {
  out << "\n## L2 sets (eviction sets)\n\n| quantity | value |\n|---|---|\n";
  auto row = [&](const char* label, const char* key) {
    out << "| " << label << " | ";
    if (!has_value(s, key)) {
      out << "not determined — " << why_not(s, key) << " |\n";
      return;
    }
    out << rf::plain(s[key]);
    if (s.contains("provenance") && s["provenance"].contains(key) && s["provenance"][key].contains("confidence"))
      out << " (confidence " << rf::plain(s["provenance"][key]["confidence"], 2) << ")";
    out << " |\n";
  };
  const bool cyclic = s.value("ways_from", std::string()) == "cyclic reads";
  row(cyclic ? "ways (cyclic reads: the last k lines of a class that hit)" : "ways (the smallest verified minimal eviction set)",
      "ways");
  row("sets (L2 bytes / (ways × line))", "sets");
  row("sets per slice (sets / l2_slices.slices)", "sets_per_slice");
  row("index within a slice", "index_within_slice");
  row("replacement (access sequences over one set's lines from an empty set)", "replacement");
  out << "| readout (a discarded dirty line reads its older value) | "
      << (s.value("readout_ok", false) ? "works" : "does not work" + (s.contains("readout_reason") ? " — " + rf::plain(s["readout_reason"]) : std::string()))
      << " |\n| targets with a verified minimal set | " << rf::plain(s.value("targets_minimal", json())) << " of "
      << rf::plain(s.value("targets", json())) << " |\n| verified set sizes (lines) | "
      << rf::list_text(s.value("minimal_set_sizes", json::array())) << " |\n";
  if (s.contains("minimal_sets_match_ways"))
    out << "| the minimal-set rule gives the same ways | " << (s["minimal_sets_match_ways"] == true ? "yes" : "no") << " |\n";
  if (s.contains("cyclic_reads") && s["cyclic_reads"].contains("sweeps") && s["cyclic_reads"]["sweeps"].is_array()) {
    const json& c = s["cyclic_reads"];
    std::string each;
    for (const json& w : c["sweeps"])
      each += (each.empty() ? "" : ", ") + std::string("target ") + rf::plain(w.value("target", json())) + " " +
              rf::plain(w.value("order", json())) + ": " +
              (w.value("ways", json()).is_number() ? rf::plain(w["ways"]) : std::string("none"));
    out << "| cyclic-read sweeps (ways each; a miss above " << rf::plain(c.value("miss_threshold_cycles", json()))
        << " cycles) | " << each << " |\n";
  }
  if (s.contains("status_by_target") && s["status_by_target"].is_array()) {
    std::string failed;
    for (std::size_t k = 0; k < s["status_by_target"].size(); ++k)
      if (s["status_by_target"][k] != "minimal")
        failed += (failed.empty() ? "" : ", ") + std::string("target ") + std::to_string(k) + ": " + rf::plain(s["status_by_target"][k]);
    out << "| targets without one | " << (failed.empty() ? "none" : failed) << " |\n";
  }
  out << "| eviction tests | " << rf::plain(s.value("tests", json())) << " (the most for one target: "
      << rf::plain(s.value("tests_max_target", json())) << ") |\n";
  if (s.contains("ways_explained") && s["ways_explained"].is_string()) out << "\n" << s["ways_explained"].get<std::string>() << "\n";
  if (s.contains("method")) out << "\nMethod: " << rf::plain(s["method"]) << ".\n";
}

}  // namespace

std::string render_sm_resources_markdown(const json& t) {
  std::ostringstream out;
  if (t.contains("outstanding_requests") && t["outstanding_requests"].is_object()) outstanding(t["outstanding_requests"], out);
  if (t.contains("caches") && t["caches"].is_object()) sharing(t["caches"], out);
  if (t.contains("l2_partitions") && t["l2_partitions"].is_object()) partitions(t["l2_partitions"], out);
  if (t.contains("l2_slices") && t["l2_slices"].is_object()) slices(t["l2_slices"], out);
  if (t.contains("l2_sets") && t["l2_sets"].is_object()) l2_sets(t["l2_sets"], out);
  return out.str();
}

}  // namespace memhier::analysis
