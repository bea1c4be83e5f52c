#include "analysis/memory_infer.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/spectrum_infer.hpp"

namespace memhier::analysis {

namespace {
std::vector<Level> path_levels(InferContext& ctx, const std::string& path) {
  std::vector<WeightedValue> all;
  double res = 1;
  for (const auto& c : ctx.data.chases())
    if (c.family == "pchase" && c.path == path && c.mode != "classic")
      if (const Trace* t = ctx.data.trace(c)) {
        auto s = samples_of(*t);
        all.insert(all.end(), s.begin(), s.end());
        res = std::max<double>(res, t->kind == Trace::Kind::fine ? 1 : t->hist.bin_width);
      }
  return cluster_levels(all, res);
}
}  // namespace

void infer_prefetch(InferContext& ctx, nlohmann::json& l2) {
  const auto L = path_levels(ctx, "global_cg");
  nlohmann::json runs = nlohmann::json::array();
  Evidence ev;
  std::uint64_t prefetched_max = 0, not_prefetched_min = 0;
  bool any = false;
  for (const auto& c : ctx.data.chases()) {
    if (c.family != "pchase" || c.path != "global_cg" || c.mode != "fine" || c.warm) continue;
    const Trace* t = ctx.data.trace(c);
    if (!t || t->latency.size() < 64 || L.size() < 2) continue;
    const double b = level_boundary(L, L.size() - 2);
    const std::size_t head = 32;
    std::size_t late = 0, early = 0;
    for (std::size_t k = 0; k < t->latency.size(); ++k)
      (k < head ? early : late) += t->latency[k] > b;
    const double late_rate = static_cast<double>(late) / (t->latency.size() - head);
    // Without prefetching a cold pass misses at least once per fill unit: stride/line of misses.
    const bool prefetched = early > 0 && late_rate < 0.01;
    runs.push_back({{"benchmark", c.name()}, {"bytes", c.bytes}, {"stride", c.stride},
                    {"misses_first_32", early}, {"miss_rate_after", std::round(late_rate * 1e4) / 1e4},
                    {"prefetched", prefetched}});
    ev.add(c.name());
    any = true;
    if (prefetched) prefetched_max = std::max(prefetched_max, c.bytes);
    else if (!not_prefetched_min || c.bytes < not_prefetched_min) not_prefetched_min = c.bytes;
  }
  nlohmann::json p;
  if (!any) {
    set_null(p, "detected", L.size() < 2 ? "no DRAM latency level on the L2 path" : "no cold (warm:0) fine traces of global_cg");
  } else {
    set_value(p, "detected", prefetched_max > 0, 0.8, ev,
              "cold passes that miss only in their first 32 accesses are prefetched (000 §4.6)");
    if (prefetched_max > 0) {
      set_value(p, "max_prefetched_footprint_bytes", prefetched_max, 0.6, ev,
                not_prefetched_min ? "cold passes from " + std::to_string(not_prefetched_min) + " bytes keep missing"
                                   : "every cold footprint measured was prefetched");
      if (not_prefetched_min > prefetched_max && not_prefetched_min > 2 * prefetched_max) {
        const std::uint64_t mid = (prefetched_max + not_prefetched_min) / 2 / 4096 * 4096;
        ctx.requests.add(ChaseWish{"global_cg", "fine", mid, 128, 4096, false, -1, "prefetch footprint"});
      }
    }
    p["runs"] = runs;
  }
  l2["prefetch"] = p;
}

void infer_global_memory(InferContext& ctx, nlohmann::json& gm) {
  Evidence ev;
  double dram = -1;
  const nlohmann::json spec = spectrum_of(ctx.data, &ev, &dram);  // analysis/spectrum_infer.cpp
  if (spec.empty()) set_null(gm, "latency_spectrum", "latency_spectrum family not measured");
  else set_value(gm, "latency_spectrum", spec, 0.9, ev, "median latency per access pattern, P1-P6 of 000 §5.2 / 001 Table 3");
  if (dram >= 0) {
    set_value(gm, "dram_latency_cycles", dram, 0.85, ev, "cold_near pattern on the L2-only path (TLB hit, L2 miss)");
  } else {
    const auto L = path_levels(ctx, "global_cg");
    if (L.size() >= 2) set_value(gm, "dram_latency_cycles", std::round(L.back().mean * 10) / 10, 0.6, {},
                                 "slowest latency level of the L2-only path");
    else set_null(gm, "dram_latency_cycles", "no DRAM latency level measured");
  }
}

void infer_shared_memory(InferContext& ctx, nlohmann::json& sm) {
  double best = -1;
  Evidence ev;
  for (const auto& c : ctx.data.chases())
    if (c.family == "pchase" && c.path == "shared" && c.mode == "classic" && c.stride == 4) {
      best = c.entry->counter("latency_cycles", -1);
      ev.add(c.name());
    }
  if (best >= 0) set_value(sm, "latency_cycles", best, 0.9, ev, "classic P-chase at a 4-byte stride, clock overhead removed");
  else set_null(sm, "latency_cycles", "no classic shared-memory P-chase");
}

void infer_measurement(InferContext& ctx, nlohmann::json& m) {
  for (auto* e : ctx.data.family("clock_overhead")) {
    const std::string k = e->params.get_or("kind", "?");
    Evidence ev;
    ev.add(e->params.str());
    set_value(m, "clock_overhead_" + k + "_cycles", e->counter("clock_overhead_cycles"), 0.95, ev,
              k == "fine" ? "clock read + dependent shared store + clock read (removed from fine/count samples)"
                          : "two consecutive clock reads");
  }
  nlohmann::json s = nlohmann::json::array();
  for (auto& x : ctx.data.skipped()) s.push_back(x);
  m["skipped_benchmarks"] = s;
}

}  // namespace memhier::analysis
