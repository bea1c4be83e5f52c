// host_memory: the host family's latency (cold, largest footprint; cold and warm where the L2 could
// hold the footprint), whether the L2 keeps host lines (warm against cold and the L2's own hit
// latency, beyond the noise), SM-initiated read/write bandwidth and copies against the link, and
// managed memory.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/memory/levels.hpp"
#include "analysis/memory/levels_common.hpp"

namespace memhier::analysis {

using namespace levels;
using json = nlohmann::json;

namespace {

std::string fmt(double v) { return significant(v, 5); }

// The footprint the warm/cold decision reads: the largest with both states that the L2 could hold
// (all of them when the L2's size is unknown), else the smallest with both.
const Point* pick_state(const std::vector<Point>& ps, long long bytes, const std::string& warm) {
  for (const Point* p : select(ps, {{"op", "latency"}, {"warm", warm}}))
    if (p->num("bytes") == bytes) return p;
  return nullptr;
}

long long decision_footprint(const std::vector<Point>& ps, double l2_bytes) {
  long long fit = -1, smallest = -1;
  for (const Point* p : select(ps, {{"op", "latency"}, {"warm", "1"}})) {
    const long long b = p->num("bytes");
    if (!pick_state(ps, b, "0")) continue;
    if ((!std::isfinite(l2_bytes) || b <= l2_bytes) && b > fit) fit = b;
    if (smallest < 0 || b < smallest) smallest = b;
  }
  return fit > 0 ? fit : smallest;
}

// The noise of a latency over the link: repetitions, and the cold latencies of every footprint
// (one memory measured several times), at least the clock's resolution.
double link_noise(const std::vector<Point>& ps, double* relative) {
  double noise = kResolutionCycles, lo = INFINITY, hi = -INFINITY;
  int colds = 0;
  for (const Point* p : select(ps, {{"op", "latency"}})) {
    noise = std::max(noise, p->spread("latency_cycles"));
    if (p->text("warm") != "0") continue;
    lo = std::min(lo, p->med("latency_cycles"));
    hi = std::max(hi, p->med("latency_cycles"));
    ++colds;
  }
  if (colds >= 2) noise = std::max(noise, hi - lo);
  *relative = colds >= 2 || noise > kResolutionCycles ? noise / std::max(lo, 1.0) : -1;
  return noise;
}

void decide_cached(json& s, double cold, double warm, double noise, double l2_hit) {
  const double d = cold - warm;
  std::ostringstream why;
  why << "warm " << fmt(warm) << " vs cold " << fmt(cold) << " cycles (noise " << fmt(noise) << ")";
  json v;
  double conf = 0.8;
  if (std::fabs(d) <= noise) {
    v = false, why << ": warm equals cold within the noise, the L2 keeps no host line";
  } else if (d < 0) {
    why << ": warm slower than cold, nothing to decide from";
  } else if (!std::isfinite(l2_hit)) {
    v = true, conf = 0.6, why << ": warm faster beyond the noise; the L2's own hit latency was not measured in this run";
  } else if (std::fabs(warm - l2_hit) < std::fabs(warm - cold)) {
    v = true, why << ": warm near the L2's own hit latency (" << fmt(l2_hit) << " cycles)";
  } else {
    why << ": warm faster beyond the noise but nearer cold than the L2's hit latency (" << fmt(l2_hit)
        << " cycles): not the L2";
  }
  s["cached_in_l2"] = v;
  s["cached_in_l2_reason"] = why.str();
  s["provenance"]["cached_in_l2"] = {{"confidence", v.is_null() ? 0.0 : conf}};
}

void host_latency(const std::vector<Point>& ps, const json& topology, double l2_bytes, double clock_hz, json& s,
                  double* relative) {
  const Point* cold = nullptr;
  for (const Point* p : select(ps, {{"op", "latency"}, {"warm", "0"}}))
    if (!cold || p->num("bytes") > cold->num("bytes")) cold = p;
  if (!cold) {
    set_null(s, "latency_cycles", "no cold (warm:0) host latency measured");
    s["latency_ns"] = nullptr;
  } else {
    set_value(s, "latency_cycles", round_to(cold->med("latency_cycles"), 1), 0.9, evidence_of({cold}),
              "cold P-chase over the link, largest footprint");
    const double ns = std::isfinite(cold->med("latency_ns")) ? cold->med("latency_ns") : cold->med("latency_cycles") / clock_hz * 1e9;
    s["latency_ns"] = number_or_null(ns, 1);
  }
  const double noise = link_noise(ps, relative);
  const long long f = decision_footprint(ps, l2_bytes);
  if (f < 0) {
    s["latency_by_state"] = nullptr;
    s["cached_in_l2"] = nullptr;
    s["cached_in_l2_reason"] = "no footprint measured both cold and warm";
    return;
  }
  const Point *c = pick_state(ps, f, "0"), *w = pick_state(ps, f, "1");
  s["latency_by_state"] = {{"cold", round_to(c->med("latency_cycles"), 1)}, {"warm", round_to(w->med("latency_cycles"), 1)},
                           {"bytes", f}};
  decide_cached(s, c->med("latency_cycles"), w->med("latency_cycles"), noise,
                topology_number(topology, "caches.l2.hit_latency_cycles"));
  s["provenance"]["cached_in_l2"]["evidence"] = evidence_of({c, w}).to_json();
}

json managed(const std::vector<Point>& ps, double clock_hz) {
  const auto m = select(ps, {{"op", "managed"}});
  if (m.empty()) return json();
  const Point* p = m.back();
  const double f = p->med("fault_latency_cycles");
  return {{"fault_latency_cycles", number_or_null(f, 0)},
          {"fault_latency_us", number_or_null(f / clock_hz * 1e6, 2)},
          {"migration_bytes_per_second", number_or_null(p->med("bytes_per_second"), 0)},
          {"prefetch_bytes_per_second", number_or_null(p->med("prefetch_bytes_per_second"), 0)},
          {"benchmark", p->name}};
}

}  // namespace

json host_section(const std::vector<BenchRun>& runs, const json& topology, double* relative_noise) {
  *relative_noise = -1;
  const auto ps = points(runs, "host");
  if (ps.empty()) return json();
  json s = json::object();
  const double link = context_number(runs, "host_link_bytes_per_second");
  const double clock_hz = context_number(runs, "sm_clock_khz") * 1e3;
  const std::string name = context_text(runs, "host_link");
  s["link"] = name.empty() ? json() : json(name);
  s["link_bytes_per_second"] = number_or_null(link, 0);
  if (!std::isfinite(link)) s["link_bytes_per_second_reason"] = "no host_link_bytes_per_second in the context";
  host_latency(ps, topology, context_number(runs, "l2_cache_bytes"), clock_hz, s, relative_noise);
  s["read"] = link_stream(ps, {}, "read", link, "host");
  s["write"] = link_stream(ps, {}, "write", link, "host");
  s["copy"] = link_copies(ps, {}, {"h2d", "d2h", "bidir"}, link);
  const json m = managed(ps, clock_hz);
  if (!m.is_null()) s["managed"] = m;
  std::vector<const Point*> all;
  for (const auto& p : ps) all.push_back(&p);
  s["provenance"]["benchmarks"] = evidence_of(all).to_json(64);
  return s;
}

}  // namespace memhier::analysis
