// Outstanding memory requests (002). docs/methodology.md, section requests_sharing_partitions.
#include "analysis/memory/outstanding.hpp"

#include <algorithm>
#include <iterator>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "analysis/core/field.hpp"
#include "analysis/memory/outstanding_littles.hpp"
#include "analysis/memory/outstanding_ramp.hpp"
#include "analysis/core/stats.hpp"

namespace memhier::analysis {
namespace {

using json = nlohmann::json;

constexpr double kJumpSigmas = 8;        // a step's jump above the local jumps, in robust deviations
constexpr double kVarianceFactor = 25;   // the 3-point variance at a step above its median
constexpr std::size_t kLevelWindow = 4;  // points on each side for the level change
constexpr double kTolerance = 0.10;      // relative slack of the entry intervals (noisy thread counts)
// A saturation step is a request waiting for an entry to free: one more round trip, so it rises by
// at least half the few-request latency. Smaller steps are issue serialization (the H100's merge32
// series climb ~30-150 cycles every 128 threads: one more warp per scheduler), never the saturation.
// Nor is a step small against the queueing the latency already carries: a table fills before the
// latency ramps (behind an issue rate a full table only moves where requests wait); on the H100's
// unique128 x 16 ramp (21 000-33 000 cycles past 1286 threads) five runs' steps rose 198-343
// cycles, its scatter, and one run's crossed half the 582-cycle round trip.
constexpr double kSaturationShare = 0.5;

double median_of(const std::vector<double>& v) { return v.empty() ? NAN : median(v); }

double level(const std::vector<double>& lat, std::size_t from, std::size_t to) {  // median of [from, to]
  return median_of(std::vector<double>(lat.begin() + from, lat.begin() + to + 1));
}

// Jumps between neighbours minus the median of the jumps around them (a ramp's own slope removed).
std::vector<double> excess_jumps(const std::vector<double>& lat) {
  const std::size_t n = lat.size();
  std::vector<double> d(n - 1), x(n - 1);
  for (std::size_t i = 0; i + 1 < n; ++i) d[i] = lat[i + 1] - lat[i];
  for (std::size_t i = 0; i + 1 < n; ++i) {
    std::vector<double> around;
    for (std::size_t k = i > 4 ? i - 4 : 0; k <= std::min(n - 2, i + 4); ++k)
      if (k != i) around.push_back(d[k]);
    x[i] = d[i] - median_of(around);
  }
  return x;
}

double knee(const std::vector<double>& threads, const std::vector<double>& lat, double sigma) {
  const double base = level(lat, 0, std::min<std::size_t>(3, lat.size() - 1));
  const double limit = base + std::max(0.25 * base, kJumpSigmas * sigma);
  for (std::size_t i = 0; i + 3 < lat.size(); ++i)
    if (lat[i] > limit && lat[i + 1] > limit && lat[i + 2] > limit && lat[i + 3] > limit) return threads[i];
  return -1;
}

}  // namespace

std::vector<double> three_point_variance(const std::vector<double>& lat) {
  std::vector<double> v(lat.size(), 0.0);
  for (std::size_t i = 1; i + 1 < lat.size(); ++i) {
    const double mu = (lat[i - 1] + lat[i] + lat[i + 1]) / 3;
    v[i] = ((lat[i - 1] - mu) * (lat[i - 1] - mu) + (lat[i] - mu) * (lat[i] - mu) +
            (lat[i + 1] - mu) * (lat[i + 1] - mu)) / 2;
  }
  return v;
}

SpikeAnalysis detect_spikes(const std::vector<double>& threads, const std::vector<double>& lat,
                            double mode_change_after) {
  SpikeAnalysis a;
  const std::size_t n = std::min(threads.size(), lat.size());
  if (n < 6) return a;
  const std::vector<double> x = excess_jumps(lat);
  const std::vector<double> v = three_point_variance(lat);
  a.noise_cycles = std::max(1.0, robust_sigma(x));
  a.noise_variance = median_of(std::vector<double>(v.begin() + 1, v.end() - 1));
  const double vfloor = std::max(a.noise_variance, 1.0);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (x[i] <= kJumpSigmas * a.noise_cycles) continue;
    if (std::max(v[i], v[i + 1]) <= kVarianceFactor * vfloor) continue;
    const double before = level(lat, i >= kLevelWindow - 1 ? i - (kLevelWindow - 1) : 0, i);
    const double after = level(lat, i + 1, std::min(n - 1, i + kLevelWindow));
    const double rise = after - before;
    if (rise <= 0.5 * (lat[i + 1] - lat[i]) || rise <= 4 * a.noise_cycles) continue;  // an outlier, not a step
    if (!a.steps.empty() && i - a.steps.back().index <= 2) {  // one step spread over neighbouring jumps
      if (rise > a.steps.back().rise) a.steps.back() = {i, threads[i], threads[i + 1], rise, false, before};
      continue;
    }
    a.steps.push_back({i, threads[i], threads[i + 1], rise, false, before});
  }
  double largest = 0;
  for (auto& s : a.steps) {
    s.mode_change = s.threads_before == mode_change_after;
    if (!s.mode_change) largest = std::max(largest, s.rise);
  }
  const double round_trip = level(lat, 0, std::min<std::size_t>(3, n - 1));
  double earlier = 0;  // the rises of the steps before step k
  for (std::size_t k = 0; k < a.steps.size(); earlier += a.steps[k].rise, ++k) {
    const LatencyStep& s = a.steps[k];
    const double queued = std::max(0.0, s.level_before - round_trip - earlier);  // the ramp's share
    if (!s.mode_change && largest > 0 && s.rise >= 0.5 * largest && s.rise >= kSaturationShare * round_trip &&
        s.rise >= kSaturationShare * queued) {
      a.saturation = static_cast<int>(k);
      break;
    }
  }
  a.knee_threads = knee(threads, lat, a.noise_cycles);
  return a;
}

