#include "analysis/core/refinement.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>
#include <vector>

namespace memhier::analysis {

int wish_priority(const std::string& why) {
  auto has = [&](const char* s) { return why.find(s) != std::string::npos; };
  if (has("completing")) return 0;  // the rest of a series a round's budget cut (line_sector.cpp)
  if (has("stage 2 (sets)") || has("index bits") || has("prefetch") || has("after the sequences")) return 3;
  if (has("50 %") || has("probe") || has("sector or line") || has("entries") || has("per-way")) return 2;
  if (has("fill granularity") || has("edge shift") || has("doubling") || has("halving")) return 0;
  return 1;
}

namespace {

constexpr std::uint64_t kTlbLines = 4096, kTlbTimed = 4096;  // the tlb family's defaults (bench/wide/wide_family.hpp)

// A chase by its parameters: (family, path, mode, bytes, stride, iters, warm, carveout).
using Key = std::tuple<std::string, std::string, std::string, std::uint64_t, std::uint64_t, std::uint64_t, int, int>;

Key key_of(const ChaseWish& w) {
  const std::uint64_t chain = w.stride ? (w.bytes + w.stride - 1) / w.stride : 0;
  return {"pchase", w.path, w.mode, w.bytes, w.stride, w.iters ? w.iters : chain, w.warm ? 1 : 0, w.carveout};
}
// A tlb chase: (alloc, lines and seed, bytes, stride, recorded accesses), the bench defaults filled in.
Key tlb_key(const std::string& alloc, std::uint64_t lines, std::uint64_t seed, std::uint64_t bytes,
            std::uint64_t stride, std::uint64_t timed) {
  return {"tlb", alloc, "lines:" + std::to_string(lines ? lines : kTlbLines) + "/seed:" + std::to_string(seed), bytes,
          stride, timed ? timed : kTlbTimed, 0, -1};
}
Key key_of(const TlbWish& w) { return tlb_key(w.alloc, w.lines, 0, w.bytes, w.stride, w.timed); }

// Accesses of a tlb chase (bench/wide_family: one warm cycle of slots x passes elements, then
// whole cycles, at least `timed`): what its estimate is made of.
std::uint64_t tlb_accesses(const TlbWish& w) {
  const std::uint64_t slots = w.stride ? std::max<std::uint64_t>(1, w.bytes / w.stride) : 1;
  const std::uint64_t lines = w.lines ? w.lines : kTlbLines, timed = w.timed ? w.timed : kTlbTimed;
  const std::uint64_t cycle = std::max(slots, std::min(lines, slots * 512));
  return cycle + (timed + cycle - 1) / cycle * cycle;
}
Key key_of(const SequenceWish& w) { return {"cache_sequences", w.path, w.cache, w.capacity, w.stride, 0, 0, w.carveout}; }

// Every chase the data holds, failed ones included (a failure is not retried).
std::set<Key> measured_keys(const Dataset& data) {
  std::set<Key> k;
  for (const auto& run : data.runs())
    for (const auto& e : run.entries) {
      const BenchName& p = e.params;
      const std::string fam = p.family();
      const auto bytes = static_cast<std::uint64_t>(p.get_int_or("bytes", 0));
      const auto stride = static_cast<std::uint64_t>(p.get_int_or("stride", 0));
      if (fam == "tlb")
        k.insert(tlb_key(p.get_or("alloc", "malloc"), static_cast<std::uint64_t>(p.get_int_or("lines", 0)),
                         static_cast<std::uint64_t>(p.get_int_or("seed", 0)), bytes, stride,
                         static_cast<std::uint64_t>(p.get_int_or("timed", 0))));
      if (fam == "cache_sequences" && p.get_or("cache", "") != "")
        k.insert({"cache_sequences", p.get_or("path", ""), p.get_or("cache", ""),
                  static_cast<std::uint64_t>(p.get_int_or("capacity", 0)), stride, 0, 0,
                  static_cast<int>(p.get_int_or("carveout", -1))});
      if (fam != "pchase") continue;
      k.insert({"pchase", p.get_or("path", ""), p.get_or("mode", ""), bytes, stride,
                static_cast<std::uint64_t>(p.get_int_or("iters", 0)), static_cast<int>(p.get_int_or("warm", 1) != 0),
                static_cast<int>(p.get_int_or("carveout", -1))});
    }
  return k;
}

double seconds_of(const BenchEntry& e) {
  const double unit = e.time_unit == "s" ? 1 : e.time_unit == "ms" ? 1e-3 : e.time_unit == "us" ? 1e-6 : 1e-9;
  return e.real_time * unit;
}

// What measuring costs on this device, from the data: seconds per access of each path (the
// slowest seen: the miss level) and per benchmark beyond its accesses (refinement files: their
// wall time minus the timed accesses, over their benchmarks).
struct CostModel {
  std::map<std::string, double> per_access;
  double per_benchmark = 0.005;
  double parallel = 1;  // count chases of per-SM paths run one per SM in a launch: this many at once
  double spent = 0;  // wall seconds of the refinement rounds so far
  int rounds = 0;
  double estimate(const std::string& path, const std::string& mode, std::uint64_t accesses) const {
    auto it = per_access.find(path);
    const double pa = it != per_access.end() ? it->second : 1e-6;
    const bool batched = mode == "count" && (path == "global_ca" || path == "ldg" || path == "texture");
    return per_benchmark + pa * static_cast<double>(accesses) / (batched ? parallel : 1);
  }
};

CostModel cost_model(const Dataset& data) {
  CostModel m;
  // Half the SMs: batches are also bounded by the L2 (jobs whose arrays fit in half of it).
  m.parallel = std::max(1.0, std::atof(data.context().count("sm_count") ? data.context().at("sm_count").c_str() : "1") / 2);
  // A chase's manual time covers its warm pass and its timed accesses.
  for (const auto& c : data.chases()) {
    const double n = static_cast<double>((c.warm ? c.chain() : 0) + c.iters);
    if (!c.entry || n <= 0 || c.mode == "classic") continue;
    double& cur = m.per_access[c.path];
    cur = std::max(cur, seconds_of(*c.entry) / n);
  }
  std::vector<double> over;
  for (std::size_t r = 1; r < data.runs().size(); ++r) {
    const BenchRun& run = data.runs()[r];
    const double wall = std::atof(run.context_or("plan_wall_seconds", "0").c_str());
    double timed = 0;
    for (const auto& e : run.entries) timed += seconds_of(e) * std::max<std::int64_t>(1, e.iterations);
    m.spent += wall;
    ++m.rounds;
    if (!run.entries.empty() && wall > timed) over.push_back((wall - timed) / run.entries.size());
  }
  if (!over.empty()) {
    std::sort(over.begin(), over.end());
    m.per_benchmark = over[over.size() / 2];
  }
  return m;
}

struct Candidate {
  int priority;
  Key key;
  double seconds;
  nlohmann::json entry;
  const char* list;  // "pchase", "tlb" or "cache_sequences"
};

std::vector<Candidate> candidates(const Requests& wishes, const std::set<Key>& measured, const CostModel& cost,
                                  std::size_t* dropped) {
  std::map<Key, Candidate> c;  // sorted, duplicates merged (the most urgent wins)
  auto offer = [&](const Key& k, int priority, double seconds, nlohmann::json e, const char* list) {
    if (measured.count(k)) {
      ++*dropped;
      return;
    }
    auto it = c.find(k);
    if (it == c.end() || priority < it->second.priority) c[k] = Candidate{priority, k, seconds, std::move(e), list};
  };
  for (const auto& w : wishes.pchase) {
    const Key k = key_of(w);
    const std::uint64_t acc = (w.warm ? (w.bytes + w.stride - 1) / w.stride : 0) + std::get<5>(k);
    nlohmann::json e = {{"path", w.path}, {"mode", w.mode}, {"bytes", w.bytes}, {"stride", w.stride},
                        {"iters", w.iters}, {"warm", w.warm ? 1 : 0}, {"carveout", w.carveout}};
    if (w.max_records) e["max_records"] = w.max_records;
    offer(k, wish_priority(w.why), cost.estimate(w.path, w.mode, acc), e, "pchase");
  }
  for (const auto& w : wishes.tlb)
    offer(key_of(w), wish_priority(w.why), cost.estimate("global_cg", "count", tlb_accesses(w)), w.to_json(), "tlb");
  for (const auto& w : wishes.sequences) {
    nlohmann::json e = {{"path", w.path}, {"cache", w.cache}, {"stride", w.stride}, {"capacity", w.capacity}};
    if (w.carveout >= 0) e["carveout"] = w.carveout;
    offer(key_of(w), 2, w.seconds, e, "cache_sequences");
  }
  // Within a priority, round robin over the caches (path and carveout): every cache's first wish
  // before any cache's second, so that one cache's many wishes cannot take a round's budget alone.
  std::vector<Candidate> v;
  std::map<std::tuple<int, std::string, int>, int> nth;
  std::vector<int> order;
  for (auto& [k, x] : c) {
    v.push_back(x);
    order.push_back(nth[{x.priority, std::get<1>(k), std::get<7>(k)}]++);
  }
  std::vector<std::size_t> idx(v.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](auto a, auto b) {
    return std::tie(v[a].priority, order[a]) < std::tie(v[b].priority, order[b]);
  });
  std::vector<Candidate> out;
  for (auto i : idx) out.push_back(v[i]);
  return out;
}

}  // namespace

