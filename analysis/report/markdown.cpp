// report.md (render_report, analysis/report/topology.hpp): what a person reads first. A summary table of
// the caches, then one screen per cache: its determined values, the reasons for the rest grouped
// (a reason shared by many fields is said once; one shared by every cache is said once for all),
// one plot inline and the others linked; caches with nothing determined share one line.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "analysis/report/sm_resources.hpp"
#include "analysis/memory/throughput.hpp"
#include "analysis/report/tlb.hpp"
#include "analysis/report/topology.hpp"

namespace memhier::analysis {

namespace {

const std::vector<std::pair<std::string, std::string>> kFields = {
    {"size_bytes", "size C"},      {"onset_size_bytes", "misses begin at"}, {"line_bytes", "line b"},         {"sector_bytes", "fill granularity"},
    {"page_bytes", "page"},        {"entries", "entries"},           {"sets", "sets T"},
    {"ways", "ways per set"},      {"replacement", "replacement"},   {"replacement_probabilities", "per-way replacement probability"},
    {"index_bits", "set-index bits"}, {"index_matrix", "index matrix (GF(2) rows)"},
    {"ways_one_set", "minimal eviction set (lines)"}, {"hit_latency_cycles", "hit latency (cycles)"},
    {"miss_penalty_cycles", "miss penalty (cycles)"}, {"size_bytes_by_carveout", "size by carveout"},
    {"per_sm", "per SM"},          {"shared_with", "shared with"},   {"slices_per_sm", "slices per SM"}};

std::string bytes_text(double v) {
  char b[64];
  if (v >= 1048576) std::snprintf(b, sizeof b, "%.0f B (%.2f MiB)", v, v / 1048576);
  else if (v >= 1024) std::snprintf(b, sizeof b, "%.0f B (%.1f KiB)", v, v / 1024);
  else std::snprintf(b, sizeof b, "%.0f B", v);
  return b;
}

std::string value_text(const std::string& key, const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number() && key.find("bytes") != std::string::npos && key != "size_bytes_by_carveout") return bytes_text(v.get<double>());
  if (v.is_object() && key == "size_bytes_by_carveout") {
    std::string s;
    for (auto& [c, x] : v.items()) s += (s.empty() ? "" : ", ") + c + " %: " + (x.is_number() ? bytes_text(x.get<double>()) : x.dump());
    return s;
  }
  if (v.is_number_float()) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f", v.get<double>());
    return b;
  }
  return v.dump();
}

std::string reason_of(const nlohmann::json& c, const std::string& k) {
  if (c.contains("provenance") && c["provenance"].contains(k)) {
    const std::string r = c["provenance"][k].value("reason", "");
    if (!r.empty()) return r;
  }
  return "no reason stated";
}

std::string confidence_of(const nlohmann::json& c, const std::string& k) {
  if (!c.contains("provenance") || !c["provenance"].contains(k) || !c["provenance"][k].contains("confidence")) return "";
  char b[16];
  std::snprintf(b, sizeof b, "%.2f", c["provenance"][k].value("confidence", 0.0));
  return b;
}

bool determined(const nlohmann::json& c, const std::string& k) { return c.contains(k) && !c[k].is_null(); }

// Fields without a value, grouped by their reason: reason -> field labels (in kFields order).
std::map<std::string, std::vector<std::string>> undetermined(const nlohmann::json& c, const std::set<std::string>& skip) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [k, label] : kFields)
    if (c.contains(k) && c[k].is_null() && !skip.count(k + "\n" + reason_of(c, k))) out[reason_of(c, k)].push_back(label);
  return out;
}

