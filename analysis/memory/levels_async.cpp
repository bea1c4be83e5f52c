// async_copies: the async_copy family's best bandwidth per method from the L2 and from DRAM
// (against the L2 peak the l2_throughput family measured, and the theoretical DRAM peak), the
// latency of one chunk per method, the fastest method per source, and multicast.
#include <cmath>

#include "analysis/memory/levels.hpp"
#include "analysis/memory/levels_common.hpp"

namespace memhier::analysis {

using namespace levels;
using json = nlohmann::json;

namespace {

const char* kMethods[] = {"plain", "cp_async", "bulk", "tensor"};

// l2_* or dram_* keys of one method: best bandwidth, its configuration and benchmark.
void method_source(const std::vector<Point>& ps, const std::string& m, const std::string& src, json& j) {
  const Point* b = best(select(ps, {{"op", "bandwidth"}, {"method", m}, {"source", src}}), "bytes_per_second");
  if (!b) {
    j[src + "_bytes_per_second"] = nullptr;
    j[src + "_bytes_per_second_reason"] = "no " + m + " copy from " + src + " measured";
    return;
  }
  j[src + "_bytes_per_second"] = round_to(b->med("bytes_per_second"), 0);
  j[src + "_configuration"] = params_json(b->params);
  j[src + "_benchmark"] = b->name;
}

void l2_pct(json& j, double l2_peak) {
  if (!j["l2_bytes_per_second"].is_number()) return;
  if (std::isfinite(l2_peak) && l2_peak > 0)
    j["l2_pct_of_l2_peak"] = round_to(j["l2_bytes_per_second"].get<double>() / l2_peak * 100, 1);
  else
    j["l2_pct_of_l2_peak_reason"] = "no L2 bandwidth measured in this run (l2_throughput family)";
}

void dram_pct(json& j, const std::vector<Point>& ps, double theoretical) {
  if (!j["dram_bytes_per_second"].is_number()) return;
  if (std::isfinite(theoretical) && theoretical > 0) {
    j["dram_pct_of_peak"] = round_to(j["dram_bytes_per_second"].get<double>() / theoretical * 100, 1);
    return;
  }
  const auto* b = best(select(ps, {{"op", "bandwidth"}, {"method", j.value("method", "")}, {"source", "dram"}}), "bytes_per_second");
  if (b && std::isfinite(b->med("pct_of_peak"))) j["dram_pct_of_peak"] = round_to(b->med("pct_of_peak"), 1);
  else j["dram_pct_of_peak_reason"] = "no theoretical DRAM bandwidth in the context";
}

json method_json(const std::vector<Point>& ps, const std::string& m, double l2_peak, double theoretical) {
  json j;
  j["method"] = m;
  method_source(ps, m, "l2", j);
  method_source(ps, m, "dram", j);
  l2_pct(j, l2_peak);
  dram_pct(j, ps, theoretical);
  j.erase("method");
  json lat = json::object();
  for (const Point* p : select(ps, {{"op", "latency"}, {"method", m}}))
    if (std::isfinite(p->med("latency_cycles"))) lat[std::to_string(p->num("chunk"))] = round_to(p->med("latency_cycles"), 1);
  j["latency_cycles"] = lat;
  return j;
}

// The method with the highest rate from one source (null when none was measured).
json fastest(const json& methods, const std::string& src) {
  std::string best_m;
  double best_v = -1;
  for (auto& [m, j] : methods.items()) {
    const auto& v = j[src + "_bytes_per_second"];
    if (v.is_number() && v.get<double>() > best_v) best_v = v.get<double>(), best_m = m;
  }
  return best_m.empty() ? json() : json(best_m);
}

json multicast_json(const std::vector<Point>& ps) {
  json mc = json::object();
  for (const Point* p : select(ps, {{"op", "multicast"}})) {
    const double d = p->med("bytes_per_second"), r = p->med("source_bytes_per_second");
    json c;
    c["bytes_per_second"] = number_or_null(d, 0);
    c["source_bytes_per_second"] = number_or_null(r, 0);
    c["delivered_over_read"] = std::isfinite(d) && std::isfinite(r) && r > 0 ? json(round_to(d / r, 3)) : json();
    c["benchmark"] = p->name;
    mc[std::to_string(p->num("cluster"))] = c;
  }
  return mc;
}

}  // namespace

json async_copy_section(const std::vector<BenchRun>& runs, const json& topology) {
  const auto ps = points(runs, "async_copy");
  if (ps.empty()) return json();
  json s = json::object();
  // A copy reads each line once: its reference is the L2 rate with one reader per line (the peak
  // over any number of readers per line counts lines served to several SMs at once).
  double l2_peak = topology_number(topology, "l2_bandwidth.one_reader_per_line.peak_bytes_per_second");
  s["l2_reference"] = "l2_bandwidth.one_reader_per_line.peak_bytes_per_second";
  if (!std::isfinite(l2_peak)) {
    l2_peak = topology_number(topology, "l2_bandwidth.peak_bytes_per_second");
    s["l2_reference"] = "l2_bandwidth.peak_bytes_per_second (no rate with one reader per line in this run)";
  }
  if (!std::isfinite(l2_peak)) s["l2_reference"] = nullptr;
  const double theoretical = context_number(runs, "theoretical_dram_bytes_per_second");
  json methods = json::object();
  for (const char* m : kMethods)
    if (!select(ps, {{"method", m}}).empty()) methods[m] = method_json(ps, m, l2_peak, theoretical);
  s["methods"] = methods;
  s["fastest"] = {{"l2", fastest(methods, "l2")}, {"dram", fastest(methods, "dram")}};
  const json mc = multicast_json(ps);
  if (!mc.empty()) s["multicast"] = mc;
  else s["multicast_reason"] = "no multicast benchmarks (the device offers none, or the plan left them out)";
  std::vector<const Point*> all;
  for (const auto& p : ps) all.push_back(&p);
  s["provenance"]["benchmarks"] = evidence_of(all).to_json(64);
  return s;
}

}  // namespace memhier::analysis
