#include "analysis/report/topology.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "analysis/cache/infer_caches.hpp"
#include "analysis/cache/streams.hpp"
#include "analysis/memory/infer_memory.hpp"
#include "analysis/l2/l2_evsets.hpp"
#include "analysis/l2/l2_partitions.hpp"
#include "analysis/l2/l2_slices.hpp"
#include "analysis/l2/l2_story.hpp"
#include "analysis/memory/levels.hpp"
#include "analysis/memory/outstanding.hpp"
#include "analysis/l2/persisting_l2.hpp"
#include "analysis/memory/outstanding_littles.hpp"
#include "analysis/cache/sharing.hpp"
#include "analysis/report/early_sections.hpp"
#include "analysis/report/sm_resources.hpp"
#include "analysis/memory/throughput.hpp"
#include "analysis/tlb/infer_tlbs.hpp"
#include "analysis/report/tlb.hpp"

namespace memhier::analysis {

namespace {
// MEMHIER_PROFILE=1: the wall time of each step of build_topology on stderr (where the analysis's
// seconds go; docs/methodology.md, Wall time).
class StepClock {
 public:
  StepClock() : on_(std::getenv("MEMHIER_PROFILE") != nullptr), t_(std::chrono::steady_clock::now()) {}
  void operator()(const char* step) {
    if (!on_) return;
    const auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "memhier-infer: %-28s %8.1f ms\n", step, std::chrono::duration<double, std::milli>(now - t_).count());
    t_ = now;
  }

 private:
  bool on_;
  std::chrono::steady_clock::time_point t_;
};

const char* kCacheOrder[] = {"l1", "texture", "readonly", "constant_l1", "constant_l15", "l2", "l1_tlb", "l2_tlb"};

void finish_cache(nlohmann::json& c, const std::string& name);

// The early sections (early_sections.hpp): every cache from the P-chase sweeps, the access sequences
// and the sharing families, and address translation.
void infer_early_caches(InferContext& ctx, nlohmann::json& t, StepClock& step) {
  nlohmann::json caches = nlohmann::json::object();
  infer_path_caches(ctx, "global_ca", {"l1"}, false, caches);
  step("caches global_ca");
  infer_path_caches(ctx, "texture", {"texture"}, false, caches);
  step("caches texture");
  infer_path_caches(ctx, "ldg", {"readonly"}, false, caches);
  step("caches ldg");
  infer_path_caches(ctx, "constant", {"constant_l1", "constant_l15"}, false, caches);
  step("caches constant");
  infer_path_caches(ctx, "global_cg", {"l2"}, true, caches);
  step("caches global_cg");
  t["address_translation"] = infer_tlbs(ctx, caches);
  step("tlbs");
  infer_prefetch(ctx, caches["l2"]);
  for (auto n : kCacheOrder) finish_cache(caches[n], n);
  add_sharing(ctx.data, caches);  // shared_with, slices_per_sm (cache_sharing, caches_per_sm)
  t["caches"] = caches;
  step("prefetch, sharing");
}

// The sections of the levels beyond one SM and of the whole L2 (late families, deferred by
// characterize.sh): dsmem, async copies, host, peers, persisting L2, partitions, slices, sets.
void add_late_sections(const Dataset& data, nlohmann::json& t, StepClock& step) {
  add_level_sections(data.runs(), t);  // dsmem, async copies, host, peers: only where measured
  if (auto p = persisting_l2_section(data.runs()); !p.is_null()) t["l2_persisting"] = p;  // only where measured
  t["l2_partitions"] = l2_partitions_section(data);
  if (t["l2_partitions"].is_null()) t["l2_partitions_reason"] = "no l2_partitions entries in the input";
  step("levels, l2 partitions");
  {  // the slices, per partition where the map grouped the SMs (only where measured)
    std::vector<std::vector<unsigned>> parts;
    const auto& lp = t["l2_partitions"];
    if (lp.is_object() && lp.contains("map") && lp["map"].value("partitions", nlohmann::json()).is_number() &&
        lp["map"].contains("sms_per_partition"))
      for (const auto& g : lp["map"]["sms_per_partition"])
        if (!g.empty()) parts.push_back(g.get<std::vector<unsigned>>());
    if (auto s = l2_slices_section(data, parts); !s.is_null()) t["l2_slices"] = s;
  }
  step("l2 slices");
  // ways and sets from minimal eviction sets, per slice over l2_slices (only where measured)
  if (auto s = l2_sets_section(data, t); !s.is_null()) {
    t["l2_sets"] = s;
    if (const std::string w = l2_ways_sentence(s); !w.empty()) t["l2_sets"]["ways_explained"] = w;
  }
  explain_slice_count(t);  // l2_slices: the candidates where the count is a lower bound
  merge_l2_story(t);  // caches.l2: the whole L2 where l2_sets decided it, one SM's view as sub-figures
  judge_l2_streams(t, data);  // its random streams on one partition's sets, joined with l2_sets' verdict
  step("l2 sets, story");
}

void finish_cache(nlohmann::json& c, const std::string& name) {
  const bool tlb = name == "l1_tlb" || name == "l2_tlb";
  const bool per_sm = name != "l2" && name != "l2_tlb";
  if (tlb)  // the tlb family chases from one thread of one SM: per SM or shared is not observable
    set_null(c, "per_sm", "not measured: one chase on one SM cannot tell a per-SM TLB from a shared one");
  else
    set_value(c, "per_sm", per_sm, 0.7, {},
              per_sm ? "served by a per-SM path (slices per SM: slices_per_sm)" : "device-wide level");
  set_null(c, "shared_with", "not measured: no cache_sharing entry for this cache");
  for (auto k : {"present", "size_bytes", "line_bytes", "sector_bytes", "sets", "ways", "replacement", "index_bits",
                 "hit_latency_cycles", "miss_penalty_cycles"})
    if (!c.contains(k)) set_null(c, k, "not inferred for this cache");
  // Cache-level confidence: the weakest of its structural values; evidence: their union.
  double conf = 1;
  nlohmann::json ev = nlohmann::json::array();
  for (auto k : {"size_bytes", "line_bytes", "sets", "ways", "replacement", "hit_latency_cycles"}) {
    // a TLB hit has no latency of its own: its miss penalty stands in
    const auto& p = c["provenance"][tlb && std::string(k) == "hit_latency_cycles" ? "miss_penalty_cycles" : k];
    conf = std::min(conf, p.value("confidence", 0.0));
    for (auto& e : p["evidence"])
      if (std::find(ev.begin(), ev.end(), e) == ev.end() && ev.size() < 16) ev.push_back(e);
  }
  c["confidence"] = conf;
  c["evidence"] = ev;
}
}  // namespace