// (field, reason) pairs every cache shares: said once above the caches.
std::set<std::string> shared_reasons(const nlohmann::json& caches) {
  std::map<std::string, int> count;
  for (auto& [n, c] : caches.items())
    for (const auto& [k, label] : kFields)
      if (c.is_object() && c.contains(k) && c[k].is_null()) count[k + "\n" + reason_of(c, k)]++;
  std::set<std::string> s;
  for (auto& [key, n] : count)
    if (n == static_cast<int>(caches.size()) && caches.size() > 1) s.insert(key);
  return s;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

// Plot files of one cache: the P-chase plots of its load path, or the tlb plots for TLBs.
std::vector<std::string> plots_for(const std::vector<std::string>& files, const std::string& cache,
                                   std::set<std::string>* embedded) {
  static const std::map<std::string, std::string> prefix = {
      {"l1", "pchase_global_ca_"},     {"readonly", "pchase_ldg_"}, {"texture", "pchase_texture_"},
      {"constant_l1", "pchase_constant_"}, {"l2", "pchase_global_cg_"}, {"l1_tlb", "tlb_"}};
  std::vector<std::string> out;
  auto it = prefix.find(cache);
  if (it == prefix.end()) return out;
  for (const auto& f : files)
    if (f.rfind(it->second, 0) == 0 && !embedded->count(f)) {
      out.push_back(f);
      embedded->insert(f);
    }
  // the footprint plot first: it is the one shown
  std::stable_sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return (a.find("latency_vs_footprint") != std::string::npos) > (b.find("latency_vs_footprint") != std::string::npos);
  });
  return out;
}

void render_plots(std::ostringstream& o, const std::vector<std::string>& plots) {
  if (plots.empty()) return;
  o << "![" << plots[0] << "](plots/" << plots[0] << ")\n\n";
  if (plots.size() > 1) {
    o << "More plots:";
    for (std::size_t i = 1; i < plots.size(); ++i) o << (i > 1 ? "," : "") << " [" << plots[i] << "](plots/" << plots[i] << ")";
    o << "\n\n";
  }
}