namespace {

// Entries an MSHR table books for T threads x L loads of a pattern: distinct address units per
// load x entries per unit (a unit shared by k threads needs ceil(k / C) entries of capacity C).
double mshr_entries(const RequestSeries& s, double t, int capacity, bool line_unit) {
  double k = s.merge;
  if (s.pattern == "unique32") k = line_unit ? 4 : 1;  // four threads per line, one per sector
  return s.loads * std::ceil(t / k) * std::ceil(k / capacity);
}

double prt_entries(const RequestSeries& s, double t) { return s.loads * std::ceil(t / 32); }

struct Interval {
  double lo = 0, hi = std::numeric_limits<double>::infinity();
  bool empty() const { return lo > hi; }
};

// The parameter interval one series allows under a model (entries(T) for the series' T*).
template <typename Entries>
Interval allowed(const RequestSeries& s, Entries entries) {
  if (s.t_star < 0) return {entries(s.t_max) / (1 + kTolerance), std::numeric_limits<double>::infinity()};
  const double lo = entries(s.t_star), hi = std::max(lo, entries(s.t_star + s.step_threads) - 1);
  return {lo / (1 + kTolerance), hi * (1 + kTolerance)};
}

template <typename Entries>
Interval fit(const std::vector<RequestSeries>& series, Entries entries) {
  Interval in;
  for (const auto& s : series) {
    const Interval a = allowed(s, [&](double t) { return entries(s, t); });
    in.lo = std::max(in.lo, a.lo);
    in.hi = std::min(in.hi, a.hi);
  }
  return in;
}

// The tightest entries interval: the observed series' own bounds inside the fitted one.
template <typename Entries>
Interval observed_bounds(const std::vector<RequestSeries>& series, Entries entries, Interval in) {
  Interval b{0, std::numeric_limits<double>::infinity()};
  for (const auto& s : series) {
    if (s.t_star < 0) continue;
    b.lo = std::max(b.lo, entries(s, s.t_star));
    b.hi = std::min(b.hi, std::max(entries(s, s.t_star), entries(s, s.t_star + s.step_threads) - 1));
  }
  if (b.empty()) return {std::max(in.lo, 0.0), in.hi};  // inconsistent within the tolerance only
  return b;
}

void fit_mshr(const std::vector<RequestSeries>& series, DesignFit& f, bool* fits) {
  *fits = false;
  for (bool line : {false, true})
    for (int c : {1, 2, 4, 8, 16, 32}) {
      auto e = [&](const RequestSeries& s, double t) { return mshr_entries(s, t, c, line); };
      const Interval in = fit(series, e);
      if (in.empty()) continue;
      f.models_fitting.push_back("mshr: " + std::string(line ? "line" : "sector") + " entries, merge capacity " +
                                 std::to_string(c));
      if (*fits && f.unit != (line ? "line" : "sector")) continue;  // report the first unit that fits
      if (!*fits) {
        const Interval b = observed_bounds(series, e, in);
        f.entries_lo = b.lo;
        f.entries_hi = b.hi;
        f.merge_lo = c;
        f.unit = line ? "line" : "sector";
      }
      f.merge_hi = c;
      *fits = true;
    }
}

}  // namespace

