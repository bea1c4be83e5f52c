#include "fake_device.hpp"

#include <algorithm>
#include <list>
#include <map>
#include <unordered_map>

#include "analysis/report/topology.hpp"
#include "common/bench_name.hpp"

namespace memhier::test {

std::uint64_t FakeCache::size() const {
  std::uint64_t w = 0;
  for (int x : ways) w += x;
  return w * line;
}

namespace {
// One set-associative cache; LRU order per set (front = most recent), or weighted random victims.
struct CacheSim {
  const FakeCache& c;
  std::mt19937 rng;
  std::vector<std::vector<std::int64_t>> slots;  // per set, per way: line or -1
  std::vector<std::list<std::int64_t>> lru;
  explicit CacheSim(const FakeCache& cc, std::uint32_t seed) : c(cc), rng(seed) {
    for (int w : c.ways) {
      slots.emplace_back(w, -1);
      lru.emplace_back();
    }
  }
  bool access(std::uint64_t line) {
    const int s = c.set_of(line);
    auto& sl = slots[s];
    auto it = std::find(sl.begin(), sl.end(), static_cast<std::int64_t>(line));
    if (c.way_prob.empty()) {
      auto& l = lru[s];
      auto f = std::find(l.begin(), l.end(), static_cast<std::int64_t>(line));
      if (f != l.end()) {
        l.erase(f);
        l.push_front(line);
        return true;
      }
      l.push_front(line);
      if (l.size() > sl.size()) l.pop_back();
      return false;
    }
    if (it != sl.end()) return true;
    auto empty = std::find(sl.begin(), sl.end(), -1);
    if (empty != sl.end()) {
      *empty = line;
      return false;
    }
    std::discrete_distribution<int> d(c.way_prob.begin(), c.way_prob.end());
    sl[d(rng)] = line;
    return false;
  }
};

struct TlbSim {
  const FakeTlb& t;
  std::list<std::uint64_t> l1;
  std::vector<std::list<std::uint64_t>> l2;
  explicit TlbSim(const FakeTlb& tt) : t(tt), l2(tt.l2_ways.size()) {}
  static bool touch(std::list<std::uint64_t>& l, std::uint64_t p, std::size_t cap) {
    auto f = std::find(l.begin(), l.end(), p);
    const bool hit = f != l.end();
    if (hit) l.erase(f);
    l.push_front(p);
    if (l.size() > cap) l.pop_back();
    return hit;
  }
  double access(std::uint64_t addr) {
    const std::uint64_t p = addr / t.page;
    if (touch(l1, p, t.l1_entries)) return t.hit;
    const int s = t.l2_set_of(p);
    if (touch(l2[s], p, t.l2_ways[s])) return t.l1_miss;
    return t.l2_miss;
  }
};

BenchEntry make_entry(const BenchName& n, double lat, std::uint64_t acc) {
  BenchEntry e;
  e.name = n.str() + "/iterations:1/manual_time";
  e.run_name = e.name;
  e.params = *BenchName::parse(e.run_name);
  e.iterations = 1;
  e.counters["latency_cycles"] = lat;
  e.counters["accesses"] = static_cast<double>(acc);
  return e;
}

Trace make_trace(const std::string& name, const std::string& mode, const std::vector<std::uint32_t>& idx,
                 const std::vector<std::uint32_t>& lat) {
  Trace t;
  t.benchmark = name;
  if (mode == "fine") {
    t.kind = Trace::Kind::fine;
    const std::size_t n = std::min<std::size_t>(idx.size(), 4096);
    t.index.assign(idx.begin(), idx.begin() + n);
    t.latency.assign(lat.begin(), lat.begin() + n);
  } else {
    t.kind = Trace::Kind::histogram;
    t.hist.bin_width = 4;
    std::uint32_t mx = 0;
    for (auto l : lat) mx = std::max(mx, l);
    t.hist.counts.assign(mx / 4 + 1, 0);
    for (auto l : lat) ++t.hist.counts[l / 4];
  }
  return t;
}
}  // namespace

void FakeDevice::chase(const std::string& mode, std::uint64_t bytes, std::uint64_t stride, std::uint64_t iters,
                       bool warm) {
  const std::uint64_t chain = (bytes + stride - 1) / stride;
  if (iters == 0) iters = chain;
  CacheSim sim(cache, seed++);
  if (warm)
    for (std::uint64_t k = 0; k < chain; ++k) sim.access(k * stride / cache.line);
  std::vector<std::uint32_t> idx, lat;
  double sum = 0;
  for (std::uint64_t k = 0; k < iters; ++k) {
    const std::uint64_t e = (k % chain) * stride;
    const double l = sim.access(e / cache.line) ? cache.hit : cache.miss;
    idx.push_back(static_cast<std::uint32_t>(e / 4));
    lat.push_back(static_cast<std::uint32_t>(l));
    sum += l;
  }
  BenchName n("pchase");
  n.add("path", path).add("mode", mode).add("bytes", static_cast<std::int64_t>(bytes));
  n.add("stride", static_cast<std::int64_t>(stride)).add("iters", static_cast<std::int64_t>(iters));
  n.add("warm", warm ? 1 : 0).add("carveout", 0);
  entries_.push_back(make_entry(n, sum / iters, iters));
  if (mode != "classic") traces_.push_back({n.str(), make_trace(n.str(), mode, idx, lat)});
}

// A whole-memory tlb run (bench/families/tlb.cpp) of one pass per cycle; its pages never coalesce,
// so `alloc` (malloc or vmm_gap) only names it.
void FakeDevice::tlb_chase(std::uint64_t bytes, std::uint64_t stride, const std::string& alloc) {
  const std::uint64_t chain = bytes / stride;
  TlbSim sim(tlb);
  for (std::uint64_t k = 0; k < chain; ++k) sim.access(k * stride);
  std::vector<std::uint32_t> idx, lat;
  double sum = 0;
  const std::uint64_t iters = chain * ((4096 + chain - 1) / chain);  // whole passes, >= 4096 accesses
  for (std::uint64_t k = 0; k < iters; ++k) {
    const double l = sim.access(k % chain * stride);
    lat.push_back(static_cast<std::uint32_t>(l));
    sum += l;
  }
  BenchName n("tlb");
  n.add("alloc", alloc).add("bytes", static_cast<std::int64_t>(bytes)).add("stride", static_cast<std::int64_t>(stride));
  entries_.push_back(make_entry(n, sum / static_cast<double>(iters), iters));
  entries_.back().counters["latency_ci95_cycles"] = 0;  // whole passes alike: the batch means agree
  traces_.push_back({n.str(), make_trace(n.str(), "count", idx, lat)});
}

void FakeDevice::plan(std::uint64_t step, std::uint64_t hi) {
  for (std::uint64_t b = step; b <= hi; b += step) chase("count", b, 32, std::min<std::uint64_t>(b / 32, 1u << 16), true);
  chase("fine", hi, 4, 4096, true);
}

void FakeDevice::tlb_plan() {
  for (const char* alloc : {"malloc", "vmm_gap"})
    for (std::uint64_t s = 64ull << 10; s <= (alloc[0] == 'm' ? 32ull << 20 : 8ull << 20); s *= 2)
      for (std::uint64_t m = 2; m <= 4096; m *= 2) {
        if (m * s > (8ull << 30)) break;
        tlb_chase(m * s, s, alloc);
        if (m < 4096 && m * s + m * s / 2 <= (8ull << 30)) tlb_chase(m * s + m * s / 2, s, alloc);
      }
}

void FakeDevice::run(const analysis::Requests& r) {
  const auto j = r.to_json();
  for (auto& p : j["pchase"])
    chase(p["mode"], p["bytes"], p["stride"], p["iters"], p["warm"].get<int>() != 0);
  for (auto& t : j["tlb"]) tlb_chase(t["bytes"], t["stride"], t.value("alloc", "malloc"));
}

analysis::Dataset FakeDevice::dataset() const {
  BenchRun run;
  run.path = "fake.json";
  run.context = {{"memhier_version", "test"}, {"device_backend", "fake"}, {"gpu_name", "fake"}};
  run.entries = entries_;
  auto d = analysis::Dataset::from_runs({run});
  for (auto& [n, t] : traces_) d.add_trace(n, t);
  return d;
}

nlohmann::json FakeDevice::characterize(int rounds, int* used) {
  nlohmann::json topo;
  for (int i = 0; i < rounds; ++i) {
    analysis::Requests req;
    auto d = dataset();
    topo = analysis::build_topology(d, req);
    if (used) *used = i;
    if (req.empty()) break;
    run(req);
  }
  return topo;
}

}  // namespace memhier::test