// Caches in hierarchy order (first levels, L2, TLBs), then any others by name.
std::vector<std::string> cache_order(const nlohmann::json& caches) {
  static const std::vector<std::string> order = {"l1", "readonly", "texture", "constant_l1", "constant_l15",
                                                 "l2", "l1_tlb", "l2_tlb"};
  std::vector<std::string> out;
  for (const auto& n : order)
    if (caches.contains(n) && caches[n].is_object()) out.push_back(n);
  for (auto& [n, c] : caches.items())
    if (c.is_object() && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

std::string summary_cell(const nlohmann::json& c, const std::string& k) {
  if (!determined(c, k)) return "—";
  const auto& v = c[k];
  if (v.is_number() && k.find("bytes") != std::string::npos) {
    const double x = v.get<double>();
    char b[32];
    if (x >= 1048576) std::snprintf(b, sizeof b, "%.2f MiB", x / 1048576);
    else if (x >= 10240) std::snprintf(b, sizeof b, "%.1f KiB", x / 1024);
    else std::snprintf(b, sizeof b, "%.0f B", x);
    return b;
  }
  return value_text(k, v);
}

void render_summary(std::ostringstream& o, const nlohmann::json& caches) {
  o << "## Summary\n\n| cache | size | line | fill | hit latency | miss penalty |\n"
       "|---|---:|---:|---:|---:|---:|\n";
  for (const auto& n : cache_order(caches)) {
    const auto& c = caches[n];
    o << "| " << n << " | " << summary_cell(c, "size_bytes") << " | " << summary_cell(c, "line_bytes") << " | "
      << summary_cell(c, "sector_bytes") << " | " << summary_cell(c, "hit_latency_cycles") << " | "
      << summary_cell(c, "miss_penalty_cycles") << " |\n";
  }
  o << "\nLatencies in cycles (timing overhead removed); — not determined (reasons below).\n\n";
}

// A cache with nothing determined but bookkeeping (per_sm): no table of its own.
bool empty_cache(const nlohmann::json& c) {
  for (const auto& [k, label] : kFields)
    if (k != "per_sm" && determined(c, k)) return false;
  return true;
}

void render_cache(std::ostringstream& o, const std::string& name, const nlohmann::json& c,
                  const std::set<std::string>& shared, const std::vector<std::string>& plots) {
  o << "### " << name << "\n\n| parameter | value | confidence |\n|---|---|---:|\n";
  for (const auto& [k, label] : kFields)
    if (determined(c, k)) o << "| " << label << " | " << value_text(k, c[k]) << " | " << confidence_of(c, k) << " |\n";
  if (c.contains("size_bracket_bytes") && c["size_bracket_bytes"].is_array())
    o << "| size bracket | [" << c["size_bracket_bytes"][0].dump() << ", " << c["size_bracket_bytes"][1].dump() << ") | |\n";
  if (c.contains("prefetch") && c["prefetch"].is_object() && c["prefetch"].contains("detected"))
    o << "| prefetch | " << value_text("detected", c["prefetch"]["detected"]) << " | |\n";
  o << "\n";
  for (const auto& [reason, fields] : undetermined(c, shared)) o << "- Not determined: " << join(fields) << " — " << reason << "\n";
  o << "\n";
  render_plots(o, plots);
}

void render_caches(std::ostringstream& o, const nlohmann::json& caches, const std::vector<std::string>& plot_files,
                   std::set<std::string>* embedded) {
  const std::set<std::string> shared = shared_reasons(caches);
  o << "## Caches\n\n";
  for (const auto& key : shared) {
    const auto nl = key.find('\n');
    std::string label = key.substr(0, nl);
    for (const auto& [k, l] : kFields)
      if (k == label) label = l;
    o << "- Not determined for any cache: " << label << " — " << key.substr(nl + 1) << "\n";
  }
  if (!shared.empty()) o << "\n";
  std::map<std::string, std::vector<std::string>> empty;  // reasons -> caches with nothing determined
  std::map<std::string, std::vector<std::string>> empty_plots;
  for (const auto& n : cache_order(caches)) {
    const auto& c = caches[n];
    auto plots = plots_for(plot_files, n, embedded);
    if (empty_cache(c)) {
      std::string why;
      for (const auto& [reason, fields] : undetermined(c, shared)) why += (why.empty() ? "" : "; ") + reason;
      empty[why].push_back(n);
      empty_plots[why].insert(empty_plots[why].end(), plots.begin(), plots.end());
      continue;
    }
    render_cache(o, n, c, shared, plots);
  }
  for (const auto& [why, names] : empty) {
    o << "### " << join(names) << "\n\nNothing determined: " << why << "\n\n";
    render_plots(o, empty_plots[why]);
  }
}

void render_spectrum(std::ostringstream& o, const nlohmann::json& gm) {
  if (!gm.contains("latency_spectrum") || !gm["latency_spectrum"].is_object()) return;
  // One row per pattern, one column per path: the pattern's meaning is said once.
  std::vector<std::string> paths, patterns;
  std::map<std::string, std::string> what;
  std::map<std::pair<std::string, std::string>, std::string> cycles;
  for (auto& [p, list] : gm["latency_spectrum"].items()) {
    paths.push_back(p);
    for (auto& e : list) {
      const std::string pat = e.value("pattern", "");
      if (!what.count(pat)) patterns.push_back(pat);
      what[pat] = e.value("what", "");
      cycles[{pat, p}] = e.contains("cycles") ? value_text("cycles", e["cycles"]) : "—";
    }
  }
  o << "| pattern |";
  for (const auto& p : paths) o << " " << p << " |";
  o << " what it is |\n|---|";
  for (std::size_t i = 0; i < paths.size(); ++i) o << "---:|";
  o << "---|\n";
  for (const auto& pat : patterns) {
    o << "| " << pat << " |";
    for (const auto& p : paths) o << " " << (cycles.count({pat, p}) ? cycles[{pat, p}] : "—") << " |";
    o << " " << what[pat] << " |\n";
  }
  o << "\n";
}

std::vector<std::string> plot_files_in(const std::string& plot_dir) {
  std::vector<std::string> files;
  std::error_code ec;
  if (!plot_dir.empty())
    for (const auto& e : std::filesystem::directory_iterator(plot_dir + "/plots", ec))
      if (e.path().extension() == ".svg") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  return files;
}

std::string cell(const nlohmann::json& c, const std::string& k) {
  if (!determined(c, k)) return "— (" + reason_of(c, k) + ")";
  const std::string conf = confidence_of(c, k);
  return value_text(k, c[k]) + (conf.empty() ? "" : " (" + conf + ")");
}

// What the refinement loop spent and deferred (analysis/core/refinement), one line.
void render_refinement_line(std::ostringstream& o, const nlohmann::json& t) {
  if (!t.contains("refinement") || !t["refinement"].is_object()) return;
  const auto& r = t["refinement"];
  const nlohmann::json b = r.contains("budget") && r["budget"].is_object() ? r["budget"] : nlohmann::json::object();
  o << "- refinement: " << r.value("refinement_rounds_done", 0) << " round(s), "
    << r.value("measured_seconds_so_far", 0.0) << " s measured (budget " << b.value("total_seconds", 0.0)
    << " s in at most " << b.value("max_rounds", 0) << " rounds, " << b.value("round_seconds", 0.0) << " s and "
    << b.value("round_benchmarks", 0) << " chases per round); next round " << r.value("next_round_chases", 0)
    << " chases, ~" << r.value("next_round_estimated_seconds", 0.0) << " s; " << r.value("deferred_chases", 0)
    << " deferred" << (r.contains("stopped") && r["stopped"].is_string() ? " (" + r["stopped"].get<std::string>() + ")" : "")
    << "\n";
}

void render_measurement(std::ostringstream& o, const nlohmann::json& t) {
  const auto& dev = t["device"];
  o << "## Measurement\n\n";
  for (const char* k : {"characterize_wall_seconds", "plan_wall_seconds", "memhier_plan", "sm_clock_measured_mhz_start",
                        "sm_clock_measured_mhz_end", "sm_clock_throttled"})
    if (dev.contains(k)) o << "- " << k << ": " << (dev[k].is_string() ? dev[k].get<std::string>() : dev[k].dump()) << "\n";
  if (t.contains("measurement")) {
    const auto& m = t["measurement"];
    for (const char* k : {"clock_overhead_pair_cycles", "clock_overhead_fine_cycles"})
      if (m.contains(k)) o << "- " << k << ": " << cell(m, k) << "\n";
    render_refinement_line(o, t);
    if (m.contains("skipped_benchmarks") && m["skipped_benchmarks"].is_array() && !m["skipped_benchmarks"].empty())
      o << "- skipped benchmarks (failed on the device, invalid, or measured with a throttled clock; each with "
           "its reason in topology.json, measurement.skipped_benchmarks): "
        << m["skipped_benchmarks"].size() << "\n";
  }
  o << "\n";
}

}  // namespace

std::string render_report(const nlohmann::json& t, const std::string& plot_dir) {
  std::ostringstream o;
  const auto& dev = t["device"];
  o << "# Memory topology: " << dev.value("gpu_name", "unknown device") << "\n\n";
  o << "Backend `" << dev.value("device_backend", "?") << "`, compute capability "
    << dev.value("compute_capability", "?") << ", driver " << dev.value("driver_version", "?")
    << ". Confidences in [0, 1]; provenance and evidence in `topology.json` (" << t.value("schema", "") << ").\n\n";
  const std::vector<std::string> plot_files = plot_files_in(plot_dir);
  std::set<std::string> embedded;
  const nlohmann::json caches = t.contains("caches") && t["caches"].is_object() ? t["caches"] : nlohmann::json::object();
  render_summary(o, caches);
  render_measurement(o, t);
  render_caches(o, caches, plot_files, &embedded);
  o << "## Global memory\n\n";
  const nlohmann::json gm = t.value("global_memory", nlohmann::json::object());
  o << "DRAM latency: " << cell(gm, "dram_latency_cycles") << " cycles\n\n";
  render_spectrum(o, gm);
  const nlohmann::json sm = t.value("shared_memory", nlohmann::json::object());
  o << "## Shared memory\n\nLatency: " << cell(sm, "latency_cycles") << " cycles\n\n";
  o << render_translation_markdown(t);  // analysis/report/tlb.cpp
  o << render_throughput_markdown(t);
  o << render_sm_resources_markdown(t);
  std::vector<std::string> rest;
  for (const auto& f : plot_files)
    if (!embedded.count(f)) rest.push_back(f);
  if (!rest.empty()) {
    o << "\n## Plots\n\n";
    for (const auto& f : rest) o << "![" << f << "](plots/" << f << ")\n\n";
  }
  const nlohmann::json pend = t.value("refinement_pending", nlohmann::json::object());
  if (pend.value("pchase", 0) + pend.value("tlb", 0) > 0)
    o << "\n**Refinement pending:** " << pend.value("pchase", 0) << " P-chase and " << pend.value("tlb", 0)
      << " TLB measurements would decide values shown as not determined (memhier-infer --next-requests).\n";
  return o.str();
}

}  // namespace memhier::analysis
