// report.md: "L2 persisting" — every figure from topology.json's l2_persisting section.
#include "analysis/report/persisting.hpp"

#include <sstream>

#include "analysis/report/format.hpp"

namespace memhier::analysis {

using json = nlohmann::json;
namespace rf = report_format;

namespace {

std::string why_not(const json& s, const std::string& key) {
  if (s.contains("provenance") && s["provenance"].contains(key)) return s["provenance"][key].value("reason", std::string("not determined"));
  return "not determined";
}

std::string bytes_or(const json& s, const std::string& key) {
  return s.contains(key) && s[key].is_number() ? rf::bytes_long(s[key].get<double>()) : "not determined — " + why_not(s, key);
}

std::string cell_bytes(const json& r, const std::string& key) {
  return r.contains(key) && r[key].is_number() ? rf::bytes_short(r[key].get<double>()) : "—";
}

std::string cell_number(const json& r, const std::string& key, double scale, int digits) {
  return r.contains(key) && r[key].is_number() ? rf::number(r[key].get<double>() * scale, digits) : "—";
}

}  // namespace

std::string render_persisting_markdown(const json& t) {
  if (!t.contains("l2_persisting") || !t["l2_persisting"].is_object()) return "";
  const json& s = t["l2_persisting"];
  std::ostringstream o;
  o << "\n## L2 persisting\n\n";
  o << "Set-aside at most (persistingL2CacheMaxSize): " << bytes_or(s, "max_bytes") << ". Largest kept against the "
    << "streaming co-runner: " << bytes_or(s, "largest_kept_bytes") << ". Without a set-aside (control"
    << (s.value("control_access_policy_window", false) ? ", request 0 with a persisting window" : ", no access policy window")
    << "): " << bytes_or(s, "control_kept_bytes") << ".";
  if (s.contains("minimum_set_aside_bytes"))
    o << " Kept for persisting lines at request 0 under a window (minimum set-aside): " << bytes_or(s, "minimum_set_aside_bytes")
      << (s.contains("minimum_set_aside_of_step") && s["minimum_set_aside_of_step"].is_number()
              ? " (" + rf::number(s["minimum_set_aside_of_step"].get<double>(), 2) + " grant step(s))"
              : std::string())
      << ".";
  if (s.contains("kept_of_max") && s["kept_of_max"].is_number())
    o << " The whole set-aside over a window of its size kept " << rf::number(100 * s["kept_of_max"].get<double>(), 1) << " % of it.";
  if (s.contains("grant_step_bytes") && s["grant_step_bytes"].is_number()) {
    o << " The driver granted each request rounded " << s.value("grant_rounding", std::string("?")) << " to a multiple of "
      << rf::bytes_long(s["grant_step_bytes"].get<double>());
    if (s.contains("grant_step_of_l2") && s["grant_step_of_l2"].is_number())
      o << " (" << rf::number(100 * s["grant_step_of_l2"].get<double>(), 2) << " % of the L2";
    if (s.contains("grant_steps_in_max") && s["grant_steps_in_max"].is_number())
      o << (s.contains("grant_step_of_l2") ? "; " : " (") << rf::number(s["grant_steps_in_max"].get<double>(), 2)
        << " steps make the maximum";
    o << (s.contains("grant_step_of_l2") || s.contains("grant_steps_in_max") ? ")." : ".");
  } else if (s.contains("grant_rounding")) {
    o << " Grants rounded " << s["grant_rounding"].get<std::string>() << "; their step not determined — " << why_not(s, "grant_step_bytes") << ".";
  }
  bool partial = false;
  if (s.contains("by_request") && s["by_request"].is_array())
    for (const auto& r : s["by_request"]) partial = partial || r.contains("probe_span_reason");
  o << "\n\n| requested | granted | window | hitRatio | kept | of the window | of min(granted, hitRatio × window) | hit / miss (cycles) |\n"
       "|---:|---:|---:|---:|---:|---:|---:|---|\n";
  if (s.contains("by_request") && s["by_request"].is_array())
    for (const auto& r : s["by_request"]) {
      o << "| " << cell_bytes(r, "requested_bytes") << " | " << cell_bytes(r, "set_aside_bytes") << " | "
        << cell_bytes(r, "window_bytes") << " | "
        << (r.value("access_policy_window", true) ? cell_number(r, "hit_ratio", 1, 2) : std::string("no window")) << " | ";
      if (r.contains("kept_bytes") && r["kept_bytes"].is_number())
        o << cell_bytes(r, "kept_bytes") << " | " << cell_number(r, "kept_fraction", 100, 1) << " % | "
          << cell_number(r, "kept_of_expected", 100, 1) << (r.contains("kept_of_expected") && r["kept_of_expected"].is_number() ? " %" : "")
          << (r.contains("probe_span_reason") ? " ¹" : "");
      else
        o << "not determined: " << r.value("kept_reason", std::string("—")) << " | — | —";
      o << " | " << cell_number(r, "hit_latency_cycles", 1, 0) << " / " << cell_number(r, "miss_latency_cycles", 1, 0) << " |\n";
    }
  if (partial)
    o << "\n¹ The probe sampled only the first part of the window (its row's probe_span_reason in topology.json): "
         "kept extrapolates the sampled part's hit fraction over the window and reads low where the set-aside is "
         "smaller than the window.\n";
  return o.str();
}

}  // namespace memhier::analysis