nlohmann::json build_topology(const Dataset& data, Requests& requests, const RefinementBudget& budget,
                              const std::string& sections_cache, std::string* cache_note) {
  nlohmann::json t;
  t["schema"] = kTopologySchemaV1;  // the sections in the /1 shape; upgrade_topology shapes the document last
  t["device"] = data.context();
  nlohmann::json inputs = nlohmann::json::array();
  for (auto& r : data.runs()) inputs.push_back(r.path);
  t["inputs"] = inputs;
  requests.set_limits(data.context());
  InferContext ctx{data, requests};
  ctx.read_all_sequences = true;
  StepClock step;
  // The early sections: from the cache file where it holds them for this data, else computed.
  nlohmann::json fp;
  EarlySections early;
  bool reused = false;
  if (!sections_cache.empty()) {
    fp = early_fingerprint(data, budget);
    std::string why;
    reused = load_early_sections(sections_cache, fp, &early, &why);
    if (cache_note) *cache_note = reused ? "early sections reused from " + sections_cache : "early sections computed (" + why + ")";
    step("sections cache");
  }
  if (reused) {
    t["address_translation"] = early.address_translation;
    t["caches"] = early.caches;
  } else {
    infer_early_caches(ctx, t, step);
    early.caches = t["caches"];  // before the late sections add to caches.l2 (merge_l2_story)
    early.address_translation = t["address_translation"];
  }
  nlohmann::json sm = nlohmann::json::object(), gm = nlohmann::json::object(), m = nlohmann::json::object();
  infer_shared_memory(ctx, sm);
  infer_global_memory(ctx, gm);
  infer_measurement(ctx, m);
  step("shared, global, measurement");
  t["shared_memory"] = sm;
  t["global_memory"] = gm;
  t["measurement"] = m;
  for (auto k : {"l1_bandwidth", "l2_bandwidth", "outstanding_requests", "warp_access"}) t[k] = nullptr;
  t["outstanding_requests_reason"] = "outstanding_requests family not evaluated by this analyzer version";
  add_throughput_sections(data.runs(), t);
  if (auto o = outstanding_section(data); !o.is_null()) {
    add_littles_law_all_sms(o, t);  // the throughput sections' saturated rates at the series' loaded latency
    t["outstanding_requests"] = o;
    t.erase("outstanding_requests_reason");
  } else {
    t["outstanding_requests_reason"] = "no outstanding_requests series in the input";
  }
  step("throughput, outstanding");
  add_late_sections(data, t, step);  // levels beyond one SM, persisting L2, the L2 partitions, slices, sets
  if (reused) {
    requests.selected = early.selected;
    t["refinement_pending"] = early.refinement_pending;
    t["refinement"] = early.refinement;
  } else {
    nlohmann::json pending = nlohmann::json::object();
    const RefinementRound round = plan_round(data, requests, budget);
    requests.selected = round.requests;
    pending["pchase"] = round.requests["pchase"].size();
    pending["tlb"] = round.requests["tlb"].size();
    if (round.requests.contains("cache_sequences")) pending["cache_sequences"] = round.requests["cache_sequences"].size();
    t["refinement_pending"] = pending;
    t["refinement"] = round.summary;
    step("refinement round");
    if (!sections_cache.empty() &&
        !save_early_sections(sections_cache, fp, {early.caches, early.address_translation, pending, round.summary, round.requests}) &&
        cache_note)
      *cache_note += "; " + sections_cache + " could not be written";
  }
  upgrade_topology(t);  // device values typed, inputs by name, ways a count (topology_schema.hpp)
  return t;
}

}  // namespace memhier::analysis