DesignFit classify_design(const std::vector<RequestSeries>& series) {
  DesignFit f;
  int observed = 0;
  double most = 0;         // distinct addresses at T_max, over the series without a step
  const RequestSeries* stepped = nullptr;
  for (const auto& s : series) {
    f.evidence.push_back(s.benchmark);
    if (s.t_star >= 0) {
      ++observed;
      stepped = &s;
    } else {
      most = std::max(most, mshr_entries(s, s.t_max, 1 << 20, false));
    }
  }
  if (series.empty()) {
    f.reason = "no Thread-Latency series";
    return f;
  }
  if (observed == 0) {
    f.reason = "no saturation step in any of the " + std::to_string(series.size()) +
               " series (every latency rise is gradual): the SM kept up to " + std::to_string(static_cast<long>(most)) +
               " requests in flight without a resource step";
    f.max_outstanding = most;
    f.max_is_lower_bound = true;
    return f;
  }
  if (observed == 1) {  // a table shows in every series that reaches its entries: one is no table
    f.reason = "one series alone steps (" + stepped->benchmark + " past " + std::to_string(static_cast<long>(stepped->t_star)) +
               " threads), no other confirms a table there; the other " + std::to_string(series.size() - 1) +
               " series kept up to " + std::to_string(static_cast<long>(most)) + " requests in flight without a resource step";
    f.max_outstanding = most;
    f.max_is_lower_bound = true;
    return f;
  }
  bool mshr = false;
  DesignFit m = f;
  fit_mshr(series, m, &mshr);
  const Interval p = fit(series, prt_entries);
  const bool prt = !p.empty();
  if (prt) m.models_fitting.push_back("prt: warp load instructions");
  if (mshr && !prt) {
    m.design = "mshr";
    m.max_outstanding = m.entries_lo;
    return m;
  }
  if (prt && !mshr) {
    const Interval b = observed_bounds(series, [](const RequestSeries& s, double t) { return prt_entries(s, t); }, p);
    m.design = "prt";
    m.entries_lo = b.lo;
    m.entries_hi = b.hi;
    m.max_outstanding = 32 * b.lo;
    return m;
  }
  m.design.clear();
  m.reason = mshr ? "both an MSHR table and a PRT explain the saturation thread counts (merge patterns that "
                    "saturate would tell them apart)"
                  : "neither an MSHR table nor a PRT explains the saturation thread counts of every series";
  return m;
}

