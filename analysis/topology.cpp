#include "analysis/topology.hpp"

#include <filesystem>
#include <set>
#include <map>
#include <algorithm>
#include <sstream>

#include "analysis/cache_infer.hpp"
#include "analysis/memory_infer.hpp"
#include "analysis/throughput.hpp"
#include "analysis/tlb_infer.hpp"

namespace memhier::analysis {

namespace {
const char* kCacheOrder[] = {"l1", "texture", "readonly", "constant_l1", "constant_l15", "l2", "l1_tlb", "l2_tlb"};

void finish_cache(nlohmann::json& c, const std::string& name) {
  const bool per_sm = name != "l2" && name != "l2_tlb";
  set_value(c, "per_sm", per_sm, 0.7, {},
            per_sm ? "served by a per-SM path (caches_per_sm family not evaluated)" : "device-wide level");
  set_null(c, "shared_with", "cache_sharing family not evaluated by this analyzer version");
  for (auto k : {"present", "size_bytes", "line_bytes", "sector_bytes", "sets", "ways", "replacement", "index_bits",
                 "hit_latency_cycles", "miss_penalty_cycles"})
    if (!c.contains(k)) set_null(c, k, "not inferred for this cache");
  // Cache-level confidence: the weakest of its structural values; evidence: their union.
  double conf = 1;
  nlohmann::json ev = nlohmann::json::array();
  for (auto k : {"size_bytes", "line_bytes", "sets", "ways", "replacement", "hit_latency_cycles"}) {
    const auto& p = c["provenance"][k];
    conf = std::min(conf, p.value("confidence", 0.0));
    for (auto& e : p["evidence"])
      if (std::find(ev.begin(), ev.end(), e) == ev.end() && ev.size() < 16) ev.push_back(e);
  }
  c["confidence"] = conf;
  c["evidence"] = ev;
}
}  // namespace

nlohmann::json build_topology(const Dataset& data, Requests& requests, const RefinementBudget& budget) {
  nlohmann::json t;
  t["schema"] = kTopologySchema;
  t["device"] = data.context();
  nlohmann::json inputs = nlohmann::json::array();
  for (auto& r : data.runs()) inputs.push_back(r.path);
  t["inputs"] = inputs;
  requests.set_limits(data.context());
  InferContext ctx{data, requests};
  nlohmann::json caches = nlohmann::json::object();
  infer_path_caches(ctx, "global_ca", {"l1"}, false, caches);
  infer_path_caches(ctx, "texture", {"texture"}, false, caches);
  infer_path_caches(ctx, "ldg", {"readonly"}, false, caches);
  infer_path_caches(ctx, "constant", {"constant_l1", "constant_l15"}, false, caches);
  infer_path_caches(ctx, "global_cg", {"l2"}, true, caches);
  infer_tlbs(ctx, caches);
  infer_prefetch(ctx, caches["l2"]);
  for (auto n : kCacheOrder) finish_cache(caches[n], n);
  t["caches"] = caches;
  nlohmann::json sm = nlohmann::json::object(), gm = nlohmann::json::object(), m = nlohmann::json::object();
  infer_shared_memory(ctx, sm);
  infer_global_memory(ctx, gm);
  infer_measurement(ctx, m);
  t["shared_memory"] = sm;
  t["global_memory"] = gm;
  t["measurement"] = m;
  for (auto k : {"l1_bandwidth", "l2_bandwidth", "outstanding_requests", "warp_access"}) t[k] = nullptr;
  t["outstanding_requests_reason"] = "outstanding_requests family not evaluated by this analyzer version";
  add_throughput_sections(data.runs(), t);
  nlohmann::json pending = nlohmann::json::object();
  const RefinementRound round = plan_round(data, requests, budget);
  requests.selected = round.requests;
  pending["pchase"] = round.requests["pchase"].size();
  pending["tlb"] = round.requests["tlb"].size();
  if (round.requests.contains("cache_sequences")) pending["cache_sequences"] = round.requests["cache_sequences"].size();
  t["refinement_pending"] = pending;
  t["refinement"] = round.summary;
  return t;
}

namespace {
std::string cell(const nlohmann::json& c, const std::string& k) {
  if (!c.contains(k) || c[k].is_null()) {
    std::string why = c.contains("provenance") && c["provenance"].contains(k) ? c["provenance"][k].value("reason", "") : "";
    return why.empty() ? "—" : "— (" + why + ")";
  }
  const auto& v = c[k];
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (c.contains("provenance") && c["provenance"].contains(k))
    s += " (" + std::to_string(c["provenance"][k].value("confidence", 0.0)).substr(0, 4) + ")";
  return s;
}
}  // namespace

namespace {
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
  return out;
}
}  // namespace