RefinementRound plan_round(const Dataset& data, const Requests& wishes, const RefinementBudget& b) {
  const CostModel cost = cost_model(data);
  std::size_t dropped = 0;
  const auto cand = candidates(wishes, measured_keys(data), cost, &dropped);
  RefinementRound out;
  out.requests = {{"format", "memhier-requests/1"}, {"pchase", nlohmann::json::array()}, {"tlb", nlohmann::json::array()}};
  const double total_left = std::max(0.0, b.total_seconds - cost.spent);
  const bool rounds_left = cost.rounds < b.max_rounds;
  double est = 0;
  std::size_t taken = 0, deferred = 0;
  // One pool within its own chases and seconds per round (and the total). The first chase of a
  // pool is taken while rounds and seconds are left, even when its estimate alone exceeds the
  // round's seconds: a round that cannot hold one chase would decide nothing.
  auto take = [&](bool tlb, std::size_t max_n, double max_s) {
    const double left = std::min(max_s, total_left - est);
    double pool_est = 0;
    std::size_t n = 0;
    for (const auto& c : cand) {
      if ((std::string(c.list) == "tlb") != tlb) continue;
      if (!rounds_left || left <= 0 || n >= max_n || (n > 0 && pool_est + c.seconds > left)) {
        ++deferred;
        continue;
      }
      pool_est += c.seconds;
      ++n;
      out.requests[c.list].push_back(c.entry);
    }
    est += pool_est;
    taken += n;
    return n;
  };
  // TLB chases first, in their own share: the translation map converges in a few rounds of a few
  // ms per chase, and the caches' many wishes cannot starve it (nor it them).
  const std::size_t tlb_taken = take(true, b.tlb_round_benchmarks, b.tlb_round_seconds);
  take(false, b.round_benchmarks, b.round_seconds);
  out.summary = {{"refinement_rounds_done", cost.rounds},
                 {"measured_seconds_so_far", std::round(cost.spent * 1000) / 1000},
                 {"next_round_chases", taken},
                 {"next_round_tlb_chases", tlb_taken},
                 {"next_round_estimated_seconds", std::round(est * 1000) / 1000},
                 {"deferred_chases", deferred},
                 {"dropped_already_measured", dropped},
                 {"seconds_per_benchmark_overhead", std::round(cost.per_benchmark * 1e4) / 1e4},
                 {"budget",
                  {{"round_benchmarks", b.round_benchmarks},
                   {"round_seconds", b.round_seconds},
                   {"total_seconds", b.total_seconds},
                   {"tlb_round_benchmarks", b.tlb_round_benchmarks},
                   {"tlb_round_seconds", b.tlb_round_seconds},
                   {"max_rounds", b.max_rounds}}}};
  // No round can follow this one (the budget's rounds): the caller may skip the analysis that would
  // only say so, and analyze the last round with everything else (scripts/characterize.sh).
  out.requests["last_round"] = cost.rounds + 1 >= b.max_rounds;
  if (!rounds_left && !cand.empty())
    out.summary["stopped"] = "the budget's " + std::to_string(b.max_rounds) + " refinement rounds are spent";
  else if (deferred > 0 && taken == 0)
    out.summary["stopped"] = "no estimated seconds left in the budget";
  return out;
}

}  // namespace memhier::analysis
