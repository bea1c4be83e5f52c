// distributed_shared_memory: the dsmem family's latency per cluster size and rank, whether it
// depends on the rank, the cluster size or the SM pair (against the spread over clusters and
// repetitions), and the local and remote bandwidth per clock per SM.
#include <algorithm>
#include <cmath>

#include "analysis/memory/levels.hpp"
#include "analysis/memory/levels_common.hpp"

namespace memhier::analysis {

using namespace levels;
using json = nlohmann::json;

namespace {

// latency_cycles (median over remote ranks), spread, local latency, by_cluster, and the effects.
void dsmem_latency(const std::vector<Point>& ps, json& s) {
  const auto lat = select(ps, {{"op", "latency"}});
  std::vector<const Point*> remote, local;
  json by_cluster = json::object();
  std::map<long long, std::vector<Labelled>> ranks_of;  // cluster -> its remote ranks
  std::vector<Labelled> rank1;                          // rank 1 per cluster size
  for (const Point* p : lat) {
    const long long c = p->num("cluster"), r = p->num("rank");
    const double v = p->med("latency_cycles");
    if (!std::isfinite(v)) continue;
    by_cluster[std::to_string(c)][std::to_string(r)] = round_to(v, 1);
    (r == 0 ? local : remote).push_back(p);
    if (r == 0) continue;
    ranks_of[c].push_back({"rank " + std::to_string(r), v, p->spread("latency_cycles")});
    if (r == 1) rank1.push_back({"cluster " + std::to_string(c), v, p->spread("latency_cycles")});
  }
  std::vector<double> rv, lv;
  for (const Point* p : remote) rv.push_back(p->med("latency_cycles"));
  for (const Point* p : local) lv.push_back(p->med("latency_cycles"));
  if (rv.empty()) {
    set_null(s, "latency_cycles", "no remote rank (rank >= 1) measured", evidence_of(lat));
    s["latency_spread_cycles"] = nullptr;
  } else {
    set_value(s, "latency_cycles", round_to(median_or_nan(rv), 1), 0.9, evidence_of(remote),
              "median over the remote ranks and cluster sizes of each benchmark's median over clusters");
    s["latency_spread_cycles"] = {round_to(*std::min_element(rv.begin(), rv.end()), 1),
                                  round_to(*std::max_element(rv.begin(), rv.end()), 1)};
  }
  if (lv.empty()) set_null(s, "local_latency_cycles", "rank 0 (own shared memory through the cluster window) not measured");
  else set_value(s, "local_latency_cycles", round_to(median_or_nan(lv), 1), 0.9, evidence_of(local), "rank 0, median over cluster sizes");
  s["by_cluster"] = by_cluster;
  // The rank effect: within the cluster size with most remote ranks, over every size the largest.
  // Its noise is the largest spread over clusters of any remote latency, every cluster size: a
  // rank's median over a few clusters (7 of 16 SMs on an H100) moves with where they land (rank 1
  // of clusters of 16: 206-223 cycles in one H100 run, 216-223 in the next), and the spread of so
  // few clusters understates that scatter; one size's own spread flipped the decision between runs.
  double placement = kResolutionCycles;
  for (auto& [c, v] : ranks_of)
    for (const auto& x : v) placement = std::max(placement, x.spread);
  for (auto& [c, v] : ranks_of)
    for (auto& x : v) x.spread = placement;
  std::vector<Labelled> most;  // the cluster size with most remote ranks says what was measured
  for (const auto& [c, v] : ranks_of)
    if (v.size() > most.size()) most = v;
  json rank = decide_effect(most.size() < 2 ? most : std::vector<Labelled>{}, "depends on rank", "remote rank(s) per cluster size");
  for (const auto& [c, v] : ranks_of) {
    json e = decide_effect(v, "depends on rank", "remote ranks of clusters of " + std::to_string(c));
    if (!e["cycles"].is_number()) continue;
    const bool e_dep = e["decided"] != "none", r_dep = rank["decided"].is_string() && rank["decided"] != "none";
    if (!rank["cycles"].is_number() || (e_dep && !r_dep) || (e_dep == r_dep && e["cycles"] > rank["cycles"])) rank = e;
  }
  if (rank["decided"].is_string())
    rank["reason"] = rank["reason"].get<std::string>() + "; the noise pools every cluster size's remote ranks";
  s["rank_effect"] = rank;
  s["cluster_effect"] = decide_effect(rank1, "depends on cluster size", "rank 1 over cluster sizes");
}

// sm_pair_effect: same TPC / other TPC where the family saw both.
void dsmem_sm_pairs(const std::vector<Point>& ps, json& s) {
  std::vector<double> same, other;
  double noise = kResolutionCycles;
  for (const Point* p : select(ps, {{"op", "latency"}})) {
    if (p->num("rank") == 0) continue;
    const double a = p->med("latency_same_tpc_cycles"), b = p->med("latency_other_tpc_cycles");
    if (!std::isfinite(a) || !std::isfinite(b)) continue;
    same.push_back(a);
    other.push_back(b);
    noise = std::max({noise, p->spread("latency_same_tpc_cycles"), p->spread("latency_other_tpc_cycles")});
  }
  if (same.empty()) return;  // the family did not tell SM pairs apart
  std::vector<Labelled> v = {{"same TPC", median_or_nan(same), noise}, {"other TPC", median_or_nan(other), noise}};
  json e = decide_effect(v, "depends on SM pair", "remote latency by source and target SM");
  e["same_tpc_cycles"] = round_to(median_or_nan(same), 1);
  e["other_tpc_cycles"] = round_to(median_or_nan(other), 1);
  s["sm_pair_effect"] = e;
}

json dsmem_bandwidth_op(const std::vector<Point>& ps, const std::string& op, double clock_hz) {
  const auto local = select(ps, {{"op", op}, {"remote", "0"}}), remote = select(ps, {{"op", op}, {"remote", "1"}});
  if (local.empty() && remote.empty()) return json();
  json b;
  const Point* l = best(local, "bytes_per_clock_per_sm");
  const Point* r = best(remote, "bytes_per_clock_per_sm");
  b["local_bytes_per_clock_per_sm"] = l ? number_or_null(l->med("bytes_per_clock_per_sm"), 2) : json();
  b["remote_bytes_per_clock_per_sm"] = r ? number_or_null(r->med("bytes_per_clock_per_sm"), 2) : json();
  double rbps = r ? r->med("bytes_per_second") : NAN;
  if (r && !std::isfinite(rbps)) rbps = r->med("bytes_per_clock_per_sm") * clock_hz;  // per SM only
  b["remote_bytes_per_second"] = number_or_null(rbps, 0);
  b["remote_over_local"] = l && r ? number_or_null(r->med("bytes_per_clock_per_sm") / l->med("bytes_per_clock_per_sm"), 3) : json();
  if (r) b["benchmark"] = r->name;
  if (r) b["configuration"] = params_json(r->params);
  json by_cluster = json::object(), by_warps = json::object();
  for (const Point* p : remote) {
    const std::string c = std::to_string(p->num("cluster"));
    const double v = p->med("bytes_per_clock_per_sm");
    if (!by_cluster.contains(c) || by_cluster[c].get<double>() < v) by_cluster[c] = round_to(v, 2);
    const double w = p->med("warps_per_sm");
    if (std::isfinite(w)) {
      const std::string k = std::to_string(static_cast<long long>(w));
      if (!by_warps.contains(k) || by_warps[k].get<double>() < v) by_warps[k] = round_to(v, 2);
    }
  }
  b["by_cluster"] = by_cluster;
  b["remote_by_warps_per_sm"] = by_warps;
  if (!l) b["local_bytes_per_clock_per_sm_reason"] = "no local (remote:0) " + op + " measured";
  if (!r) b["remote_bytes_per_clock_per_sm_reason"] = "no remote (remote:1) " + op + " measured";
  return b;
}

}  // namespace

json dsmem_section(const std::vector<BenchRun>& runs) {
  const auto ps = points(runs, "dsmem");
  if (ps.empty()) return json();
  json s = json::object();
  dsmem_latency(ps, s);
  dsmem_sm_pairs(ps, s);
  const double clock_hz = context_number(runs, "sm_clock_khz") * 1e3 * context_number(runs, "sm_count");
  json bw = json::object();
  for (const char* op : {"read", "write"}) {
    json b = dsmem_bandwidth_op(ps, op, clock_hz);
    if (!b.is_null()) bw[op] = b;
  }
  std::vector<const Point*> all;
  for (const auto& p : ps) all.push_back(&p);
  s["bandwidth"] = bw;
  if (bw.empty()) s["bandwidth_reason"] = "no dsmem read or write benchmarks";
  const double max_cluster = context_number(runs, "max_cluster_size");
  if (std::isfinite(max_cluster)) s["max_cluster_size"] = max_cluster;
  s["provenance"]["benchmarks"] = evidence_of(all).to_json(64);
  return s;
}

}  // namespace memhier::analysis
