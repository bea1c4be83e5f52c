#include "analysis/memory/infer_memory.hpp"

#include <algorithm>
#include <filesystem>
#include <cmath>
#include <map>
#include <sstream>

#include "analysis/memory/dram.hpp"
#include "analysis/memory/spectrum.hpp"

namespace memhier::analysis {

namespace {
// One cold pass of the L2-only path: its misses (accesses beyond the L2 hit level) in the first
// kPrefetchHead accesses and after them.
constexpr std::size_t kPrefetchHead = 32;
struct ColdPass {
  const Chase* c = nullptr;
  std::size_t early = 0, late = 0, after = 0;
};

std::vector<ColdPass> cold_passes(const Dataset& data, double boundary) {
  std::vector<ColdPass> out;
  for (const auto& c : data.chases()) {
    if (c.family != "pchase" || c.path != "global_cg" || c.mode != "fine" || c.warm) continue;
    const Trace* t = data.trace(c);
    if (!t || t->latency.size() < 2 * kPrefetchHead) continue;
    ColdPass p{&c, 0, 0, t->latency.size() - kPrefetchHead};
    for (std::size_t k = 0; k < t->latency.size(); ++k) (k < kPrefetchHead ? p.early : p.late) += t->latency[k] > boundary;
    out.push_back(p);
  }
  return out;
}

std::string prefetch_null_reason(std::size_t levels, std::size_t passes, std::uint64_t line) {
  if (levels < 2) return "no latency level beyond the L2 hit on the L2-only path";
  if (!passes) return "no cold (warm:0) fine traces of global_cg";
  if (!line) return "L2 line size not determined: no miss rate without prefetching to test the cold passes against";
  return "no cold pass missed in its first " + std::to_string(kPrefetchHead) + " accesses (none was cold)";
}
}  // namespace

// A cold pass at stride s over lines of b bytes misses at least once per line without a prefetcher:
// after its head, at a rate of at least min(1, s / b). It is prefetched when its late misses are
// significantly fewer (Poisson lower tail below kAlpha / passes: Bonferroni over the passes), and
// only a pass whose head missed was cold. Misses are accesses beyond the L2 hit level (the boundary
// above the path's first level), whatever the levels beyond it: a rare slow DRAM tail that the
// clustering splits off in one run and not in another does not move the boundary.
void infer_prefetch(InferContext& ctx, nlohmann::json& l2) {
  double res = 1;
  const PathData pd = path_data(ctx.data, "global_cg", &res);
  const auto& L = pd.levels;
  const std::uint64_t line = l2.contains("line_bytes") && l2["line_bytes"].is_number() && l2["line_bytes"].get<double>() > 0
                                 ? static_cast<std::uint64_t>(l2["line_bytes"].get<double>()) : 0;
  const auto passes = L.size() < 2 ? std::vector<ColdPass>{} : cold_passes(ctx.data, level_boundary(L, 0));
  std::size_t cold = 0;
  for (const auto& p : passes) cold += p.early > 0;
  nlohmann::json p;
  if (L.size() < 2 || !line || !cold) {
    set_null(p, "detected", prefetch_null_reason(L.size(), passes.size(), line));
    l2["prefetch"] = p;
    return;
  }
  const double alpha = kAlpha / static_cast<double>(cold);
  nlohmann::json runs = nlohmann::json::array();
  Evidence ev;
  std::uint64_t prefetched_max = 0, not_prefetched_min = 0;
  for (const auto& q : passes) {
    const double rate0 = std::min(1.0, static_cast<double>(q.c->stride) / static_cast<double>(line));
    const double pv = poisson_lower_tail(static_cast<double>(q.late), rate0 * static_cast<double>(q.after));
    const bool prefetched = q.early > 0 && pv < alpha;
    nlohmann::json r = {{"benchmark", q.c->name()}, {"bytes", q.c->bytes}, {"stride", q.c->stride},
                        {"misses_first_32", q.early}, {"miss_rate_after", std::round(q.late * 1e4 / q.after) / 1e4},
                        {"miss_rate_without_prefetch", std::round(rate0 * 1e4) / 1e4}, {"prefetched", prefetched}};
    if (q.early == 0) r["note"] = "not cold: no miss in its first accesses";
    runs.push_back(r);
    ev.add(q.c->name());
    if (q.early == 0) continue;
    if (prefetched) prefetched_max = std::max(prefetched_max, q.c->bytes);
    else if (!not_prefetched_min || q.c->bytes < not_prefetched_min) not_prefetched_min = q.c->bytes;
  }
  std::ostringstream why;
  why << "a cold pass is prefetched when its misses after the first " << kPrefetchHead
      << " accesses are significantly fewer than one per " << line << "-byte line (Poisson lower tail < "
      << alpha << ", alpha " << kAlpha << " over " << cold << " cold passes; 000 §4.6)";
  set_value(p, "detected", prefetched_max > 0, 0.8, ev, why.str());
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
  l2["prefetch"] = p;
}

namespace {
// DRAM latency without a latency_spectrum: the main DRAM levels of the L2-only path
// (analysis/memory/dram.hpp), its rarer slower levels beside it.
void dram_from_levels(InferContext& ctx, nlohmann::json& gm) {
  const PathData pd = path_data(ctx.data, "global_cg", nullptr);
  const auto d = dram_level(ctx.data, pd);
  if (!d) {
    set_null(gm, "dram_latency_cycles", "no DRAM latency level measured");
    return;
  }
  Evidence ev;
  if (d->run) ev.add(d->run->name());
  std::ostringstream why;
  why << (d->run ? "median latency of the accesses of the largest warm footprint (" + std::to_string(d->run->bytes) +
                       " bytes, every access an L2 miss) in its main latency levels (each beyond the L2 hit up to the last holding >= 10 %)"
                 : std::string("mean of the latency level beyond the L2 hit that holds most accesses of the path"))
      << " (" << std::round(d->share * 1000) / 10 << " % of them)";
  if (!d->slower.empty()) why << "; " << d->slower.size() << " rarer slower level(s) in dram_slow_levels";
  set_value(gm, "dram_latency_cycles", std::round(d->median * 10) / 10, d->run ? 0.8 : 0.5, ev, why.str());
  nlohmann::json slow = nlohmann::json::array();
  for (const auto& s : d->slower)
    slow.push_back({{"latency_cycles", std::round(s.mean * 10) / 10}, {"share", std::round(s.share * 1e4) / 1e4}});
  gm["dram_slow_levels"] = slow;
}
}  // namespace

void infer_global_memory(InferContext& ctx, nlohmann::json& gm) {
  Evidence ev;
  double dram = -1;
  const nlohmann::json spec = spectrum_of(ctx.data, &ev, &dram);  // analysis/memory/spectrum.cpp
  if (spec.empty()) set_null(gm, "latency_spectrum", "latency_spectrum family not measured");
  else set_value(gm, "latency_spectrum", spec, 0.9, ev, "median latency per access pattern, P1-P6 of 000 §5.2 / 001 Table 3");
  if (dram >= 0) set_value(gm, "dram_latency_cycles", dram, 0.85, ev, "cold_near pattern on the L2-only path (TLB hit, L2 miss)");
  else dram_from_levels(ctx, gm);
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

namespace {

// "true" / "false" / anything else (unknown) as a JSON bool or null.
nlohmann::json tri(const std::string& v) { return v == "true" ? nlohmann::json(true) : v == "false" ? nlohmann::json(false) : nlohmann::json(); }

// The evidence of the plan and of every refinement round as one line: one memhier-bench process
// writes them all, each round's a running total of the one before ("other compute processes during
// cache_sequences (1), pchase (1)"), so a clause is kept once and the families of clauses that
// differ only in their list ("... during A (1)" and "... during A (1), B (1)") are merged.
std::string merge_evidence(const std::vector<std::string>& texts) {
  std::vector<std::string> order;                             // clause heads, first seen first
  std::map<std::string, std::vector<std::string>> items;      // head -> list items (after " during ")
  for (const auto& text : texts) {
    std::size_t at = 0;
    while (at <= text.size()) {
      const std::size_t end = std::min(text.find("; ", at), text.size());
      const std::string clause = text.substr(at, end - at);
      at = end + 2;
      if (clause.empty()) continue;
      const std::size_t d = clause.find(" during ");
      const std::string head = d == std::string::npos ? clause : clause.substr(0, d);
      if (!items.count(head)) order.push_back(head);
      auto& list = items[head];
      if (d == std::string::npos) continue;
      const std::string rest = clause.substr(d + 8);
      std::size_t p = 0;
      while (p < rest.size()) {  // "a (1), b (2)": split at ", " outside parentheses
        std::size_t q = p;
        for (int depth = 0; q < rest.size() && !(depth == 0 && rest.compare(q, 2, ", ") == 0); ++q)
          depth += rest[q] == '(' ? 1 : rest[q] == ')' ? -1 : 0;
        const std::string item = rest.substr(p, q - p);
        if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
        p = q + 2;
      }
    }
  }
  std::string out;
  for (const auto& head : order) {
    std::string clause = head;
    const auto& list = items[head];
    for (std::size_t i = 0; i < list.size(); ++i) clause += (i ? ", " : " during ") + list[i];
    out += (out.empty() ? "" : "; ") + clause;
  }
  return out;
}

// The device memory the run found free (memory_free_bytes_at_start, memhier-bench's context): the
// whole-memory experiments (the TLB map's footprints up to tlb_limit_bytes, the latency spectrum)
// are sized to it, so memory another process held limits them. Below 90 % of the device's memory
// free the section says so and names what was limited; nothing for runs that did not record it.
void measurement_memory(const Dataset& data, nlohmann::json& m) {
  const BenchRun& plan = data.runs().front();
  const double total = std::strtod(plan.context_or("global_mem_bytes", "0").c_str(), nullptr);
  const double free = std::strtod(plan.context_or("memory_free_bytes_at_start", "-1").c_str(), nullptr);
  if (total <= 0 || free < 0) return;
  nlohmann::json j = {{"total_bytes", total}, {"free_bytes_at_start", free}};
  j["limited"] = free < 0.9 * total;
  if (free < 0.9 * total) {
    nlohmann::json lim = nlohmann::json::array();
    const double tlb = std::strtod(plan.context_or("tlb_limit_bytes", "0").c_str(), nullptr);
    if (tlb > 0) lim.push_back({{"family", "tlb"}, {"largest_footprint_bytes", tlb},
                                {"limits", "TLB reach and entries beyond this footprint are not seen"}});
    double spectrum = 0;
    for (const auto* e : data.family("latency_spectrum")) spectrum = std::max(spectrum, static_cast<double>(e->params.get_int_or("bytes", 0)));
    if (spectrum > 0) lim.push_back({{"family", "latency_spectrum"}, {"largest_footprint_bytes", spectrum},
                                     {"limits", "the far patterns' pages lie within this footprint"}});
    j["limited_families"] = lim;
    j["note"] = "another process held " + std::to_string(static_cast<long long>((total - free) / (1 << 20))) +
                " MiB of the device's memory when the run started: the whole-memory experiments were sized to the rest";
  }
  m["memory"] = j;
}

// What memhier-bench saw of the device while it measured (bench/cli/conditions.hpp): contended,
// throttled, their evidence, and the per-family looks; a refinement round's verdict counts too.
// Nothing for archives written before memhier-bench recorded conditions.
void measurement_conditions(const Dataset& data, nlohmann::json& m) {
  const BenchRun& plan = data.runs().front();
  if (!plan.context.count("nvml")) return;
  nlohmann::json j;
  j["nvml"] = plan.context_or("nvml");
  for (const char* k : {"gpu_uuid", "gpu_serial", "ecc_mode", "mig_mode", "persistence_mode"})
    if (!plan.context_or(k).empty()) j[k] = plan.context_or(k);
  std::string contended = plan.context_or("measurement_contended"), throttled = plan.context_or("measurement_throttled");
  std::vector<std::string> evidence = {plan.context_or("measurement_evidence")};
  for (std::size_t r = 1; r < data.runs().size(); ++r) {
    const BenchRun& run = data.runs()[r];
    const bool c = run.context_or("measurement_contended") == "true", t = run.context_or("measurement_throttled") == "true";
    if (c) contended = "true";
    if (t) throttled = "true";
    if (c || t) evidence.push_back(run.context_or("measurement_evidence"));
  }
  j["contended"] = plan.context.count("measurement_contended") ? tri(contended) : nlohmann::json();
  j["throttled"] = plan.context.count("measurement_throttled") ? tri(throttled) : nlohmann::json();
  j["evidence"] = merge_evidence(evidence);
  if (!plan.context_or("measurement_conditions").empty()) {
    try {
      j["looks"] = nlohmann::json::parse(plan.context_or("measurement_conditions"));
    } catch (const std::exception&) {
      j["looks"] = nullptr;
    }
  }
  m["conditions"] = j;
}

}  // namespace

void infer_measurement(InferContext& ctx, nlohmann::json& m) {
  measurement_conditions(ctx.data, m);
  measurement_memory(ctx.data, m);
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
  if (!ctx.data.warnings().empty()) m["input_warnings"] = ctx.data.warnings();
}

}  // namespace memhier::analysis
