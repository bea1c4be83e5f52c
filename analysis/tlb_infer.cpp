#include "analysis/tlb_infer.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace memhier::analysis {

namespace {

double above(const std::vector<WeightedValue>& s, double b, double* total) {
  double w = 0, t = 0;
  for (auto& x : s) {
    t += x.weight;
    if (x.value > b) w += x.weight;
  }
  *total = t;
  return w;
}

}  // namespace

void infer_tlbs(InferContext& ctx, nlohmann::json& caches) {
  const char* names[] = {"l1_tlb", "l2_tlb"};
  std::vector<const Chase*> tl;
  std::vector<WeightedValue> all;
  double res = 1;
  for (const auto& c : ctx.data.chases())
    if (c.family == "tlb") {
      const Trace* t = ctx.data.trace(c);
      if (!t) continue;
      tl.push_back(&c);
      auto s = samples_of(*t);
      all.insert(all.end(), s.begin(), s.end());
      res = std::max<double>(res, t->kind == Trace::Kind::fine ? 1 : t->hist.bin_width);
    }
  auto null_all = [&](nlohmann::json& c, const std::string& why) {
    for (auto k : {"size_bytes", "line_bytes", "page_bytes", "entries", "sets", "ways", "replacement", "index_bits",
                   "hit_latency_cycles", "miss_penalty_cycles"})
      set_null(c, k, why);
  };
  if (tl.empty()) {
    for (auto n : names) null_all(caches[n], "tlb family not measured (or its traces are missing)");
    return;
  }
  const auto L = cluster_levels(all, res);
  for (std::size_t lvl = 0; lvl < 2; ++lvl) {
    nlohmann::json& cache = caches[names[lvl]];
    if (lvl + 1 >= L.size()) {
      null_all(cache, "the tlb sweep shows no latency level for this TLB's misses");
      continue;
    }
    const double boundary = level_boundary(L, lvl);
    Evidence ev;
    set_null(cache, "hit_latency_cycles", "a TLB hit has no latency of its own (part of every cache access)");
    set_value(cache, "miss_penalty_cycles", std::round((L[lvl + 1].mean - L[lvl].mean) * 10) / 10, 0.85, ev,
              "latency level of this TLB's misses minus the level below");
    // Reach per stride.
    std::map<std::uint64_t, std::map<std::uint64_t, std::vector<WeightedValue>>> by;
    for (auto* c : tl) {
      auto s = samples_of(*ctx.data.trace(*c));
      auto& v = by[c->stride][c->bytes];
      v.insert(v.end(), s.begin(), s.end());
      ev.add(c->name());
    }
    std::map<std::uint64_t, SizeResult> reach;
    for (auto& [stride, sizes] : by) {
      std::vector<std::uint64_t> sz;
      std::vector<double> miss, n;
      std::vector<std::vector<double>> vec;
      for (auto& [b, s] : sizes) {
        double t = 0;
        const double w = above(s, boundary, &t);
        sz.push_back(b);
        miss.push_back(t > 0 ? w / t : 0);
        n.push_back(t);
        vec.push_back({t > 0 ? w / t : 0});
      }
      reach[stride] = find_size(sz, miss, vec, n, stride);
    }
    // Page: smallest stride from which reach/stride stays constant.
    std::vector<std::pair<std::uint64_t, double>> ratio;  // stride, lower bound of reach/stride
    for (auto& [s, r] : reach)
      if (r.state == SizeResult::State::exact || r.state == SizeResult::State::bracket)
        ratio.push_back({s, static_cast<double>(r.lo) / s});
    std::uint64_t page = 0;
    if (ratio.size() >= 2) {
      const double e = ratio.back().second;
      for (std::size_t i = ratio.size(); i-- > 0;) {
        if (std::fabs(ratio[i].second - e) > 0.5) break;
        page = ratio[i].first;
      }
      if (page == ratio.front().first) page = 0;  // constant over every stride: page <= smallest stride
    }
    if (page == 0) {
      set_null(cache, "page_bytes",
               ratio.size() < 2 ? "fewer than two strides with a decided reach"
                                : "reach in strides is the same for every stride measured: the page is not above the "
                                  "smallest stride",
               ev);
      for (auto k : {"line_bytes", "size_bytes", "entries", "sets", "ways", "index_bits", "replacement"})
        set_null(cache, k, "needs the page size first", ev);
      continue;
    }
    set_value(cache, "page_bytes", page, 0.9, ev, "smallest stride from which the reach in strides is constant");
    set_value(cache, "line_bytes", page, 0.9, ev, "a TLB entry maps one page");
    const SizeResult& r = reach[page];
    if (r.state != SizeResult::State::exact) {
      set_null(cache, "entries", "reach at the page stride is between " + std::to_string(r.lo / page) + " and " +
                                     std::to_string(r.hi / page) + " pages (sizes in between requested)", ev);
      set_null(cache, "size_bytes", "needs the entries first", ev);
      for (std::uint64_t m = r.lo / page + 1; m < r.hi / page; ++m) {
        if ((r.hi - r.lo) / page > 16 && (m - r.lo / page) % std::max<std::uint64_t>(1, (r.hi - r.lo) / page / 8)) continue;
        ctx.requests.add(TlbWish{m * page, page, std::string(names[lvl]) + " entries"});
      }
      for (auto k : {"sets", "ways", "index_bits", "replacement"}) set_null(cache, k, "needs the entries first", ev);
      continue;
    }
    const std::uint64_t entries = r.lo / page;
    set_value(cache, "entries", entries, 0.9, r.evidence.names.empty() ? ev : r.evidence,
              "largest footprint without misses at the page stride, in pages");
    set_value(cache, "size_bytes", entries * page, 0.9, ev, "entries x page (000 Table 5 convention)");
    // Stage 2 from miss counts (each tlb run is one warm pass).
    std::vector<double> counts;
    std::uint64_t have = 0;
    for (std::uint64_t j = 1;; ++j) {
      auto it = by[page].find(r.lo + j * page);
      if (it == by[page].end()) break;
      double t = 0;
      const double w = above(it->second, boundary, &t);
      counts.push_back(t > 0 ? w * static_cast<double>(entries + j) / t : 0);
      have = j;
    }
    SetsResult sr = sets_from_counts(counts, entries);
    if (!sr.complete) {
      std::uint64_t target = 16;
      while (target <= have) target *= 2;
      target = std::min<std::uint64_t>(target, std::max<std::uint64_t>(entries, 1));
      for (std::uint64_t j = have + 1; j <= target; ++j)
        ctx.requests.add(TlbWish{r.lo + j * page, page, std::string(names[lvl]) + " stage 2"});
      for (auto k : {"sets", "ways", "index_bits", "replacement"})
        set_null(cache, k, have == 0 ? "stage-2 runs (N = C + j*page) not measured yet (requested)"
                                     : "stage 2 up to j=" + std::to_string(have) + " has not opened every set", ev);
      continue;
    }
    std::uint64_t tw = 0;
    for (int w : sr.ways) tw += w;
    const bool ok = tw == entries;
    set_value(cache, "sets", sr.ways.size(), ok ? 0.9 : 0.5, ev,
              "miss-count jumps of N = C + j*page (one per newly overflowed set)");
    set_value(cache, "ways", sr.ways, ok ? 0.9 : 0.5, ev,
              ok ? "per set, in order of opening" : "ways do not add up to the entries: not LRU, or noisy");
    set_value(cache, "replacement", ok ? "lru_or_fifo" : "non-lru", ok ? 0.7 : 0.5, ev,
              ok ? "every entry of an overflowed set misses each pass" : "miss counts not explained by LRU sets");
    if (sr.ways.size() == 1)
      set_value(cache, "index_bits", nlohmann::json::array(), 0.8, ev, "fully associative");
    else
      set_null(cache, "index_bits", "TLB set membership is not observable from miss counts", ev);
  }
}

}  // namespace memhier::analysis