// ---------- the topology section ----------
namespace {

int merge_of(const std::string& pattern) {
  if (pattern.rfind("merge", 0) == 0) {
    try {
      return std::stoi(pattern.substr(5));
    } catch (...) {
    }
  }
  return 1;
}

constexpr std::size_t kStepsListed = 16;  // a staircase lists its first steps (steps_total counts all)

json series_json(const RequestSeries& r, const SpikeAnalysis& a, const std::vector<double>& lat, const SeriesRamp& ramp) {
  json steps = json::array(), ser = json::array();
  for (std::size_t k = 0; k < a.steps.size(); ++k) {
    json s = {{"threads_before", a.steps[k].threads_before}, {"rise_cycles", a.steps[k].rise}};
    if (a.steps[k].mode_change) s["mode_change"] = true;
    if (k < kStepsListed) steps.push_back(s);
    if (a.saturation >= 0 && static_cast<int>(k) < a.saturation) ser.push_back(s);
  }
  return {{"benchmark", r.benchmark}, {"pattern", r.pattern}, {"loads", r.loads}, {"steps_total", a.steps.size()},
          {"saturation_threads", r.t_star < 0 ? json(nullptr) : json(r.t_star)}, {"threads_max", r.t_max},
          {"steps", steps}, {"serialization_steps", ser}, {"noise_cycles", a.noise_cycles},
          {"knee_threads", a.knee_threads < 0 ? json(nullptr) : json(a.knee_threads)},
          {"first_latency_cycles", lat.front()}, {"max_latency_cycles", *std::max_element(lat.begin(), lat.end())},
          {"source", ramp.source}, {"ramp_cycles_per_thread", ramp.slope}, {"ramp_r2", ramp.r2}};
}

// The per-warp probe: limit and its trace.
void probe_json(const Dataset& data, json& o) {
  for (std::size_t r = 0; r < data.runs().size(); ++r)
    for (const BenchEntry* e : data.runs()[r].family("outstanding_requests")) {
      if (e->params.get_or("probe", "") != "warp_loads") continue;
      Evidence ev;
      ev.add(e->params.str());
      const bool reached = e->counter("warp_load_limit_reached", 0) > 0;
      set_value(o, "warp_load_limit", e->counter("warp_load_limit", 0), reached ? 0.8 : 0.5, ev,
                reached ? "the last load count before a second round trip (one thread, independent loads)"
                        : "no second round trip up to this count: a lower bound");
      o["warp_load_limit_reached"] = reached;
      return;
    }
  set_null(o, "warp_load_limit", "no outstanding_requests/probe:warp_loads entry");
}

}  // namespace

