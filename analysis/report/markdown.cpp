// report.md (render_report, analysis/report/topology.hpp): what a person reads first, written like
// a datasheet. A summary of the caches and one of the TLBs, then one screen per cache: each row
// names what its number is (capacity, where misses begin, the 50 % point, ...) with its unit and
// confidence; the reasons for the rest grouped (a reason shared by many fields is said once; one
// shared by every cache is said once for all), one plot inline and the others linked; caches with
// nothing determined share one screen. Every number comes from topology.json (formatting:
// analysis/report/format).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "analysis/memory/throughput.hpp"
#include "analysis/report/levels.hpp"
#include "analysis/report/persisting.hpp"
#include "analysis/report/cache_rows.hpp"
#include "analysis/report/format.hpp"
#include "analysis/report/sm_resources.hpp"
#include "analysis/report/tlb.hpp"
#include "analysis/report/topology.hpp"

namespace memhier::analysis {

namespace {

namespace rf = report_format;
using json = nlohmann::json;

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
std::vector<std::string> cache_order(const json& caches) {
  static const std::vector<std::string> order = {"l1", "readonly", "texture", "constant_l1", "constant_l15",
                                                 "l2", "l1_tlb", "l2_tlb"};
  std::vector<std::string> out;
  for (const auto& n : order)
    if (caches.contains(n) && caches[n].is_object()) out.push_back(n);
  for (auto& [n, c] : caches.items())
    if (c.is_object() && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

void render_summary(std::ostringstream& o, const json& caches) {
  using report_rows::summary_cell;
  std::vector<std::string> names, tlbs;
  for (const auto& n : cache_order(caches)) (report_rows::is_tlb(n) ? tlbs : names).push_back(n);
  o << "## Summary\n\n| cache | capacity | line | fill (sector) | hit latency (cycles) | miss penalty (cycles) |\n"
       "|---|---:|---:|---:|---:|---:|\n";
  for (const auto& n : names) {
    const auto& c = caches[n];
    o << "| " << n << " | " << summary_cell(c, "size_bytes") << " | " << summary_cell(c, "line_bytes") << " | "
      << summary_cell(c, "sector_bytes") << " | " << summary_cell(c, "hit_latency_cycles") << " | "
      << summary_cell(c, "miss_penalty_cycles") << " |\n";
  }
  if (!tlbs.empty()) {
    o << "\n| TLB | entries | reach per entry | total reach | miss penalty (cycles) |\n|---|---:|---:|---:|---:|\n";
    for (const auto& n : tlbs) {
      const auto& c = caches[n];
      o << "| " << n << " | " << summary_cell(c, "entries") << " | " << summary_cell(c, "reach_per_entry_bytes") << " | "
        << summary_cell(c, "size_bytes") << " | " << summary_cell(c, "miss_penalty_cycles") << " |\n";
    }
  }
  o << "\nLatencies in cycles, timing overhead removed; capacity exact (sets × ways × line) unless marked "
       "(50 % point: where half the accesses of the miss-rate curve miss; fit: a fit of that curve; driver: the device's own figure; ≥: a lower "
       "bound); — not determined (the reason in the cache's screen below).\n\n";
}

void render_carveouts(std::ostringstream& o, const json& c) {
  const json none = json::object();
  const json& half = c.contains("size_bytes_by_carveout") && c["size_bytes_by_carveout"].is_object() ? c["size_bytes_by_carveout"] : none;
  const json& onset = c.contains("onset_size_bytes_by_carveout") && c["onset_size_bytes_by_carveout"].is_object()
                          ? c["onset_size_bytes_by_carveout"] : none;
  const json& range = c.contains("size_bracket_bytes_by_carveout") && c["size_bracket_bytes_by_carveout"].is_object()
                          ? c["size_bracket_bytes_by_carveout"] : none;
  std::vector<std::string> keys;
  for (const json* m : {&half, &onset, &range})
    for (auto& [k, v] : m->items())
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  if (keys.size() < 2) return;
  std::sort(keys.begin(), keys.end(), rf::natural_less);
  auto bytes = [](const json& m, const std::string& k) {
    return m.contains(k) && m[k].is_number() ? rf::bytes_long(m[k].get<double>()) : std::string("—");
  };
  o << "By shared-memory carveout (percent of the unified array given to shared memory; confidence: onset "
    << report_rows::confidence_or(c, "onset_size_bytes_by_carveout", "—") << ", 50 % point "
    << report_rows::confidence_or(c, "size_bytes_by_carveout", "—") << ", interval "
    << report_rows::confidence_or(c, "size_bracket_bytes_by_carveout", "—")
    << "):\n\n| carveout | misses begin (onset) | 50 % point of the miss-rate curve | capacity lies in |\n|---:|---:|---:|---|\n";
  std::vector<std::pair<std::string, std::string>> rows;  // carveouts with equal figures: one row
  for (const auto& k : keys) {
    const json r = range.value(k, json());
    const std::string figures = bytes(onset, k) + " | " + bytes(half, k) + " | " +
        (r.is_array() && r.size() == 2 ? rf::bytes_interval(r[0].get<double>(), r[1].get<double>(), true) : "—");
    if (!rows.empty() && rows.back().second == figures) rows.back().first += ", " + k + " %";
    else rows.push_back({k + " %", figures});
  }
  for (const auto& [ks, figures] : rows) o << "| " << ks << " | " << figures << " |\n";
  o << "\n";
}

// The random streams (caches.<name>.streams): per variant, loads and count a table k | trials |
// observed | predicted by the named policy (or the two nearest candidates), then the verdict.
std::string fixed3(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", x);
  return b;
}

void render_streams(std::ostringstream& o, const json& c) {
  if (!c.contains("streams") || !c["streams"].is_object()) return;
  const json& st = c["streams"];
  const json curves = st.value("curves", json::array());
  o << "Random streams (cache_streams: a fresh line, k random lines of a "
    << (st.contains("pool_bytes") && st["pool_bytes"].is_number() ? rf::bytes_long(st["pool_bytes"].get<double>()) : std::string("—"))
    << " pool, then the line again; predicted by Monte-Carlo over one set of "
    << (st["sets"].is_number() ? st["sets"].dump() : std::string("—")) << " × "
    << (st["ways"].is_number() ? st["ways"].dump() : std::string("—")) << "):\n\n";
  if (st.contains("scope") && st["scope"].is_string()) o << "Judged: " << st["scope"].get<std::string>() << ".\n\n";
  // Columns: the policies predicted, in the candidates' order (best first).
  std::vector<std::string> cols;
  std::set<std::string> in_curves;
  for (const auto& cv : curves) {
    const json pr = cv.value("predicted", json::object());
    for (auto it = pr.begin(); it != pr.end(); ++it) in_curves.insert(it.key());
  }
  for (const auto& k : st.value("candidates", json::array()))
    if (k.contains("policy") && in_curves.count(k["policy"].get<std::string>())) cols.push_back(k["policy"].get<std::string>());
  for (const auto& k : in_curves)
    if (std::find(cols.begin(), cols.end(), k) == cols.end()) cols.push_back(k);
  std::vector<std::string> groups;
  std::map<std::string, std::vector<const json*>> rows;
  for (const auto& cv : curves) {
    std::string g = cv.value("variant", "") + ", " + cv.value("loads", "");
    const std::string m = cv.value("measure", "evicted");
    if (m != "evicted") g += ", " + m;
    if (!rows.count(g)) groups.push_back(g);
    rows[g].push_back(&cv);
  }
  // One table: a row per k, a column per curve, "observed / predicted" by the first policy (the
  // named one, else the nearest); trials per point in the intro.
  const std::string by = cols.empty() ? std::string() : cols.front();
  std::set<unsigned long long> ks;
  for (const auto& cv : curves) ks.insert(cv.value("k", 0ull));
  o << "Observed / predicted" << (by.empty() ? std::string() : " by " + by) << " per k; "
    << (curves.empty() ? std::string("—") : rf::number(curves.front().value("trials", 0.0), 0)) << " trials a point.\n\n| k |";
  for (const auto& g : groups) o << " " << g << " |";
  o << "\n|---:|";
  for (std::size_t i = 0; i < groups.size(); ++i) o << "---:|";
  o << "\n";
  for (auto k : ks) {
    o << "| " << k << " |";
    for (const auto& g : groups) {
      const json* r = nullptr;
      for (const json* x : rows[g])
        if (x->value("k", 0ull) == k) r = x;
      if (!r) {
        o << " — |";
        continue;
      }
      const json pr = r->value("predicted", json::object());
      o << " " << fixed3(r->value("observed", 0.0)) << " / "
        << (pr.contains(by) && pr[by].is_number() ? fixed3(pr[by].get<double>()) : std::string("—")) << " |";
    }
    o << "\n";
  }
  o << "\n";
  const json named = st.value("named", json());
  o << "- Streams verdict: " << (named.is_null() ? std::string("no policy named") : "named " + named.dump()) << " — "
    << st.value("reason", std::string());
  // the cache's own curves (fresh against mid's first half), where no sentence joined the reason
  const json own = st.value("own_curves", json());
  if (own.is_object() && own.value("disagree", json()).is_null())
    o << " (fresh against mid's re-read after the same lines, " << own.value("pairs", 0) << " pairs: combined z "
      << rf::number(own.value("z_min", 0.0), 1) << " to " << rf::number(own.value("z_max", 0.0), 1)
      << " over the candidates scored last; beyond 4 for all, the path would lose fresh targets besides the stream)";
  o << "\n\n";
}

void render_cache(std::ostringstream& o, const std::string& name, const json& c, const std::set<std::string>& shared,
                  const std::vector<std::string>& plots) {
  o << "### " << name << "\n\n| parameter | value | confidence |\n|---|---|---:|\n";
  for (const auto& r : report_rows::rows(name, c)) o << "| " << r.label << " | " << r.value << " | " << r.confidence << " |\n";
  o << "\n";
  if (!report_rows::is_tlb(name)) render_carveouts(o, c);
  render_streams(o, c);
  bool any = false;
  for (const auto& [reason, fields] : report_rows::undetermined(name, c, shared)) {
    o << "- Not determined: " << join(fields) << " — " << reason << "\n";
    any = true;
  }
  if (any) o << "\n";
  render_plots(o, plots);
}

// Caches with nothing determined, grouped by the same not-determined lines.
void render_empty(std::ostringstream& o, const json& caches, const std::vector<std::string>& plot_files,
                  std::set<std::string>* embedded, const std::set<std::string>& shared) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> names, plots;
  for (const auto& n : cache_order(caches)) {
    const auto& c = caches[n];
    if (!report_rows::empty_cache(n, c)) continue;
    std::string why;
    for (const auto& [reason, fields] : report_rows::undetermined(n, c, shared))
      why += "- " + join(fields) + " — " + reason + "\n";
    if (!names.count(why)) order.push_back(why);
    names[why].push_back(n);
    auto p = plots_for(plot_files, n, embedded);
    plots[why].insert(plots[why].end(), p.begin(), p.end());
  }
  for (const auto& why : order) {
    o << "### " << join(names[why]) << "\n\nNothing determined" << (why.empty() ? ".\n" : ":\n\n" + why) << "\n";
    render_plots(o, plots[why]);
  }
}

void render_caches(std::ostringstream& o, const json& caches, const std::vector<std::string>& plot_files,
                   std::set<std::string>* embedded) {
  const std::set<std::string> shared = report_rows::shared_reasons(caches);
  o << "## Caches\n\n";
  for (const auto& key : shared) {
    const auto nl = key.find('\n');
    o << "- Not determined for any cache: " << report_rows::label_of(key.substr(0, nl)) << " — " << key.substr(nl + 1) << "\n";
  }
  if (!shared.empty()) o << "\n";
  for (const auto& n : cache_order(caches))
    if (!report_rows::empty_cache(n, caches[n])) render_cache(o, n, caches[n], shared, plots_for(plot_files, n, embedded));
  render_empty(o, caches, plot_files, embedded, shared);
}

void render_spectrum(std::ostringstream& o, const json& gm) {
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
      cycles[{pat, p}] = e.contains("cycles") ? rf::plain(e["cycles"]) : "—";
    }
  }
  std::stable_sort(patterns.begin(), patterns.end(), rf::natural_less);
  o << "Latency spectrum: cycles of one load by access pattern (rows) and load path (columns); — not measured on "
       "that path.\n\n| pattern |";
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

// "727 cycles (confidence 0.85)", or "not determined — why".
std::string figure(const json& c, const std::string& k, const std::string& unit) {
  if (!c.contains(k) || c[k].is_null()) return "not determined — " + report_rows::reason_of(c, k);
  const std::string conf = report_rows::confidence_or(c, k, "");
  return rf::plain(c[k]) + " " + unit + (conf.empty() ? "" : " (confidence " + conf + ")");
}

// What the refinement loop spent and deferred (analysis/core/refinement), one line.
void render_refinement_line(std::ostringstream& o, const json& t) {
  if (!t.contains("refinement") || !t["refinement"].is_object()) return;
  const auto& r = t["refinement"];
  const json b = r.contains("budget") && r["budget"].is_object() ? r["budget"] : json::object();
  auto n = [](const json& x, const char* k) { return rf::plain(x.value(k, json(0)), 3); };
  o << "- refinement: " << n(r, "refinement_rounds_done") << " round(s), " << n(r, "measured_seconds_so_far")
    << " s measured (budget " << n(b, "total_seconds") << " s in at most " << n(b, "max_rounds") << " rounds, "
    << n(b, "round_seconds") << " s and " << n(b, "round_benchmarks") << " chases per round); next round "
    << n(r, "next_round_chases") << " chases, ~" << n(r, "next_round_estimated_seconds") << " s; "
    << n(r, "deferred_chases") << " chases deferred"
    << (r.contains("stopped") && r["stopped"].is_string() ? " (" + r["stopped"].get<std::string>() + ")" : "") << "\n";
}

// A context value: numbers as numbers (from their text too), true/false as yes/no.
std::string context_value(const json& v, const std::string& unit) {
  std::string s = rf::plain(v, 2);  // memhier-topology/2: numbers and booleans; /1: their text
  if (v.is_number()) s = rf::number(v.get<double>(), unit == "MHz" ? 1 : 2);
  if (v.is_string()) {
    if (s == "true" || s == "false") return s == "true" ? "yes" : "no";
    char* end = nullptr;
    const double x = std::strtod(s.c_str(), &end);
    if (!s.empty() && end && *end == '\0') s = rf::number(x, unit == "MHz" ? 1 : 2);
  }
  if (s.find('.') != std::string::npos && (v.is_string() || v.is_number())) {  // 22.90 -> 22.9
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s + (unit.empty() ? "" : " " + unit);
}

// The device's conditions while measuring (measurement.conditions): one line each.
void render_conditions_lines(std::ostringstream& o, const json& m) {
  if (!m.contains("conditions") || !m["conditions"].is_object()) return;
  const json& c = m["conditions"];
  auto verdict = [&](const char* k) {
    const json v = c.value(k, json());
    return v.is_boolean() ? std::string(v.get<bool>() ? "yes" : "no") : std::string("unknown (NVML: ") + c.value("nvml", "?") + ")";
  };
  o << "- another process shared the GPU (contended): " << verdict("contended") << "\n";
  o << "- clocks throttled by power, thermal or hardware slowdown: " << verdict("throttled") << "\n";
  if (!c.value("evidence", std::string()).empty()) o << "- evidence: " << c.value("evidence", std::string()) << "\n";
  std::string modes;
  for (const char* k : {"ecc_mode", "mig_mode", "persistence_mode"})
    if (c.contains(k)) modes += (modes.empty() ? "" : ", ") + std::string(k).substr(0, std::string(k).find('_')) + " " + c[k].get<std::string>();
  if (!modes.empty()) o << "- device modes: " << modes << "\n";
  if (c.contains("gpu_uuid")) o << "- board: " << c["gpu_uuid"].get<std::string>()
                                << (c.value("gpu_serial", std::string()).empty() ? "" : ", serial " + c["gpu_serial"].get<std::string>()) << "\n";
}

// The device memory free at the start (measurement.memory) and, where other processes held much of
// it, which whole-memory experiments it limited: one line.
void render_memory_line(std::ostringstream& o, const json& m) {
  if (!m.contains("memory") || !m["memory"].is_object()) return;
  const json& mem = m["memory"];
  o << "- device memory free at the start: " << rf::bytes_short(mem.value("free_bytes_at_start", 0.0)) << " of "
    << rf::bytes_short(mem.value("total_bytes", 0.0));
  if (mem.value("limited", false)) {
    o << " (**limited**: " << mem.value("note", std::string());
    std::string lim;
    for (const auto& f : mem.value("limited_families", json::array()))
      lim += (lim.empty() ? "" : ", ") + f.value("family", std::string()) + " up to " +
             rf::bytes_short(f.value("largest_footprint_bytes", 0.0)) + " (" + f.value("limits", std::string()) + ")";
    if (!lim.empty()) o << "; " << lim;
    o << ")";
  }
  o << "\n";
}

void render_measurement(std::ostringstream& o, const json& t) {
  static const std::vector<std::pair<const char*, std::pair<const char*, const char*>>> kDevice = {
      {"characterize_wall_seconds", {"characterization wall time", "s"}}, {"plan_wall_seconds", {"plan wall time", "s"}},
      {"memhier_plan", {"plan", ""}}, {"sm_clock_measured_mhz_start", {"SM clock at the start", "MHz"}},
      {"sm_clock_measured_mhz_end", {"SM clock at the end", "MHz"}}, {"sm_clock_throttled", {"SM clock throttled", ""}}};
  const json dev = t.value("device", json::object());
  o << "## Measurement\n\n";
  for (const auto& [k, lu] : kDevice) {
    if (!dev.contains(k)) continue;
    o << "- " << lu.first << ": " << context_value(dev[k], lu.second) << "\n";
  }
  if (t.contains("measurement") && t["measurement"].is_object()) {
    const auto& m = t["measurement"];
    if (m.contains("clock_overhead_pair_cycles"))
      o << "- timer overhead, two clock reads (removed from the latencies): " << figure(m, "clock_overhead_pair_cycles", "cycles") << "\n";
    if (m.contains("clock_overhead_fine_cycles"))
      o << "- timer overhead, fine runs (removed from the latencies): " << figure(m, "clock_overhead_fine_cycles", "cycles") << "\n";
    render_refinement_line(o, t);
    render_conditions_lines(o, m);
    render_memory_line(o, m);
    if (m.contains("skipped_benchmarks") && m["skipped_benchmarks"].is_array() && !m["skipped_benchmarks"].empty())
      o << "- skipped benchmarks (failed on the device, invalid, or measured with a throttled clock; each with "
           "its reason in topology.json, measurement.skipped_benchmarks): "
        << m["skipped_benchmarks"].size() << "\n";
  }
  o << "\n";
}

void render_plots_section(std::ostringstream& o, const std::vector<std::string>& plot_files, const std::set<std::string>& embedded) {
  std::vector<std::string> rest;
  for (const auto& f : plot_files)
    if (!embedded.count(f)) rest.push_back(f);
  if (rest.empty()) return;
  o << "\n## Plots\n\n";
  for (const auto& f : rest) o << "![" << f << "](plots/" << f << ")\n\n";
}

}  // namespace

// Before anything else when the measurement cannot be trusted: another process shared the GPU, or
// its clocks were throttled (measurement.conditions, from memhier-bench's NVML looks).
void render_conditions_warning(std::ostringstream& o, const json& t) {
  const json m = t.value("measurement", json::object());
  if (!m.contains("conditions") || !m["conditions"].is_object()) return;
  const json& c = m["conditions"];
  const bool contended = c.value("contended", json()) == json(true), throttled = c.value("throttled", json()) == json(true);
  if (!contended && !throttled) return;
  o << "> **This run is marked " << (contended && throttled ? "contended and throttled" : contended ? "contended" : "throttled")
    << "**: " << c.value("evidence", std::string("(no evidence recorded)"))
    << ". Its figures measure the device under those conditions; memhier-compare refuses verdicts on it "
       "(exit 7) unless `--allow-contended`.\n\n";
}

std::string render_report(const json& topology, const std::string& plot_dir) {
  const json t = ways_by_set_view(topology);  // the tables read ways by set (/2 states a count)
  std::ostringstream o;
  const json dev = t.value("device", json::object());
  o << "# Memory topology: " << dev.value("gpu_name", "unknown device") << "\n\n";
  o << "Backend `" << dev.value("device_backend", "?") << "`, compute capability "
    << dev.value("compute_capability", "?") << ", driver " << dev.value("driver_version", "?")
    << ". Confidences in [0, 1]; provenance and evidence in `topology.json` (" << t.value("schema", "") << ").\n\n";
  render_conditions_warning(o, t);
  const std::vector<std::string> plot_files = plot_files_in(plot_dir);
  std::set<std::string> embedded;
  const json caches = t.contains("caches") && t["caches"].is_object() ? t["caches"] : json::object();
  render_summary(o, caches);
  render_measurement(o, t);
  render_caches(o, caches, plot_files, &embedded);
  o << "## Global memory\n\n";
  const json gm = t.value("global_memory", json::object());
  o << "DRAM latency: " << figure(gm, "dram_latency_cycles", "cycles") << "\n\n";
  render_spectrum(o, gm);
  const json sm = t.value("shared_memory", json::object());
  o << "## Shared memory\n\nLatency: " << figure(sm, "latency_cycles", "cycles") << "\n\n";
  o << render_translation_markdown(t);  // analysis/report/tlb.cpp
  o << render_throughput_markdown(t);
  o << render_sm_resources_markdown(t);
  o << render_persisting_markdown(t);  // analysis/report/persisting.cpp: only where l2_persist was measured
  o << render_levels_markdown(t);  // analysis/report/levels.cpp: only where the families were measured
  render_plots_section(o, plot_files, embedded);
  const json pend = t.value("refinement_pending", json::object());
  if (pend.value("pchase", 0) + pend.value("tlb", 0) > 0)
    o << "\n**Refinement pending:** " << pend.value("pchase", 0) << " P-chase and " << pend.value("tlb", 0)
      << " TLB measurements would decide values shown as not determined (memhier-infer --next-requests).\n";
  return o.str();
}

}  // namespace memhier::analysis
