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
  auto L = cluster_levels(all, res);
  refine_level_means(L, ctx.data, tl);
  nlohmann::json lv = nlohmann::json::array();
  for (auto& l : L)
    lv.push_back({{"mean_cycles", std::round(l.mean * 10) / 10}, {"min", l.lo}, {"max", l.hi}, {"accesses", l.weight}});
  for (std::size_t lvl = 0; lvl < 2; ++lvl) {
    nlohmann::json& cache = caches[names[lvl]];
    cache["latency_levels_tlb"] = lv;
    if (lvl + 1 >= L.size()) {
      // Report what the sweep covered, not a guess: its reach and the spread of its per-run means.
      std::uint64_t reach = 0, smin = 0, smax = 0;
      double mlo = 1e300, mhi = 0;
      Evidence nev;
      for (auto* c : tl) {
        reach = std::max(reach, c->bytes);
        smin = smin ? std::min(smin, c->stride) : c->stride;
        smax = std::max(smax, c->stride);
        if (c->entry && c->entry->has("latency_cycles")) {
          mlo = std::min(mlo, c->entry->counter("latency_cycles"));
          mhi = std::max(mhi, c->entry->counter("latency_cycles"));
        }
        if (c->bytes == reach && nev.names.size() < 4) nev.add(c->name());
      }
      auto cyc = [](double v) { return std::to_string(static_cast<long long>(std::lround(v))); };
      const std::string why =
          "no miss level within the measured reach of " + std::to_string(reach) + " bytes (" +
          std::to_string(reach >> 20) + " MiB; strides " + std::to_string(smin) + "-" + std::to_string(smax) +
          " bytes): the tlb sweep shows " + std::to_string(L.size()) + " latency level" + (L.size() == 1 ? "" : "s") +
          (lvl == 0 ? "" : ", none for a second TLB's misses") + " (" + cyc(L.back().lo) + "-" + cyc(L.back().hi) +
          " cycles); per-run mean latencies " + (mhi > 0 ? cyc(mlo) + "-" + cyc(mhi) : std::string("?")) +
          " cycles, steps smaller than one level's spread are not a TLB level";
      null_all(cache, why);
      set_null(cache, "present", why, nev);
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
      // Narrow every bracket to one stride (the page rule below compares exact reaches): 31 sizes
      // in between per round (a TLB run is one short pass, so a wide round costs little).
      const SizeResult& r = reach[stride];
      if (r.state == SizeResult::State::bracket) {
        const std::uint64_t gap = (r.hi - r.lo) / stride;
        for (std::uint64_t k = 1; k < 32 && k < gap; ++k) {
          const std::uint64_t m = r.lo / stride + (gap <= 32 ? k : (gap * k + 16) / 32);
          if (m > r.lo / stride && m < r.hi / stride)
            ctx.requests.add(TlbWish{m * stride, stride, std::string(names[lvl]) + " reach"});
        }
      } else if (r.state == SizeResult::State::below && r.hi / 2 >= stride) {
        ctx.requests.add(TlbWish{r.hi / 2 / stride * stride, stride, std::string(names[lvl]) + " reach: halving"});
      } else if (r.state == SizeResult::State::above) {
        ctx.requests.add(TlbWish{2 * r.lo, stride, std::string(names[lvl]) + " reach: doubling"});
      }
    }
    // Page (000 §4.4): below the page, a footprint of m strides touches m*stride/page pages, so the
    // reach in bytes is the same at every stride; above it, each access takes an entry of its own
    // and the reach in bytes grows with the stride. The page is the largest stride whose reach
    // bracket [lo, hi) in bytes still overlaps the smallest stride's. Strides whose reach was not
    // bracketed (no misses up to the device's tlb limit) do not take part.
    std::vector<std::pair<std::uint64_t, SizeResult>> decided;
    for (auto& [s, r] : reach)
      if (r.state == SizeResult::State::exact || r.state == SizeResult::State::bracket) decided.push_back({s, r});
    std::uint64_t page = 0;
    bool grows = false, narrowing = false;
    if (decided.size() >= 2) {
      const std::uint64_t r0 = decided.front().second.lo;
      for (auto& [s, r] : decided) {
        if (r.state != SizeResult::State::exact) {
          narrowing = true;
          break;
        }
        if (r.lo != r0) {
          grows = true;
          break;
        }
        page = s;
      }
      if (!grows) page = 0;  // not decided yet, or the page is above the largest stride measured
    }
    if (page == 0) {
      set_null(cache, "page_bytes",
               decided.size() < 2 ? "fewer than two strides with a decided reach (within the device's tlb limit)"
               : narrowing        ? "the reach at some strides is still a bracket (sizes in between requested)"
                                  : "the reach in bytes is the same at every stride measured: the page is above the "
                                    "largest stride",
               ev);
      for (auto k : {"line_bytes", "size_bytes", "entries", "sets", "ways", "index_bits", "replacement"})
        set_null(cache, k, "needs the page size first", ev);
      continue;
    }
    set_value(cache, "page_bytes", page, 0.9, ev, "largest stride with the same reach in bytes as the smallest (above it every access takes its own entry)");
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