namespace {

// One series from its trace: the spikes and what the classifier needs, and its ramp.
RequestSeries read_series(const BenchEntry& e, const Trace& t, json& listed, std::vector<SeriesRamp>& ramps) {
  std::vector<double> th(t.index.begin(), t.index.end()), lat(t.latency.begin(), t.latency.end());
  double switch_after = -1;  // the last one-CTA thread count when the series goes on with two
  if (t.meta.count("two_cta_from"))
    for (std::size_t i = 1; i < th.size(); ++i)
      if (th[i] == std::atof(t.meta.at("two_cta_from").c_str())) switch_after = th[i - 1];
  const SpikeAnalysis a = detect_spikes(th, lat, switch_after);
  RequestSeries s;
  s.benchmark = e.params.str();
  s.pattern = e.params.get_or("pattern", "");
  s.loads = static_cast<int>(e.params.get_int_or("loads", 1));
  s.merge = merge_of(s.pattern);
  s.step_threads = th.size() > 1 ? th[1] - th[0] : 2;
  s.t_max = th.back();
  s.t_star = a.saturation_threads();
  s.source = e.params.get_or("source", "l2");
  SeriesRamp ramp;
  ramp.benchmark = s.benchmark;
  ramp.pattern = s.pattern;
  ramp.loads = s.loads;
  ramp.source = s.source;
  pattern_units(s.pattern, &ramp.threads_per_line, &ramp.threads_per_sector);
  if (fit_series_ramp(th, lat, &ramp)) ramps.push_back(ramp);
  listed.push_back(series_json(s, a, lat, ramp));
  return s;
}

int max_merge(const std::vector<RequestSeries>& series) {
  int k = 1;
  for (const auto& s : series) k = std::max(k, s.merge);
  return k;
}

// No series saturated: the ramps' cost unit names the design (lines or sectors: requests booked per
// unique address, MSHR-like; warp instructions: PRT-like), the DRAM comparison tells a rate from a
// table, and Little's law turns the rate into requests in flight (docs/methodology.md).
void apply_ramp(const RampFit& rf, const SourceVerdict& sv, int merge_max, int stepped, DesignFit& f) {
  if (!rf.ok) return;  // too few series: the saturation path's reason stands
  if (rf.chosen < 0) {
    if (stepped == 0) f.reason = "no saturation step in any series; the latency ramps from the first warps, and " + rf.reason;
    return;  // with steps no table explains, that reason stands
  }
  const std::string none = stepped == 0 ? "no saturation step in any series; the latency ramps from the first warps"
                                        : "no table explains the steps of " + std::to_string(stepped) +
                                              " series; the latency of every series ramps from the first warps";
  f.max_outstanding = 0;
  f.max_is_lower_bound = false;
  const UnitModel& u = rf.models[rf.chosen];
  const bool prt = u.unit == "instruction";
  const double per = prt ? u.per_instruction : u.per_unit;  // cycles per request of the unit
  f.design = prt ? "prt" : "mshr";
  f.basis = "ramp";
  f.unit = prt ? "" : u.unit;
  if (!prt) {
    f.merge_lo = f.merge_hi = merge_max;
    f.merge_is_lower_bound = true;
  }
  if (sv.limit == "entry_table" && per > 0) {
    f.entries_lo = f.entries_hi = std::round(sv.latency_l2 / per);  // slope = latency / entries
    f.max_outstanding = prt ? 32 * f.entries_lo : f.entries_lo;
    return;
  }
  f.entries_reason = none + " (" + std::to_string(per) + " cycles per " + (prt ? "warp load instruction" : u.unit) +
                     "): no entry table filled";
  if (sv.limit == "issue_rate" && per > 0) {
    f.max_outstanding = std::floor(sv.latency_dram / per);  // Little's law at the DRAM latency
    f.max_is_lower_bound = true;
    f.reason = "the DRAM ramps keep the L2 ramps' slope (an issue rate of one " + u.unit + " per " + std::to_string(per) +
               " cycles, not a table): at the DRAM latency of " + std::to_string(sv.latency_dram) +
               " cycles that many requests are in flight at once (Little's law)";
  } else {
    f.reason = none + "; " + (sv.reason.empty() ? "the DRAM comparison decided nothing" : sv.reason);
  }
}

json ramp_json(const RampFit& rf, const SourceVerdict& sv) {
  json models = json::array();
  for (const auto& m : rf.models)
    models.push_back({{"unit", m.unit}, {"per_thread_cycles", m.per_thread}, {"per_instruction_cycles", m.per_instruction},
                      {"per_unit_cycles", m.per_unit}, {"rms_relative", m.rms_relative}, {"worst_relative", m.worst_relative}});
  json pairs = json::array();
  for (const auto& p : sv.pairs)
    pairs.push_back({{"dram", p.benchmark_dram}, {"l2", p.benchmark_l2}, {"slope_ratio", p.slope_ratio}, {"latency_ratio", p.latency_ratio}});
  json j = {{"series", rf.series}, {"models", models},
            {"unit", rf.chosen >= 0 ? json(rf.models[rf.chosen].unit) : json(nullptr)},
            {"source_comparison", {{"limit", sv.limit.empty() ? json(nullptr) : json(sv.limit)}, {"pairs", pairs},
                                   {"latency_l2_cycles", std::isfinite(sv.latency_l2) ? json(sv.latency_l2) : json(nullptr)},
                                   {"latency_dram_cycles", std::isfinite(sv.latency_dram) ? json(sv.latency_dram) : json(nullptr)}}}};
  if (rf.chosen < 0) j["reason"] = rf.reason;
  if (!sv.reason.empty()) j["source_comparison"]["reason"] = sv.reason;
  return j;
}

void put_design(const DesignFit& f, json& o) {
  Evidence ev;
  for (const auto& n : f.evidence) ev.add(n);
  const double conf = f.design.empty() ? 0 : (f.models_fitting.size() == 1 ? 0.8 : 0.6);
  if (f.design.empty()) {
    for (const char* k : {"design", "entries_per_sm", "merge_capacity"}) set_null(o, k, f.reason, ev);
  } else {
    const bool ramp = f.basis == "ramp";
    set_value(o, "design", f.design, ramp ? 0.6 : conf, ev,
              ramp ? (f.design == "mshr" ? "no saturation step; the latency ramps by a fixed cost per unique " + f.unit +
                                               " (whatever the lanes per address), not per warp load instruction"
                                         : "no saturation step; the latency ramps by a fixed cost per warp load instruction")
                   : f.design == "mshr" ? "saturation tracks unique requests (threads x loads / merge)"
                                        : "saturation tracks warp load instructions, whatever the pattern");
    o["design_basis"] = f.basis;
    if (f.entries_lo > 0) {
      set_value(o, "entries_per_sm", f.entries_lo, ramp ? 0.5 : conf, ev,
                ramp ? "Little's law: the L2 latency over the ramp's cycles per request (the DRAM slope follows the latency)"
                     : "interval of entry counts consistent with every series: [" + std::to_string(f.entries_lo) + ", " +
                           std::to_string(f.entries_hi) + "]" + (f.design == "mshr" ? ", counted in " + f.unit + "s" : ""));
      o["entries_per_sm_range"] = {f.entries_lo, f.entries_hi};
    } else {
      set_null(o, "entries_per_sm", f.entries_reason, ev);
    }
    if (f.design == "mshr") {
      set_value(o, "merge_capacity", f.merge_lo, conf, ev,
                f.merge_is_lower_bound ? "every merge<K> series up to K = " + std::to_string(f.merge_hi) +
                                             " costs one request per K lanes: a lower bound"
                : f.merge_hi > f.merge_lo ? "every capacity from " + std::to_string(f.merge_lo) + " to " +
                                              std::to_string(f.merge_hi) + " threads per entry fits: a lower bound"
                                        : "threads merged into one entry");
      o["merge_capacity_range"] = {f.merge_lo, f.merge_hi};
      o["merge_capacity_is_lower_bound"] = f.merge_is_lower_bound;
      o["request_unit"] = f.unit;
    } else {
      set_null(o, "merge_capacity", "a PRT entry holds a whole warp instruction (no per-entry merging)", ev);
    }
  }
  if (f.max_outstanding > 0)
    set_value(o, "max_outstanding_requests_per_sm", f.max_outstanding, f.max_is_lower_bound ? 0.5 : conf, ev,
              f.max_is_lower_bound ? "a lower bound: " + f.reason
                                   : (f.design == "prt" ? "entries x 32 thread requests (002 §5.2)" : "unique requests"));
  else
    set_null(o, "max_outstanding_requests_per_sm", f.reason, ev);
  o["max_outstanding_is_lower_bound"] = f.max_is_lower_bound;
  o["models_fitting"] = f.models_fitting;
}

}  // namespace

