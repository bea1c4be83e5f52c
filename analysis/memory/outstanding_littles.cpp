// Outstanding misses per SM by Little's law. docs/methodology.md, section requests_sharing_partitions.
#include "analysis/memory/outstanding_littles.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>

#include "analysis/core/field.hpp"
#include "analysis/core/stats.hpp"

namespace memhier::analysis {
namespace {

using json = nlohmann::json;

// The family's units (kernels/outstanding.cuh): unique128 reads one word per 128-byte line,
// unique32 one per 32-byte sector.
constexpr double kLineBytes = 128, kSectorBytes = 32;
constexpr double kMinR2 = 0.95;         // a straight ramp: the rate is steady
constexpr double kDepth = 4;            // largest batch >= 4 x the lines in flight: deep in the saturation
constexpr double kSameRate = 0.10;      // cost per line within 10 % of the deepest series'

const char* const kMethod =
    "Little's law on the ramp past the knee: a batch of N lines takes R + N/X cycles (X lines per cycle leave "
    "the SM, each arrives R cycles later), so X = 1 / the slope per line and R = the intercept (the loaded "
    "latency); lines in flight per SM = X x R, the median over the series deep in the saturation (largest batch "
    ">= 4 x X x R, r2 >= 0.95) at the deepest series' rate (cost per line within 10 %)";

json source_json(const std::vector<LittleSeries>& used, const LittleSeries& deepest) {
  std::vector<double> x, r, r0, n, moved;
  json names = json::array(), per = json::array();
  for (const auto& s : used) {
    x.push_back(s.lines_per_cycle);
    r.push_back(s.loaded_latency);
    r0.push_back(s.unloaded_latency);
    n.push_back(s.lines);
    moved.push_back(s.lines_per_cycle * s.bytes_moved_per_line);
    names.push_back(s.benchmark);
    per.push_back({{"benchmark", s.benchmark}, {"lines_per_cycle", s.lines_per_cycle}, {"loaded_latency_cycles", s.loaded_latency},
                   {"outstanding_lines", s.lines}, {"lines_max", s.lines_max}});
  }
  const double lines = median(n);
  return {{"lines_per_cycle_per_sm", median(x)},
          {"bytes_per_cycle_per_sm", median(x) * kLineBytes},
          {"bytes_moved_per_cycle_per_sm", median(moved)},
          {"loaded_latency_cycles", median(r)},
          {"unloaded_latency_cycles", median(r0)},
          {"outstanding_lines_per_sm", std::round(lines)},
          {"outstanding_bytes_per_sm", std::round(lines) * kLineBytes},
          {"outstanding_lines_range", {*std::min_element(n.begin(), n.end()), *std::max_element(n.begin(), n.end())}},
          {"deepest_benchmark", deepest.benchmark},
          {"series", per}};
}

std::string no_figure(const std::vector<LittleSeries>& all, const std::string& source) {
  int n = 0, linear = 0;
  for (const auto& s : all)
    if (s.source == source) {
      ++n;
      if (s.deep) ++linear;
    }
  if (n == 0) return "no " + source + " series with a rising latency";
  return "none of the " + std::to_string(n) + " " + source +
         " series ramps as a straight line (r2 >= 0.95) to a batch of at least 4 x its lines in flight: no saturated "
         "rate to apply Little's law to";
}

}  // namespace

std::vector<LittleSeries> little_series(const std::vector<SeriesRamp>& ramps) {
  std::vector<LittleSeries> out;
  for (const auto& r : ramps) {
    if (r.slope <= 0 || r.intercept <= 0 || r.loads <= 0 || r.threads_per_line <= 0 || r.threads_per_sector <= 0) continue;
    LittleSeries s;
    s.benchmark = r.benchmark;
    s.source = r.source;
    s.cycles_per_line = r.slope * r.threads_per_line / r.loads;
    s.lines_per_cycle = 1 / s.cycles_per_line;
    s.loaded_latency = r.intercept;
    s.unloaded_latency = r.first_latency;
    s.lines = s.lines_per_cycle * s.loaded_latency;
    s.lines_max = r.threads_max * r.loads / r.threads_per_line;
    s.bytes_moved_per_line = std::round(r.threads_per_line / r.threads_per_sector) * kSectorBytes;
    s.deep = r.r2 >= kMinR2 && s.lines_max >= kDepth * s.lines;
    out.push_back(s);
  }
  return out;
}

json littles_law_section(const std::vector<SeriesRamp>& ramps) {
  const std::vector<LittleSeries> all = little_series(ramps);
  json o = {{"method", kMethod}, {"line_bytes", kLineBytes}};
  double best = 0;
  Evidence ev;
  std::string best_source;
  for (const char* source : {"l2", "dram"}) {
    const LittleSeries* deepest = nullptr;
    for (const auto& s : all)
      if (s.source == source && s.deep && (!deepest || s.lines_max > deepest->lines_max)) deepest = &s;
    if (!deepest) {
      o[source] = nullptr;
      o[std::string(source) + "_reason"] = no_figure(all, source);
      continue;
    }
    std::vector<LittleSeries> used;
    for (const auto& s : all)
      if (s.source == source && s.deep && std::fabs(s.cycles_per_line / deepest->cycles_per_line - 1) <= kSameRate)
        used.push_back(s);
    o[source] = source_json(used, *deepest);
    const double lines = o[source]["outstanding_lines_per_sm"].get<double>();
    if (lines > best) {
      best = lines;
      best_source = source;
      ev = Evidence{};
      for (const auto& s : used) ev.add(s.benchmark);
    }
  }
  if (best > 0)
    set_value(o, "outstanding_lines_per_sm", best, 0.6, ev,
              "Little's law from the " + best_source + " series: " +
                  std::to_string(o[best_source]["lines_per_cycle_per_sm"].get<double>()).substr(0, 5) + " lines per cycle x " +
                  std::to_string(static_cast<long>(std::round(o[best_source]["loaded_latency_cycles"].get<double>()))) +
                  " cycles loaded latency; a lower bound on what the SM can hold (it held that many)");
  else
    set_null(o, "outstanding_lines_per_sm", "no source has a saturated series (" +
                                                o.value("l2_reason", std::string("l2: none")) + ")");
  return o;
}

namespace {

double number(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return NAN;
  const json& v = j[key];
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return std::atof(v.get<std::string>().c_str());
  return NAN;
}

void put_all_sms(json& src, double bytes_per_cycle, const std::string& from) {
  if (!src.is_object()) return;
  const double lines = bytes_per_cycle / kLineBytes;
  const double latency = src["loaded_latency_cycles"].get<double>();
  src["all_sms"] = {{"bytes_per_cycle_per_sm", bytes_per_cycle},
                    {"lines_per_cycle_per_sm", lines},
                    {"outstanding_lines_per_sm_needed", std::round(lines * latency)},
                    {"from", from},
                    {"note", "the whole GPU's saturated rate per SM x the one-SM loaded latency: the lines each SM must keep "
                             "in flight for that rate (a lower bound: every SM's load does not shorten the latency)"}};
}

}  // namespace

void add_littles_law_all_sms(json& outstanding, const json& topology) {
  if (!outstanding.is_object() || !outstanding.contains("littles_law")) return;
  json& ll = outstanding["littles_law"];
  const json dev = topology.value("device", json::object());
  if (ll.contains("l2") && ll["l2"].is_object()) {
    const double b = number(topology.value("l2_bandwidth", json::object()), "peak_bytes_per_clock_per_sm");
    if (std::isfinite(b) && b > 0) put_all_sms(ll["l2"], b, "l2_bandwidth.peak_bytes_per_clock_per_sm");
    else ll["l2"]["all_sms"] = nullptr, ll["l2"]["all_sms_reason"] = "no l2_bandwidth peak per clock per SM";
  }
  if (ll.contains("dram") && ll["dram"].is_object()) {
    const double bps = number(topology.value("global_memory", json::object()), "peak_read_bytes_per_second");
    const double sms = number(dev, "sm_count");
    double mhz = number(topology.value("l2_bandwidth", json::object()), "sm_clock_mhz");  // measured during the throughput runs
    std::string clock = "l2_bandwidth.sm_clock_mhz";
    if (!(mhz > 0)) mhz = number(dev, "sm_clock_khz") / 1000, clock = "device.sm_clock_khz";
    if (std::isfinite(bps) && bps > 0 && sms > 0 && mhz > 0)
      put_all_sms(ll["dram"], bps / sms / (mhz * 1e6), "global_memory.peak_read_bytes_per_second / device.sm_count / " + clock);
    else
      ll["dram"]["all_sms"] = nullptr, ll["dram"]["all_sms_reason"] = "no DRAM read peak, SM count or SM clock";
  }
}

}  // namespace memhier::analysis
