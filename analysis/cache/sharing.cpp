// Cache sharing and caches per SM. docs/methodology.md, section requests_sharing_partitions.
#include "analysis/cache/sharing.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "analysis/core/field.hpp"

namespace memhier::analysis {
namespace {

using json = nlohmann::json;

constexpr double kHitRate = 0.01;  // a reference re-read with at most this miss rate hits

// The cache an evictor path stands for (the constant evictor streams the constant caches).
const std::vector<std::string>& evictor_caches(const std::string& evictor) {
  static const std::map<std::string, std::vector<std::string>> m = {
      {"l1", {"l1"}}, {"texture", {"texture"}}, {"readonly", {"readonly"}}, {"constant", {"constant_l1", "constant_l15"}}};
  static const std::vector<std::string> none;
  auto it = m.find(evictor);
  return it == m.end() ? none : it->second;
}

bool is_control(const std::string& victim, const std::string& evictor) {
  const auto& c = evictor_caches(evictor);
  return std::find(c.begin(), c.end(), victim) != c.end();
}

}  // namespace

Eviction judge(const ReRead& ref, const ReRead& after) {
  const double dm = after.miss_rate - ref.miss_rate;
  const double rl = ref.latency_cycles > 0 ? after.latency_cycles / ref.latency_cycles : 1;
  if (dm >= 0.5 || rl >= 1.5) return Eviction::evicted;
  if (dm < 0.05 && rl < 1.1) return Eviction::kept;
  return Eviction::unclear;
}

namespace {

// Ranks footprints: one whose control evicts qualifies (the data were in the cache, or the stream
// could not have raised their latency); among those, one whose reference re-read also hits the
// first level (<= 1 % misses) ranks first — a constant L1.5 victim never does (its hits lie above
// the constant L1's miss threshold) — then the larger footprint.
bool better(const SharingRun* r, const SharingRun* best) {
  const bool h = r->by_evictor.at("none").miss_rate <= kHitRate;
  const bool hb = best->by_evictor.at("none").miss_rate <= kHitRate;
  return h != hb ? h : r->bytes > best->bytes;
}

// The run that decides a victim: the best footprint whose control evicts.
const SharingRun* deciding_run(const std::vector<const SharingRun*>& rs, std::string* reason) {
  const SharingRun* best = nullptr;
  for (const SharingRun* r : rs) {
    auto ref = r->by_evictor.find("none");
    if (ref == r->by_evictor.end()) continue;
    bool control = false;
    for (const auto& [e, rr] : r->by_evictor)
      if (is_control(r->victim, e)) control = judge(ref->second, rr) == Eviction::evicted;
    if (control && (!best || better(r, best))) best = r;
  }
  if (!best) *reason = "no footprint whose control (the cache's own path as evictor) evicts it";
  return best;
}

const SharingRun* largest_run(const std::vector<const SharingRun*>& rs) {
  const SharingRun* best = nullptr;
  for (const SharingRun* r : rs)
    if (r->by_evictor.count("none") && (!best || r->bytes > best->bytes)) best = r;
  return best;
}

}  // namespace

std::vector<SharingVerdict> judge_sharing(const std::vector<SharingRun>& runs) {
  std::map<std::string, std::vector<const SharingRun*>> by_victim;
  for (const auto& r : runs) by_victim[r.victim].push_back(&r);
  std::vector<SharingVerdict> out;
  for (const auto& [victim, rs] : by_victim) {
    SharingVerdict v;
    v.victim = victim;
    const SharingRun* r = deciding_run(rs, &v.reason);
    if (!r && (r = largest_run(rs))) v.control_failed = true;
    if (r) {
      v.benchmark = r->benchmark;
      const ReRead& ref = r->by_evictor.at("none");
      for (const auto& [e, rr] : r->by_evictor) {
        if (e == "none" || is_control(victim, e)) continue;
        Eviction x = judge(ref, rr);
        if (v.control_failed && x == Eviction::kept) x = Eviction::unclear;
        for (const auto& c : evictor_caches(e))
          (x == Eviction::evicted ? v.evicted_by : x == Eviction::kept ? v.kept_by : v.unclear).push_back(c);
      }
      if (!v.control_failed || !v.evicted_by.empty()) v.reason.clear();
    }
    out.push_back(v);
  }
  return out;
}

namespace {

// Warps sharing warp 0's slice are {w : w mod s == 0} for s = warps / |sharing|.
bool periodic_sharing(const std::vector<int>& sharing, int warps, int* slices) {
  if (sharing.empty() || warps % static_cast<int>(sharing.size()) != 0) return false;
  const int s = warps / static_cast<int>(sharing.size());
  for (int w = 0; w < warps; ++w) {
    const bool in = std::find(sharing.begin(), sharing.end(), w) != sharing.end();
    if (in != (w % s == 0)) return false;
  }
  *slices = s;
  return true;
}

SliceVerdict judge_one(const PerSmRun& r) {
  SliceVerdict v;
  v.cache = r.cache;
  v.benchmark = r.benchmark;
  v.sharing_warps.push_back(0);
  for (const auto& [w, rr] : r.by_warp) {
    const Eviction x = judge(r.reference, rr);
    if (x == Eviction::evicted) v.sharing_warps.push_back(w);
    if (x == Eviction::unclear) v.unclear_warps.push_back(w);
  }
  if (!v.unclear_warps.empty()) {
    v.reason = std::to_string(v.unclear_warps.size()) + " warps neither clearly evict nor clearly keep warp 0's data";
    return v;
  }
  // Warp 0 alone: no other warp's stream evicted its data. A period needs a second member to be
  // seen; "every N-th warp" of N warps would be a confident wrong value (the H100's L1 read 32
  // slices at confidence 0.8 this way, with all 32 warps in one block on one SM): the experiment
  // did not show where the other warps' lines go.
  if (v.sharing_warps.size() == 1 && r.warps > 1) {
    v.reason = "no other warp's stream evicted warp 0's data (" + std::to_string(r.warps - 1) +
               " warps of one block): one slice per warp, or streams that never reach warp 0's lines; "
               "the experiment cannot tell them apart";
    return v;
  }
  int s = 0;
  v.periodic = periodic_sharing(v.sharing_warps, r.warps, &s);
  if (v.periodic)
    v.slices = s;
  else
    v.reason = "the warps sharing warp 0's slice are not every s-th warp; listed in slice_warps";
  return v;
}

}  // namespace

SliceVerdict judge_slices(const std::vector<PerSmRun>& runs) {
  const PerSmRun* best = nullptr;
  for (const auto& r : runs)
    if (r.reference.miss_rate <= kHitRate && judge(r.reference, r.control) == Eviction::evicted &&
        (!best || r.bytes > best->bytes))
      best = &r;
  if (!best) {
    SliceVerdict v;
    if (!runs.empty()) v.cache = runs.front().cache;
    v.reason = "no footprint whose reference re-read hits and whose control (a stream from the same warp) evicts it";
    return v;
  }
  return judge_one(*best);
}

namespace {

ReRead reread(const BenchEntry& e, const std::string& prefix) {
  return {e.counter(prefix + "_miss_rate", NAN), e.counter(prefix + "_latency_cycles", NAN)};
}

std::vector<SharingRun> sharing_runs(const Dataset& data) {
  std::vector<SharingRun> out;
  for (const BenchEntry* e : data.family("cache_sharing")) {
    SharingRun r;
    r.benchmark = e->params.str();
    r.victim = e->params.get_or("victim", "");
    r.bytes = static_cast<double>(e->params.get_int_or("bytes", 0));
    for (const char* ev : {"none", "l1", "texture", "readonly", "constant"})
      if (e->has(std::string(ev) + "_miss_rate")) r.by_evictor[ev] = reread(*e, ev);
    out.push_back(r);
  }
  return out;
}

std::map<std::string, std::vector<PerSmRun>> per_sm_runs(const Dataset& data) {
  std::map<std::string, std::vector<PerSmRun>> out;
  for (const BenchEntry* e : data.family("caches_per_sm")) {
    PerSmRun r;
    r.benchmark = e->params.str();
    r.cache = e->params.get_or("cache", "");
    r.bytes = static_cast<double>(e->params.get_int_or("bytes", 0));
    r.reference = reread(*e, "reference");
    r.control = reread(*e, "control");
    r.warps = static_cast<int>(e->counter("warps", 0));
    for (int w = 1; w < r.warps; ++w)
      if (e->has("w" + std::to_string(w) + "_miss_rate")) r.by_warp[w] = reread(*e, "w" + std::to_string(w));
    out[r.cache].push_back(r);
  }
  return out;
}

// shared_with of every victim, made symmetric: X and Y share when one's stream evicted the other's
// data and the reverse test (if any) did not find it kept.
void put_shared_with(const std::vector<SharingVerdict>& vs, json& caches) {
  std::map<std::string, std::set<std::string>> evicted, kept;
  for (const auto& v : vs) {
    for (const auto& c : v.evicted_by) evicted[v.victim].insert(c);
    for (const auto& c : v.kept_by) kept[v.victim].insert(c);
  }
  for (const auto& v : vs) {
    if (!caches.contains(v.victim)) continue;
    json& c = caches[v.victim];
    if (!v.reason.empty()) {
      set_null(c, "shared_with", v.reason);
      continue;
    }
    json list = json::array();
    std::string note = v.control_failed ? "evicted by a stream through their paths (the control did not evict: "
                                          "only evictions count, the other caches are unclear)"
                                        : "evicted by a 4x stream through their paths";
    for (const auto& other : evicted[v.victim])
      if (!kept[other].count(v.victim)) list.push_back(other);
      else note += "; " + other + "'s stream evicts it but its own stream keeps " + other + "'s data: not listed (one-way)";
    for (const auto& [other, set] : evicted)
      if (set.count(v.victim) && !evicted[v.victim].count(other) && !kept[v.victim].count(other)) list.push_back(other);
    Evidence ev;
    ev.add(v.benchmark);
    set_value(c, "shared_with", list, v.unclear.empty() && !v.control_failed ? 0.8 : 0.5, ev, note);
    if (!v.unclear.empty()) c["shared_with_unclear"] = v.unclear;
  }
}

void put_slices(const std::map<std::string, std::vector<PerSmRun>>& runs, json& caches) {
  for (const auto& [cache, rs] : runs) {
    if (!caches.contains(cache)) continue;
    const SliceVerdict v = judge_slices(rs);
    json& c = caches[cache];
    Evidence ev;
    if (!v.benchmark.empty()) ev.add(v.benchmark);
    c["slice_warps"] = v.sharing_warps;
    if (v.slices > 0)
      set_value(c, "slices_per_sm", v.slices, 0.8, ev,
                "warps whose stream evicts warp 0's data: every " + std::to_string(v.slices) +
                    "-th warp (slice of warp w = w mod slices)");
    else
      set_null(c, "slices_per_sm", v.reason, ev);
  }
}

// The L2 is one device-wide level; no per-SM cache is part of it when its hit latency is its own.
void put_l2(json& caches) {
  if (!caches.contains("l2") || !has_value(caches["l2"], "hit_latency_cycles")) return;
  const double l2 = caches["l2"]["hit_latency_cycles"].get<double>();
  for (const char* n : {"l1", "texture", "readonly", "constant_l1", "constant_l15"})
    if (caches.contains(n) && has_value(caches[n], "hit_latency_cycles") &&
        std::fabs(caches[n]["hit_latency_cycles"].get<double>() - l2) < 0.1 * l2)
      return;  // a per-SM path hits at the L2's latency: say nothing
  set_value(caches["l2"], "shared_with", json::array(), 0.6, {},
            "the device-wide level: its hit latency differs from every per-SM cache's by more than 10 %");
}

}  // namespace

void add_sharing(const Dataset& data, json& caches) {
  put_shared_with(judge_sharing(sharing_runs(data)), caches);
  put_slices(per_sm_runs(data), caches);
  put_l2(caches);
}

}  // namespace memhier::analysis