json outstanding_section(const Dataset& data) {
  json o = json::object();
  std::vector<RequestSeries> series;
  std::vector<SeriesRamp> ramps;
  json listed = json::array(), skipped = json::array();
  for (std::size_t r = 0; r < data.runs().size(); ++r)
    for (const BenchEntry* e : data.runs()[r].family("outstanding_requests")) {
      if (!e->params.has("pattern")) continue;
      const Trace* t = e->counter("beyond_warp_limit", 0) > 0 ? nullptr : data.trace(*e, r);
      if (!t || t->index.size() < 6) {
        skipped.push_back(e->params.str() + (e->counter("beyond_warp_limit", 0) > 0 ? " (beyond the warp load limit)" : " (no trace)"));
        continue;
      }
      series.push_back(read_series(*e, *t, listed, ramps));
    }
  probe_json(data, o);
  if (series.empty()) return nullptr;
  std::vector<RequestSeries> l2;  // the saturation classification reads the L2 series
  std::copy_if(series.begin(), series.end(), std::back_inserter(l2), [](const RequestSeries& r) { return r.source == "l2"; });
  DesignFit f = classify_design(l2.empty() ? series : l2);
  if (f.design.empty()) {  // no table explains the steps, or there are none: the ramps may
    const int stepped = static_cast<int>(std::count_if(l2.begin(), l2.end(), [](const RequestSeries& r) { return r.t_star >= 0; }));
    const RampFit rf = fit_ramp_units(ramps);
    const SourceVerdict sv = compare_sources(ramps);
    apply_ramp(rf, sv, max_merge(series), stepped, f);
    o["ramp"] = ramp_json(rf, sv);
    o["ramp"]["series_with_steps"] = stepped;
  }
  put_design(f, o);
  o["littles_law"] = littles_law_section(ramps);
  o["series"] = listed;
  o["series_skipped"] = skipped;
  return o;
}

}  // namespace memhier::analysis