std::string render_report(const nlohmann::json& t, const std::string& plot_dir) {
  std::ostringstream o;
  const auto& dev = t["device"];
  o << "# Memory topology: " << dev.value("gpu_name", "unknown device") << "\n\n";
  o << "Backend `" << dev.value("device_backend", "?") << "`, compute capability "
    << dev.value("compute_capability", "?") << ", driver " << dev.value("driver_version", "?") << ".\n";
  o << "Every value shows its confidence in parentheses; `—` is not determined, with the reason. "
       "Schema and provenance: `topology.json` (" << t.value("schema", "") << ").\n\n";
  // Plots written by scripts/plot.py into <archive>/plots/: each cache's beside its table, the
  // rest in a section of their own.
  std::vector<std::string> plot_files;
  {
    std::error_code ec;
    if (!plot_dir.empty())
      for (const auto& e : std::filesystem::directory_iterator(plot_dir + "/plots", ec))
        if (e.path().extension() == ".svg") plot_files.push_back(e.path().filename().string());
    std::sort(plot_files.begin(), plot_files.end());
  }
  std::set<std::string> embedded;
  o << "## Measurement\n\n";
  for (const char* k : {"characterize_wall_seconds", "plan_wall_seconds", "memhier_plan", "sm_clock_measured_mhz_start",
                        "sm_clock_measured_mhz_end", "sm_clock_throttled"})
    if (dev.contains(k)) o << "- " << k << ": " << (dev[k].is_string() ? dev[k].get<std::string>() : dev[k].dump()) << "\n";
  if (t.contains("measurement")) {
    const auto& m = t["measurement"];
    for (const char* k : {"clock_overhead_pair_cycles", "clock_overhead_fine_cycles"})
      if (m.contains(k)) o << "- " << k << ": " << cell(m, k) << "\n";
    if (t.contains("refinement") && t["refinement"].is_object()) {
      const auto& r = t["refinement"];
      o << "- refinement: " << r.value("refinement_rounds_done", 0) << " round(s), "
        << r.value("measured_seconds_so_far", 0.0) << " s measured (budget " << r["budget"].value("total_seconds", 0.0)
        << " s in at most " << r["budget"].value("max_rounds", 0) << " rounds, " << r["budget"].value("round_seconds", 0.0)
        << " s and " << r["budget"].value("round_benchmarks", 0) << " chases per round); next round "
        << r.value("next_round_chases", 0) << " chases, ~" << r.value("next_round_estimated_seconds", 0.0) << " s; "
        << r.value("deferred_chases", 0) << " deferred" << (r.contains("stopped") ? " (" + r["stopped"].get<std::string>() + ")" : "")
        << "\n";
    }
    if (m.contains("skipped_benchmarks") && m["skipped_benchmarks"].is_array() && !m["skipped_benchmarks"].empty())
      o << "- skipped benchmarks (could not run on this device; listed in topology.json): "
        << m["skipped_benchmarks"].size() << "\n";
  }
  o << "\n## Caches\n\n";
  const char* rows[][2] = {{"size_bytes", "Size C (bytes)"},       {"onset_size_bytes", "Misses begin at (bytes)"},
                           {"line_bytes", "Line b (bytes)"},
                           {"sector_bytes", "Fill granularity (bytes)"}, {"page_bytes", "Page (bytes)"},
                           {"entries", "Entries"},                 {"sets", "Sets T"},
                           {"ways", "Ways per set"},               {"replacement", "Replacement"},
                           {"replacement_probabilities", "Per-way replacement probability"},
                           {"index_bits", "Set-index address bits"}, {"index_matrix", "Index matrix (GF(2) rows)"},
                           {"ways_one_set", "Minimal eviction set (lines)"}, {"hit_latency_cycles", "Hit latency (cycles)"},
                           {"miss_penalty_cycles", "Miss penalty (cycles)"}, {"size_bytes_by_carveout", "Size by carveout"},
                           {"per_sm", "Per SM"},                   {"shared_with", "Shared with"}};
  for (const auto& [name, c] : t["caches"].items()) {
    o << "### " << name << "\n\n| Parameter | Value |\n|---|---|\n";
    for (auto& r : rows)
      if (c.contains(r[0])) o << "| " << r[1] << " | " << cell(c, r[0]) << " |\n";
    if (c.contains("prefetch")) o << "| L2 prefetch | " << cell(c["prefetch"], "detected") << " |\n";
    o << "\n";
    for (const auto& f : plots_for(plot_files, name, &embedded)) o << "![" << f << "](plots/" << f << ")\n\n";
  }
  o << "## Global memory\n\n";
  const auto& gm = t["global_memory"];
  o << "DRAM latency: " << cell(gm, "dram_latency_cycles") << " cycles\n\n";
  if (gm.contains("latency_spectrum") && gm["latency_spectrum"].is_object()) {
    o << "| Path | Pattern | Cycles | What it is |\n|---|---|---|---|\n";
    for (auto& [p, list] : gm["latency_spectrum"].items())
      for (auto& e : list) o << "| " << p << " | " << e.value("pattern", "") << " | " << e["cycles"].dump() << " | " << e.value("what", "") << " |\n";
    o << "\n";
  }
  o << "## Shared memory\n\nLatency: " << cell(t["shared_memory"], "latency_cycles") << " cycles\n\n";
  o << render_throughput_markdown(t);
  std::vector<std::string> rest;
  for (const auto& f : plot_files)
    if (!embedded.count(f)) rest.push_back(f);
  if (!rest.empty()) {
    o << "\n## Plots\n\n";
    for (const auto& f : rest) o << "![" << f << "](plots/" << f << ")\n\n";
  }
  const auto& pend = t["refinement_pending"];
  if (pend.value("pchase", 0) + pend.value("tlb", 0) > 0)
    o << "\n**Refinement pending:** " << pend.value("pchase", 0) << " P-chase and " << pend.value("tlb", 0)
      << " TLB measurements would decide values shown as not determined (memhier-infer --next-requests).\n";
  return o.str();
}

}  // namespace memhier::analysis
