// report.md sections of the levels beyond one SM: every figure from topology.json, nothing computed
// here but unit conversions.
#include "analysis/report/levels.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "analysis/report/format.hpp"

namespace memhier::analysis {

using json = nlohmann::json;
using report_format::number;

namespace {

std::string cell(const json& j, const std::string& key, double scale = 1, int digits = 1) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return "—";
  return number(j[key].get<double>() / scale, digits);
}

std::string gbs(const json& j, const std::string& key) { return cell(j, key, 1e9, 1); }

std::string effect_text(const json& e) {
  if (!e.is_object()) return "—";
  const std::string d = e["decided"].is_string() ? e["decided"].get<std::string>() : "not decided";
  return d + (e["cycles"].is_number() ? " (" + number(e["cycles"].get<double>()) + " cycles)" : "") + " — " +
         e.value("reason", std::string());
}

// The keys of an object whose keys are numbers ("16", "2", "4"), in numeric order (2, 4, 16).
std::vector<std::string> numeric_keys(const json& j) {
  std::vector<std::string> k;
  if (j.is_object())
    for (auto it = j.begin(); it != j.end(); ++it) k.push_back(it.key());
  std::stable_sort(k.begin(), k.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return k;
}

void dsmem_md(const json& s, std::ostringstream& o) {
  o << "### Distributed shared memory\n\n| figure | value |\n|---|---|\n";
  o << "| remote latency (cycles) | " << cell(s, "latency_cycles");
  if (s["latency_spread_cycles"].is_array())
    o << " (" << number(s["latency_spread_cycles"][0].get<double>()) << "–" << number(s["latency_spread_cycles"][1].get<double>()) << ")";
  o << " |\n| local latency (cycles) | " << cell(s, "local_latency_cycles") << " |\n";
  o << "| rank effect | " << effect_text(s["rank_effect"]) << " |\n";
  o << "| cluster-size effect | " << effect_text(s["cluster_effect"]) << " |\n";
  if (s.contains("sm_pair_effect")) o << "| SM-pair effect | " << effect_text(s["sm_pair_effect"]) << " |\n";
  for (const char* op : {"read", "write"}) {
    if (!s["bandwidth"].contains(op)) continue;
    const json& b = s["bandwidth"][op];
    o << "| " << op << " B/clk/SM local / remote | " << cell(b, "local_bytes_per_clock_per_sm") << " / "
      << cell(b, "remote_bytes_per_clock_per_sm") << " (remote " << gbs(b, "remote_bytes_per_second") << " GB/s) |\n";
  }
  o << "\n| cluster | latency by rank (cycles) |\n|---:|---|\n";
  for (const auto& c : numeric_keys(s["by_cluster"])) {
    const json& ranks = s["by_cluster"][c];
    std::string t;
    for (const auto& r : numeric_keys(ranks))
      t += (t.empty() ? "" : ", ") + std::string("rank ") + r + ": " + number(ranks[r].get<double>());
    o << "| " << c << " | " << t << " |\n";
  }
  o << "\n";
}

void async_md(const json& s, std::ostringstream& o) {
  o << "### Asynchronous copies into shared memory\n\n| method | from L2 (TB/s) | % of the L2 read rate | from DRAM (TB/s) | % of DRAM peak | "
       "latency (cycles by chunk) |\n|---|---:|---:|---:|---:|---|\n";
  for (auto& [m, j] : s["methods"].items()) {
    std::string lat;
    for (const auto& c : numeric_keys(j["latency_cycles"]))
      lat += (lat.empty() ? "" : ", ") + c + " B: " + number(j["latency_cycles"][c].get<double>());
    o << "| " << m << " | " << cell(j, "l2_bytes_per_second", 1e12, 2) << " | " << cell(j, "l2_pct_of_l2_peak") << " | "
      << cell(j, "dram_bytes_per_second", 1e12, 2) << " | " << cell(j, "dram_pct_of_peak") << " | " << (lat.empty() ? "—" : lat) << " |\n";
  }
  o << "\nFastest from the L2: " << report_format::plain(s["fastest"]["l2"]) << "; from DRAM: "
    << report_format::plain(s["fastest"]["dram"]) << ".\n";
  if (s.contains("multicast"))
    for (auto& [c, j] : s["multicast"].items())
      o << "Multicast to a cluster of " << c << ": " << cell(j, "bytes_per_second", 1e12, 2) << " TB/s delivered for "
        << cell(j, "source_bytes_per_second", 1e12, 2) << " TB/s read (" << cell(j, "delivered_over_read", 1, 2) << "×).\n";
  o << "\n";
}

void link_rows(const json& s, std::ostringstream& o, const std::vector<std::string>& copies) {
  for (const char* op : {"read", "write"})
    o << "| SM " << op << " (GB/s, % of link) | " << gbs(s[op], "bytes_per_second") << " (" << cell(s[op], "pct_of_link") << " %) |\n";
  for (const auto& d : copies)
    if (s["copy"].contains(d))
      o << "| copy " << d << " (GB/s, % of link) | " << gbs(s["copy"][d], "bytes_per_second") << " ("
        << cell(s["copy"][d], "pct_of_link") << " %) |\n";
}

void host_md(const json& s, std::ostringstream& o) {
  o << "### Host memory\n\n| figure | value |\n|---|---|\n| link | " << report_format::plain(s["link"]) << ", "
    << gbs(s, "link_bytes_per_second") << " GB/s per direction |\n| latency (cycles, ns) | " << cell(s, "latency_cycles")
    << ", " << cell(s, "latency_ns") << " |\n| cached in the L2 | " << report_format::plain(s["cached_in_l2"]) << " — "
    << s.value("cached_in_l2_reason", std::string()) << " |\n";
  link_rows(s, o, {"h2d", "d2h", "bidir"});
  if (s.contains("managed"))
    o << "| managed: first-touch fault (µs), migration / prefetch (GB/s) | " << cell(s["managed"], "fault_latency_us", 1, 2)
      << ", " << gbs(s["managed"], "migration_bytes_per_second") << " / " << gbs(s["managed"], "prefetch_bytes_per_second") << " |\n";
  o << "\n";
}

void peers_md(const json& list, std::ostringstream& o) {
  for (const auto& p : list) {
    o << "### Peer GPU " << report_format::plain(p["device"]) << "\n\n| figure | value |\n|---|---|\n| link | "
      << report_format::plain(p["link"]) << ", " << gbs(p, "link_bytes_per_second") << " GB/s per direction |\n"
      << "| latency cold / warm / owner (cycles) | " << cell(p["latency_by_state"], "cold") << " / "
      << cell(p["latency_by_state"], "warm") << " / " << cell(p["latency_by_state"], "owner") << " |\n| cached in | "
      << report_format::plain(p["cached_in"]) << " — " << p.value("cached_in_reason", std::string()) << " |\n";
    link_rows(p, o, {"uni", "bidir"});
    o << "\n";
  }
}

}  // namespace

std::string render_levels_markdown(const json& t) {
  const bool any = t.contains("distributed_shared_memory") || t.contains("async_copies") || t.contains("host_memory") ||
                   t.contains("peers");
  if (!any) return "";
  std::ostringstream o;
  o << "## Beyond one SM\n\n";
  if (t.contains("distributed_shared_memory")) dsmem_md(t["distributed_shared_memory"], o);
  if (t.contains("async_copies")) async_md(t["async_copies"], o);
  if (t.contains("host_memory")) host_md(t["host_memory"], o);
  if (t.contains("peers") && t["peers"].is_array()) peers_md(t["peers"], o);
  return o.str();
}

}  // namespace memhier::analysis
