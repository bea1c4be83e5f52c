// peers: per peer GPU, the peer family's latency by state (cold, warm, owner), which L2 keeps a
// peer's line (warm against cold and owner, beyond the noise), SM-initiated read/write bandwidth
// and copies against the link.
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "analysis/memory/levels.hpp"
#include "analysis/memory/levels_common.hpp"

namespace memhier::analysis {

using namespace levels;
using json = nlohmann::json;

namespace {

std::string fmt(double v) { return significant(v, 5); }

struct States {
  double cold = NAN, warm = NAN, owner = NAN, noise = kResolutionCycles, l2_hit = NAN;
};

// reader_l2: warm faster while the owner's own pass did not help; owner_l2: warm as fast as after
// the owner's pass, both faster than cold; none: all three alike (docs/methodology.md, peer).
void decide_cached_in(json& s, const States& st) {
  auto same = [&](double a, double b) { return std::fabs(a - b) <= st.noise; };
  std::ostringstream why;
  why << "cold " << fmt(st.cold) << ", warm " << fmt(st.warm) << ", owner " << fmt(st.owner) << " cycles (noise "
      << fmt(st.noise) << ")";
  json v;
  if (!std::isfinite(st.cold) || !std::isfinite(st.warm)) {
    why.str("");
    why << "cold and warm states not both measured";
  } else if (same(st.warm, st.cold)) {
    if (!std::isfinite(st.owner) || same(st.owner, st.cold)) v = "none", why << ": warm equals cold, no L2 keeps the line";
    else why << ": warm equals cold yet the owner's pass made it faster: no one cache explains it";
  } else if (st.warm > st.cold) {
    why << ": warm slower than cold, nothing to decide from";
  } else if (!std::isfinite(st.owner)) {
    why << ": warm faster, but the owner state was not measured (reader's or owner's L2?)";
  } else if (same(st.owner, st.cold)) {
    v = "reader_l2", why << ": warm faster while the owner's pass left it cold: the reader's L2 keeps it";
  } else if (st.owner < st.cold && same(st.warm, st.owner)) {
    v = "owner_l2", why << ": warm as fast as after the owner's pass, both below cold: the owner's L2 keeps it";
  } else if (std::isfinite(st.l2_hit) && std::fabs(st.warm - st.l2_hit) < std::fabs(st.warm - st.owner)) {
    v = "reader_l2", why << ": warm nearest this GPU's own L2 hit latency (" << fmt(st.l2_hit) << ")";
  } else {
    why << ": warm, owner and cold differ from one another: no one cache explains it";
  }
  s["cached_in"] = v;
  s["cached_in_reason"] = why.str();
}

const Point* state_point(const std::vector<const Point*>& lat, const std::string& state) {
  const Point* p = nullptr;
  for (const Point* q : lat)
    if (q->text("state") == state && (!p || q->num("bytes") > p->num("bytes"))) p = q;
  return p;
}

void peer_latency(const std::vector<const Point*>& lat, const json& topology, double relative, double clock_hz, json& s) {
  States st;
  json by = json::object();
  for (const char* state : {"cold", "warm", "owner"}) {
    const Point* p = state_point(lat, state);
    if (!p) continue;
    const double v = p->med("latency_cycles");
    by[state] = round_to(v, 1);
    (std::string(state) == "cold" ? st.cold : std::string(state) == "warm" ? st.warm : st.owner) = v;
    st.noise = std::max(st.noise, p->spread("latency_cycles"));
  }
  if (relative > 0 && std::isfinite(st.cold)) st.noise = std::max(st.noise, relative * st.cold);
  st.l2_hit = topology_number(topology, "caches.l2.hit_latency_cycles");
  s["latency_cycles"] = number_or_null(st.cold, 1);
  s["latency_ns"] = number_or_null(st.cold / clock_hz * 1e9, 1);
  if (const Point* c = state_point(lat, "cold"); c && std::isfinite(c->med("latency_ns"))) s["latency_ns"] = round_to(c->med("latency_ns"), 1);
  s["latency_by_state"] = by;
  s["noise_cycles"] = round_to(st.noise, 1);
  decide_cached_in(s, st);
}

json peer_json(const std::vector<Point>& ps, const std::string& dst, const std::vector<BenchRun>& runs,
               const json& topology, double relative) {
  json s;
  s["device"] = std::stoll(dst);
  const double link = context_number(runs, "peer_link_bytes_per_second");
  const std::string name = context_text(runs, "peer_link");
  s["link"] = name.empty() ? json() : json(name);
  s["link_bytes_per_second"] = number_or_null(link, 0);
  peer_latency(select(ps, {{"dst", dst}, {"op", "latency"}}), topology, relative,
               context_number(runs, "sm_clock_khz") * 1e3, s);
  for (const char* op : {"read", "write"}) s[op] = link_stream(ps, {{"dst", dst}}, op, link, "peer");
  s["copy"] = link_copies(ps, {{"dst", dst}}, {"uni", "bidir"}, link);
  s["provenance"]["benchmarks"] = evidence_of(select(ps, {{"dst", dst}})).to_json(64);
  return s;
}

}  // namespace

json peers_section(const std::vector<BenchRun>& runs, const json& topology, double relative_noise) {
  const auto ps = points(runs, "peer");
  if (ps.empty()) return json();
  std::set<long long> devices;
  for (const auto& p : ps) devices.insert(p.num("dst"));
  json list = json::array();
  for (long long d : devices) list.push_back(peer_json(ps, std::to_string(d), runs, topology, relative_noise));
  return list;
}

void add_level_sections(const std::vector<BenchRun>& runs, json& topology) {
  if (json d = dsmem_section(runs); !d.is_null()) topology["distributed_shared_memory"] = d;
  if (json a = async_copy_section(runs, topology); !a.is_null()) topology["async_copies"] = a;
  double relative = -1;
  if (json h = host_section(runs, topology, &relative); !h.is_null()) topology["host_memory"] = h;
  if (json p = peers_section(runs, topology, relative); !p.is_null()) topology["peers"] = p;
}

}  // namespace memhier::analysis
