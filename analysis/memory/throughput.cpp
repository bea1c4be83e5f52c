// Throughput, bank-conflict and warp-access sections of the topology report. Every number comes
// from the benchmark entries; a section that cannot be filled is null with the reason.
#include "analysis/memory/throughput.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "analysis/memory/throughput_fit.hpp"

namespace memhier::analysis {
namespace {

using json = nlohmann::json;

// Fraction of a peak counted as "reaching" it (saturation, Little's law view).
constexpr double kSaturated = 0.90;
// Relative difference above which two warp-access latencies count as different (004's findings).
constexpr double kWarpTolerance = 0.25;

// One configuration: its parameters and the median of each counter over the runs/repetitions.
struct Point {
  std::string run_name;
  BenchName params;
  std::map<std::string, double> c;
  double get(const std::string& k, double fb = NAN) const {
    auto it = c.find(k);
    return it == c.end() ? fb : it->second;
  }
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::vector<Point> collect(const std::vector<BenchRun>& runs, const std::string& fam) {
  std::map<std::string, std::pair<BenchName, std::map<std::string, std::vector<double>>>> acc;
  std::vector<std::string> order;
  for (const auto& r : runs)
    for (const BenchEntry* e : r.family(fam)) {
      auto it = acc.find(e->run_name);
      if (it == acc.end()) {
        order.push_back(e->run_name);
        it = acc.emplace(e->run_name, std::make_pair(e->params, std::map<std::string, std::vector<double>>{})).first;
      }
      for (const auto& [k, v] : e->counters) it->second.second[k].push_back(v);
    }
  std::vector<Point> out;
  for (const auto& name : order) {
    Point p{name, acc[name].first, {}};
    for (const auto& [k, vs] : acc[name].second) p.c[k] = median(vs);
    out.push_back(std::move(p));
  }
  return out;
}

double context_number(const std::vector<BenchRun>& runs, const std::string& key) {
  for (const auto& r : runs) {
    const std::string v = r.context_or(key);
    if (v.empty()) continue;
    try {
      return std::stod(v);
    } catch (...) {
    }
  }
  return NAN;
}

std::string fmt(double v, int prec = 1);

json null_with(const std::string& reason) { return json{{"value", nullptr}, {"reason", reason}}; }

json params_json(const BenchName& b) {
  json j = json::object();
  for (const auto& [k, v] : b.params()) {
    try {
      std::size_t pos = 0;
      long long x = std::stoll(v, &pos);
      if (pos == v.size()) {
        j[k] = x;
        continue;
      }
    } catch (...) {
    }
    j[k] = v;
  }
  return j;
}

const Point* best_of(const std::vector<const Point*>& ps, const std::string& key) {
  const Point* b = nullptr;
  for (const Point* p : ps) {
    const double v = p->get(key);
    if (std::isfinite(v) && (!b || v > b->get(key))) b = p;
  }
  return b;
}

// The least-occupancy configuration reaching kSaturated of `peak`: by bytes in flight per SM
// (threads x ilp x width), then warps per SM.
json saturation(const std::vector<const Point*>& ps, const std::string& key, double peak, double latency_hint_s) {
  const Point* s = nullptr;
  for (const Point* p : ps) {
    if (!(p->get(key) >= kSaturated * peak)) continue;
    auto better = [&](const Point* a, const Point* b) {
      const double fa = a->get("bytes_in_flight_per_sm", 1e300), fb = b->get("bytes_in_flight_per_sm", 1e300);
      return fa != fb ? fa < fb : a->get("warps_per_sm", 1e300) < b->get("warps_per_sm", 1e300);
    };
    if (!s || better(p, s)) s = p;
  }
  if (!s) return null_with("no configuration reached 90% of the peak");
  json j;
  j["threshold_pct_of_peak"] = kSaturated * 100;
  j["benchmark"] = s->run_name;
  j["configuration"] = params_json(s->params);
  j[key] = s->get(key);
  if (std::isfinite(s->get("warps_per_sm"))) j["warps_per_sm"] = s->get("warps_per_sm");
  if (std::isfinite(s->get("bytes_in_flight_per_sm"))) {
    j["bytes_in_flight_per_sm"] = s->get("bytes_in_flight_per_sm");
    // Little's law: latency = bytes in flight / throughput (per SM).
    if (latency_hint_s > 0) j["littles_law_latency_seconds"] = latency_hint_s;
  }
  return j;
}

// ---------- global memory ----------
void global_section(const std::vector<BenchRun>& runs, json& topo) {
  auto pts = collect(runs, "gmem_throughput");
  json& g = topo["global_memory"];
  if (!g.is_object()) g = json::object();
  const double theo = context_number(runs, "theoretical_dram_bytes_per_second");
  const double sms = context_number(runs, "sm_count");  // NaN when the context lacks it
  if (std::isfinite(theo) && theo > 0)
    g["theoretical_bytes_per_second"] = theo;
  else
    g["theoretical_bytes_per_second"] = nullptr, g["theoretical_reason"] = "no theoretical_dram_bytes_per_second in the context";
  json through = json::object();
  for (const char* kind : {"read", "write", "copy"}) {
    const std::string key = std::string("peak_") + kind + "_bytes_per_second";
    std::vector<const Point*> ps;
    for (const auto& p : pts)
      if (p.params.get_or("kind", "") == kind) ps.push_back(&p);
    const Point* b = best_of(ps, "bytes_per_second");
    if (!b) {
      g[key] = nullptr;
      through[kind] = null_with(std::string("no gmem_throughput/kind:") + kind + " entries");
      continue;
    }
    const double bps = b->get("bytes_per_second");
    g[key] = bps;
    json k;
    k["bytes_per_second"] = bps;
    k["pct_of_theoretical"] = std::isfinite(theo) && theo > 0 ? json(100.0 * bps / theo) : json(nullptr);
    k["benchmark"] = b->run_name;
    k["configuration"] = params_json(b->params);
    double lat = 0;
    // Little's law: the saturating configuration's bytes in flight over the peak gives the loaded
    // latency the hardware hides.
    json sat = saturation(ps, "bytes_per_second", bps, 0);
    if (sat.contains("bytes_in_flight_per_sm") && sms > 0) {
      const double fl = sat["bytes_in_flight_per_sm"].get<double>() * sms * (std::string(kind) == "copy" ? 2 : 1);
      lat = fl / sat["bytes_per_second"].get<double>();
      sat["littles_law_latency_seconds"] = lat;
    }
    k["saturation"] = sat;
    // 004's data-type study: the best bandwidth per access width.
    json by_w = json::object();
    for (const Point* p : ps) {
      const std::string w = p->params.get_or("width", "?");
      if (!by_w.contains(w) || by_w[w].get<double>() < p->get("bytes_per_second")) by_w[w] = p->get("bytes_per_second");
    }
    k["best_bytes_per_second_by_width"] = by_w;
    through[kind] = k;
  }
  g["throughput"] = through;
}

// ---------- L1 / L2 ----------
// Entries whose lines are read by several SMs at about the same time (l2_throughput share:G,
// overlap:K, layout:all): the L2 side merges such requests before the cache slices (ncu on the
// H100: fewer lts sectors than bytes requested), so they measure delivery of shared lines, not the
// rate at which the slices serve distinct lines. Kept out of the curve and the peak, reported apart.
// layout:peer (gpu-benches' pattern) reads each chunk from several resident blocks at once, except
// its rotated variant, whose readers of a chunk start rows apart (no line read by two blocks at the
// same time: one reader per line per round); layouts that state their own readers (counter
// readers_per_line, layout:oneshot) are shared above one.
bool shared_lines(const Point& p) {
  const bool peer_concurrent =
      p.params.get_or("layout", "") == "peer" && p.params.get_or("variant", "") != "rotated";
  return p.params.get_int_or("share", 1) > 1 || p.params.get_int_or("overlap", 1) > 1 ||
         p.params.get_or("layout", "") == "all" || peer_concurrent || p.get("readers_per_line", 1) > 1.01;
}

// How many CTAs read each line of the working set per round (l2_throughput's tile arithmetic,
// bench/families/l2_throughput.hpp cached_window): share x window / tile, where a window is at
// least one CTA step (cta_size x ilp vectors) and so spans several tiles for small working sets;
// layout:all: every CTA. NaN without the SM count or the parameters.
double readers_per_line(const Point& p, double sms) {
  if (std::isfinite(p.get("readers_per_line"))) return p.get("readers_per_line");  // stated by the layout
  const double n = static_cast<double>(p.params.get_int_or("bytes", -1)) / 16;
  const double cta = static_cast<double>(p.params.get_int_or("cta_size", -1));
  const double ctas = static_cast<double>(p.params.get_int_or("ctas", -1));
  const double ilp = static_cast<double>(p.params.get_int_or("ilp", -1));
  if (!(sms > 0) || n <= 0 || cta <= 0 || ctas <= 0 || ilp <= 0) return NAN;
  const double grid = ctas * sms;
  if (p.params.get_or("layout", "") == "all") return grid;
  const double share = static_cast<double>(std::max<std::int64_t>(1, p.params.get_int_or("share", 1)));
  const double overlap = static_cast<double>(std::max<std::int64_t>(1, p.params.get_int_or("overlap", 1)));
  const double tile = std::floor(n / std::max(1.0, std::floor(grid / share)));
  if (tile <= 0) return NAN;
  const double window = std::min(n, std::max(tile * overlap, cta * ilp));
  return share * window / tile;
}

// The best L2 point whose lines are read by exactly one CTA per round (readers per line 1): the
// distinct-line rate, named apart from the curve's peak (whose small working sets can have several
// readers per line) and from shared_lines.
json one_reader_peak(const std::vector<Point>& pts, double sms) {
  const Point* best = nullptr;
  for (const auto& p : pts) {
    const double r = readers_per_line(p, sms);
    if (!shared_lines(p) && std::isfinite(r) && r <= 1.01 && std::isfinite(p.get("bytes_per_second")) &&
        (!best || p.get("bytes_per_second") > best->get("bytes_per_second")))
      best = &p;
  }
  if (!best) return null_with("no l2_throughput entry with one reader per line");
  return {{"peak_bytes_per_second", best->get("bytes_per_second")},
          {"peak_bytes_per_clock_per_sm", best->get("bytes_per_clock_per_sm", NAN)},
          {"bytes", static_cast<double>(best->params.get_int_or("bytes", -1))}, {"benchmark", best->run_name},
          {"configuration", params_json(best->params)},
          {"note", "each line read by one CTA per round (distinct lines); compare gpu-benches' gpu-l2-cache only "
                   "with care: it reads each chunk from several resident blocks"}};
}

// The peak of a cache's curve against the theoretical bytes per clock per SM (when one is known).
void peak_fields(const Point& peak, double peak_bpc, const std::string& peak_source, json& j) {
  j["peak_bytes_per_second"] = peak.get("bytes_per_second");
  j["peak_bytes_per_clock_per_sm"] = peak.get("bytes_per_clock_per_sm", NAN);
  j["peak_bytes_per_clock"] = peak.get("bytes_per_clock", NAN);
  j["sm_clock_mhz"] = peak.get("sm_clock_mhz", NAN);
  j["peak_benchmark"] = peak.run_name;
  j["peak_configuration"] = params_json(peak.params);
  if (peak_bpc > 0 && std::isfinite(peak.get("bytes_per_clock_per_sm"))) {
    j["pct_of_peak"] = 100.0 * peak.get("bytes_per_clock_per_sm") / peak_bpc;
    j["theoretical_bytes_per_clock_per_sm"] = peak_bpc;
    j["theoretical_source"] = peak_source;
  } else {
    j["pct_of_peak"] = nullptr;
    j["pct_of_peak_reason"] = peak_source;
  }
}

// The best configuration whose lines several SMs read at once, against the distinct-line peak.
// `readers`: the readers per line to state (L2 only).
json shared_lines_peak(const Point& b, const Point& peak, const std::optional<json>& readers) {
  json s;
  s["peak_bytes_per_second"] = b.get("bytes_per_second");
  s["peak_bytes_per_clock_per_sm"] = b.get("bytes_per_clock_per_sm", NAN);
  s["bytes"] = static_cast<double>(b.params.get_int_or("bytes", -1));
  s["benchmark"] = b.run_name;
  s["configuration"] = params_json(b.params);
  if (readers) s["readers_per_line"] = *readers;
  s["ratio_to_distinct_peak"] = b.get("bytes_per_second") / peak.get("bytes_per_second");
  s["note"] = "lines read by several SMs at about the same time; requests for one line can be merged before the "
              "cache slices, so this is delivery of shared lines, not the slices' rate for distinct lines";
  return s;
}

// Steps below the cache size: a second plateau before the capacity (a partitioned cache).
json plateau_steps(const std::vector<Plateau>& plats, const std::vector<double>& xs, double cache_bytes) {
  json steps = json::array();
  for (std::size_t i = 1; i < plats.size(); ++i)
    steps.push_back({{"after_bytes", xs[plats[i - 1].last]}, {"before_bytes", xs[plats[i].first]},
                     {"fraction_of_cache", xs[plats[i].first] / cache_bytes},
                     {"ratio", plats[i].level / plats[i - 1].level}});
  return steps;
}

json cache_section(const std::vector<BenchRun>& runs, const std::string& fam, double cache_bytes, double peak_bpc,
                   const std::string& peak_source) {
  const double sms = fam == "l2_throughput" ? context_number(runs, "sm_count") : NAN;
  auto readers = [&](const Point* p) { const double r = readers_per_line(*p, sms); return std::isfinite(r) ? json(r) : json(nullptr); };
  auto all_pts = collect(runs, fam);
  if (all_pts.empty()) return null_with("no " + fam + " entries");
  std::vector<Point> pts, shared;
  for (auto& p : all_pts) (shared_lines(p) ? shared : pts).push_back(std::move(p));
  if (pts.empty()) pts.swap(shared);  // only shared-line entries: they are all there is
  // The curve: for each working set, the best configuration.
  std::map<double, const Point*> curve;
  for (const auto& p : pts) {
    const double b = static_cast<double>(p.params.get_int_or("bytes", -1));
    if (b <= 0 || !std::isfinite(p.get("bytes_per_second"))) continue;
    auto it = curve.find(b);
    if (it == curve.end() || it->second->get("bytes_per_second") < p.get("bytes_per_second")) curve[b] = &p;
  }
  if (curve.empty()) return null_with(fam + " entries carry no bytes parameter or bandwidth");
  std::vector<double> xs, ys;
  json jc = json::array();
  for (const auto& [b, p] : curve) {
    xs.push_back(b);
    ys.push_back(p->get("bytes_per_second"));
    jc.push_back({{"bytes", b}, {"bytes_per_second", p->get("bytes_per_second")},
                  {"bytes_per_clock_per_sm", p->get("bytes_per_clock_per_sm", 0)}, {"benchmark", p->run_name}});
    if (fam == "l2_throughput") jc.back()["readers_per_line"] = readers(p);
  }
  json j;
  j["curve"] = jc;
  auto plats = find_plateaus(ys);
  json jp = json::array();
  for (const auto& pl : plats)
    jp.push_back({{"from_bytes", xs[pl.first]}, {"to_bytes", xs[pl.last]}, {"bytes_per_second", pl.level}});
  j["plateaus"] = jp;
  // The on-chip peak: the best point on the first plateau (the working set that fits).
  const Point* peak = nullptr;
  for (std::size_t i = plats[0].first; i <= plats[0].last; ++i) {
    const Point* p = curve[xs[i]];
    if (!peak || p->get("bytes_per_second") > peak->get("bytes_per_second")) peak = p;
  }
  // The peak is the best of every configuration and working set (a working set that does not fit
  // can only be slower); saturation is judged at the peak's working set.
  std::vector<const Point*> all;
  for (const auto& p : pts) all.push_back(&p);
  if (const Point* b = best_of(all, "bytes_per_second")) peak = b;
  std::vector<const Point*> in_first;
  for (const auto& p : pts)
    if (p.params.get_int_or("bytes", -1) == peak->params.get_int_or("bytes", -2)) in_first.push_back(&p);
  peak_fields(*peak, peak_bpc, peak_source, j);
  if (fam == "l2_throughput") j["peak_readers_per_line"] = readers(peak);
  j["saturation"] = saturation(in_first, "bytes_per_second", peak->get("bytes_per_second"), 0);
  std::vector<const Point*> sh;
  for (const auto& p : shared) sh.push_back(&p);
  if (const Point* b = best_of(sh, "bytes_per_second"))
    j["shared_lines"] = shared_lines_peak(*b, *peak, fam == "l2_throughput" ? std::optional<json>(readers(b)) : std::nullopt);
  if (fam == "l2_throughput") {
    std::vector<Point> every = pts;  // all_pts was moved into pts and shared above
    every.insert(every.end(), shared.begin(), shared.end());
    j["one_reader_per_line"] = one_reader_peak(every, sms);
  }
  // Steps below the cache size: a second plateau before the capacity (a partitioned cache).
  if (cache_bytes > 0) {
    j["cache_bytes"] = cache_bytes;
    j["steps"] = plateau_steps(plats, xs, cache_bytes);
  }
  return j;
}

void l2_section(const std::vector<BenchRun>& runs, json& topo) {
  const double l2 = context_number(runs, "l2_cache_bytes");
  json j = cache_section(runs, "l2_throughput", std::isfinite(l2) ? l2 : 0, 0,
                         "NVIDIA documents no L2 bandwidth; none to compare with");
  if (j.contains("steps") && std::isfinite(l2)) {
    // Partitioned L2 (two halves, each closer to half the SMs): a bandwidth drop once the working
    // set outgrows one half, i.e. a step between 35 % and 65 % of the L2 size. Other steps inside
    // the L2 are reported as inner steps, without an interpretation.
    json part;
    json inner = json::array();
    const json* half = nullptr;
    for (const auto& s : j["steps"]) {
      const double at = s["before_bytes"].get<double>();
      if (at >= 0.95 * l2 || s["ratio"].get<double>() >= 1) continue;
      inner.push_back(s);
      const double f = s["after_bytes"].get<double>() / l2, g = at / l2;
      if (!half && g >= 0.35 && f <= 0.65) half = &s;
    }
    part["inner_steps"] = inner;
    if (half) {
      part["partitioned"] = true;
      part["near_partition_bytes"] = (*half)["after_bytes"];
      part["fraction_of_l2"] = (*half)["after_bytes"].get<double>() / l2;
      part["far_to_near_bandwidth_ratio"] = (*half)["ratio"];
      part["evidence"] = "bandwidth drops by a factor " + fmt((*half)["ratio"].get<double>(), 2) +
                         " between working sets of " + fmt((*half)["after_bytes"].get<double>() / 1048576, 1) + " and " +
                         fmt((*half)["before_bytes"].get<double>() / 1048576, 1) + " MiB, about half of the L2";
    } else {
      part["partitioned"] = nullptr;
      part["evidence"] = std::string("not determined: no bandwidth step near half of the L2") +
                         (inner.empty() ? "" : " (other steps inside the L2: see inner_steps)");
    }
    j["partition"] = part;
  }
  topo["l2_bandwidth"] = j;
}

// ---------- shared memory ----------
// The fitted bank-conflict law as the topology states it.
json bank_law_json(const BankLawFit& f, std::size_t n_samples) {
  json law;
  law["model"] =
      "latency = base[width] + per_wavefront x (wavefronts - 1); wavefronts = sum over phases of banks x bank_width "
      "bytes of the busiest bank's distinct words (4-byte words: gcd(stride, banks))";
  law["base_cycles"] = f.base_cycles;
  json bw = json::object();
  for (const auto& [w, v] : f.base_by_width) bw[std::to_string(w)] = v;
  law["base_cycles_by_width"] = bw;
  law["cycles_per_wavefront"] = f.cycles_per_wavefront;
  law["rms_residual_cycles"] = f.rms_residual;
  law["r2"] = f.r2;
  law["runner_up_rms_residual_cycles"] = f.runner_up_rms;
  law["samples"] = n_samples;
  json dep = json::array();
  for (const auto& d : f.departures)
    dep.push_back({{"width", d.width_bytes}, {"stride", d.stride}, {"measured_cycles", d.measured},
                   {"predicted_cycles", d.predicted}, {"wavefronts", d.wavefronts}});
  law["departures"] = dep;
  return law;
}

// Shared-memory throughput: the best configuration against banks x bank width (when fitted).
void smem_throughput_fields(const std::vector<BenchRun>& runs, double banks, double bank_width, json& s) {
  auto tp = collect(runs, "smem_throughput");
  std::vector<const Point*> ps;
  for (const auto& p : tp) ps.push_back(&p);
  const Point* b = best_of(ps, "bytes_per_clock_per_sm");
  if (!b) {
    s["peak_bytes_per_clock_per_sm"] = nullptr;
    s["throughput"] = null_with("no smem_throughput entries");
    return;
  }
  const double bpc = b->get("bytes_per_clock_per_sm");
  s["peak_bytes_per_clock_per_sm"] = bpc;
  json t;
  t["bytes_per_clock_per_sm"] = bpc;
  t["bytes_per_second"] = b->get("bytes_per_second", NAN);
  t["benchmark"] = b->run_name;
  t["configuration"] = params_json(b->params);
  if (std::isfinite(banks)) {
    t["theoretical_bytes_per_clock_per_sm"] = banks * bank_width;
    t["pct_of_peak"] = 100.0 * bpc / (banks * bank_width);
    t["theoretical_source"] = "banks x bank width fitted from smem_bank_conflict";
  } else {
    t["pct_of_peak"] = nullptr;
    t["pct_of_peak_reason"] = "bank count and width not determined";
  }
  json sat = saturation(ps, "bytes_per_clock_per_sm", bpc, 0);
  if (sat.contains("warps_per_sm") && s.contains("latency_cycles") && s["latency_cycles"].is_number()) {
    // Little's law (000 §6.1): warps x ILP needed = latency x throughput / bytes per warp access.
    const double lat = s["latency_cycles"].get<double>();
    sat["littles_law_bytes_in_flight_per_sm"] = lat * bpc;
  }
  t["saturation"] = sat;
  s["throughput"] = t;
}

void shared_section(const std::vector<BenchRun>& runs, json& topo) {
  json& s = topo["shared_memory"];
  if (!s.is_object()) s = json::object();
  auto bank = collect(runs, "smem_bank_conflict");
  std::vector<StrideSample> samples;
  json by = json::object();
  for (const auto& p : bank) {
    const auto w = p.params.get_int("width");
    const auto st = p.params.get_int("stride");
    const double lat = p.get("latency_cycles");
    if (!w || !st || !std::isfinite(lat)) continue;
    samples.push_back({static_cast<int>(*w), *st, lat});
    by[std::to_string(*w)][std::to_string(*st)] = lat;
  }
  double banks = NAN, bank_width = NAN;
  if (samples.empty()) {
    s["latency_by_stride"] = nullptr;
    s["banks"] = nullptr;
    s["bank_width_bytes"] = nullptr;
    s["conflict_law"] = null_with("no smem_bank_conflict entries");
  } else {
    s["latency_by_stride"] = by;
    for (const auto& x : samples)
      if (x.width_bytes == 4 && x.stride == 1) s["latency_cycles"] = x.latency_cycles;
    BankLawFit f = fit_bank_law(samples);
    if (!f.ok) {
      s["banks"] = nullptr;
      s["bank_width_bytes"] = nullptr;
      s["conflict_law"] = null_with(f.reason);
    } else {
      banks = f.banks;
      bank_width = f.bank_width_bytes;
      s["banks"] = f.banks;
      s["bank_width_bytes"] = f.bank_width_bytes;
      s["conflict_law"] = bank_law_json(f, samples.size());
    }
  }
  smem_throughput_fields(runs, banks, bank_width, s);
}

void l1_section(const std::vector<BenchRun>& runs, json& topo) {
  double peak = NAN;
  std::string src = "bank count and width not determined (smem_bank_conflict)";
  const json& s = topo["shared_memory"];
  if (s.is_object() && s.contains("banks") && s["banks"].is_number() && s["bank_width_bytes"].is_number()) {
    peak = s["banks"].get<double>() * s["bank_width_bytes"].get<double>();
    src = "banks x bank width fitted from smem_bank_conflict (the L1 and shared memory are one array)";
  }
  topo["l1_bandwidth"] = cache_section(runs, "l1_throughput", 0, std::isfinite(peak) ? peak : 0, src);
}

// ---------- warp access ----------
void warp_section(const std::vector<BenchRun>& runs, json& topo) {
  auto pts = collect(runs, "warp_access");
  if (pts.empty()) {
    topo["warp_access"] = null_with("no warp_access entries");
    return;
  }
  json w = json::object();
  std::map<std::string, std::map<std::string, double>> lat;
  for (const auto& p : pts) {
    std::string pat = p.params.get_or("pattern", "?");
    if (p.params.has("stride")) pat += "_" + p.params.get_or("stride", "");
    lat[p.params.get_or("memory", "?")][pat] = p.get("latency_cycles");
  }
  auto has = [](const std::map<std::string, double>& m, const std::string& k) {
    return m.count(k) && std::isfinite(m.at(k));
  };
  for (const auto& [mem, m] : lat) {
    json j;
    json l = json::object();
    for (const auto& [k, v] : m) l[k] = v;
    j["latency_cycles"] = l;
    if (mem == "register" || mem == "local") {
      w[mem] = j;
      continue;
    }
    const auto& lat_of = m;  // a lambda may not capture a structured binding in C++17 (clang refuses)
    auto verdict = [&](const std::string& a, const std::string& b, bool a_slow_means_no) -> json {
      const auto& m = lat_of;
      if (!has(m, a) || !has(m, b)) return nullptr;
      const bool slow = m.at(a) > (1 + kWarpTolerance) * m.at(b);
      return a_slow_means_no ? !slow : slow;
    };
    j["broadcasts"] = verdict("broadcast", "parallel", true);
    j["serves_parallel"] = verdict("parallel", "broadcast", true);
    j["needs_alignment"] = verdict("misaligned", "parallel", false);
    j["needs_contiguity"] = verdict("permuted", "parallel", false);
    json ratios = json::object();
    if (has(m, "parallel") && m.at("parallel") > 0)
      for (const auto& [k, v] : m) ratios[k] = v / m.at("parallel");
    j["ratio_to_parallel"] = ratios;
    w[mem] = j;
  }
  if (lat.count("register") && lat.count("local") && has(lat["register"], "private") && has(lat["local"], "private") &&
      lat["register"]["private"] > 0)
    w["local_over_register"] = lat["local"]["private"] / lat["register"]["private"];
  w["tolerance"] = kWarpTolerance;
  w["rule"] = "two latencies differ when one exceeds the other by more than the tolerance (relative)";
  topo["warp_access"] = w;
}

std::string fmt(double v, int prec) {
  if (!std::isfinite(v)) return "n/a";
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(prec);
  o << v;
  return o.str();
}

double num(const json& j, const std::string& k) {
  return j.is_object() && j.contains(k) && j[k].is_number() ? j[k].get<double>() : NAN;
}

}  // namespace

void add_throughput_sections(const std::vector<BenchRun>& runs, nlohmann::json& topology) {
  if (!topology.is_object()) topology = json::object();
  global_section(runs, topology);
  l2_section(runs, topology);
  shared_section(runs, topology);
  l1_section(runs, topology);
  warp_section(runs, topology);
}

namespace {

// Why a section or stream has no figure: the reason of {"value": null, "reason": ...}.
std::string why_missing(const json& x) {
  return x.is_object() && x.contains("reason") && x["reason"].is_string() ? x["reason"].get<std::string>() : "no reason stated";
}

bool dram_markdown(const json& t, std::ostringstream& o) {
  if (!t.contains("global_memory") || !t["global_memory"].is_object() || !t["global_memory"].contains("throughput")) return false;
  const json& g = t["global_memory"];
  bool any = false;
  o << "### DRAM bandwidth\n\n| stream | TB/s | % of theoretical | best configuration |\n|---|---:|---:|---|\n";
  for (const char* k : {"read", "write", "copy"}) {
    const json x = g["throughput"].value(k, json());
    if (!x.is_object() || !x.contains("bytes_per_second")) {
      o << "| " << k << " | not measured — " << why_missing(x) << " | | |\n";
      continue;
    }
    any = true;
    o << "| " << k << " | " << fmt(num(x, "bytes_per_second") / 1e12, 3) << " | " << fmt(num(x, "pct_of_theoretical"))
      << " | `" << x.value("benchmark", std::string()) << "` |\n";
  }
  if (std::isfinite(num(g, "theoretical_bytes_per_second")))
    o << "\nTheoretical: " << fmt(num(g, "theoretical_bytes_per_second") / 1e12, 3) << " TB/s.\n\n";
  else
    o << "\nTheoretical: not known — " << g.value("theoretical_reason", std::string("no reason stated")) << ".\n\n";
  return any;
}

void cache_bandwidth_markdown(const json& c, const std::string& level, std::ostringstream& o) {
  o << "### " << level << " read bandwidth\n\nPeak " << fmt(num(c, "peak_bytes_per_second") / 1e12, 2) << " TB/s, "
    << fmt(num(c, "peak_bytes_per_clock_per_sm")) << " B/clk/SM";
  if (c.value("pct_of_peak", json()).is_number())
    o << " (" << fmt(num(c, "pct_of_peak")) << " % of the theoretical " << fmt(num(c, "theoretical_bytes_per_clock_per_sm"), 0)
      << " B/clk/SM)";
  else if (c.contains("pct_of_peak_reason"))
    o << " (against the theoretical: not known — " << c["pct_of_peak_reason"].get<std::string>() << ")";
  o << ", `" << c.value("peak_benchmark", std::string()) << "`.\n\n| working set | TB/s | B/clk/SM |\n|---:|---:|---:|\n";
  for (const auto& p : c.value("curve", json::array())) {
    const double b = num(p, "bytes");
    o << "| " << (b >= 1048576 ? fmt(b / 1048576, std::fmod(b, 1048576) == 0 ? 0 : 2) + " MiB" : fmt(b / 1024, std::fmod(b, 1024) == 0 ? 0 : 1) + " KiB")
      << " | " << fmt(num(p, "bytes_per_second") / 1e12, 2) << " | " << fmt(num(p, "bytes_per_clock_per_sm")) << " |\n";
  }
  if (c.contains("partition") && c["partition"].is_object())
    o << "\nPartition: " << c["partition"].value("evidence", std::string("no evidence stated")) << ".\n";
  if (c.contains("shared_lines") && c["shared_lines"].is_object() && c["shared_lines"].contains("peak_bytes_per_second")) {
    const json& s = c["shared_lines"];
    o << "\nShared lines (several SMs read each line at once): " << fmt(num(s, "peak_bytes_per_second") / 1e12, 2)
      << " TB/s at a working set of " << fmt(num(s, "bytes") / 1048576, 1) << " MiB, `" << s.value("benchmark", std::string())
      << "`; requests for one line can merge before the L2 slices, so the curve above leaves these out.\n";
  }
  o << "\n";
}

bool shared_markdown(const json& s, std::ostringstream& o, std::vector<std::string>& missing) {
  bool any = false;
  const json law = s.value("conflict_law", json());
  if (law.is_object() && law.contains("base_cycles")) {
    any = true;
    const std::size_t n = law.value("departures", json::array()).size();
    o << "### Shared-memory banks\n\n" << s.value("banks", 0) << " banks of " << s.value("bank_width_bytes", 0)
      << " bytes; latency " << fmt(num(law, "base_cycles")) << " cycles + " << fmt(num(law, "cycles_per_wavefront"))
      << " cycles per extra wavefront (rms residual " << fmt(num(law, "rms_residual_cycles")) << " cycles); " << n
      << (n == 1 ? " access departs" : " accesses depart") << " from this law" << (n ? ":" : ".") << "\n\n";
    for (const auto& d : law.value("departures", json::array()))
      o << "- " << d["width"].dump() << "-byte elements at a stride of " << d["stride"].dump() << " elements: "
        << fmt(num(d, "measured_cycles")) << " cycles measured, " << fmt(num(d, "predicted_cycles")) << " by the law\n";
    if (n) o << "\n";
  } else if (law.is_object()) {
    missing.push_back("shared-memory bank law — " + why_missing(law));
  }
  const json x = s.value("throughput", json());
  if (x.is_object() && x.contains("bytes_per_clock_per_sm")) {
    any = true;
    o << "Shared-memory copy peak: " << fmt(num(x, "bytes_per_clock_per_sm")) << " B/clk/SM";
    if (x.value("pct_of_peak", json()).is_number()) o << " (" << fmt(num(x, "pct_of_peak")) << " % of banks × bank width)";
    o << ", `" << x.value("benchmark", std::string()) << "`.\n\n";
  } else if (x.is_object()) {
    missing.push_back("shared-memory copy bandwidth — " + why_missing(x));
  }
  return any;
}

void warp_markdown(const json& w, std::ostringstream& o) {
  o << "### Warp access (004)\n\nHow one warp's 32 accesses are served (n/a: not measured for that memory).\n\n"
       "| memory | broadcasts | served in parallel | needs alignment | needs contiguity |\n|---|---|---|---|---|\n";
  auto yn = [](const json& v) -> std::string { return v.is_boolean() ? (v.get<bool>() ? "yes" : "no") : "n/a"; };
  for (const char* m : {"shared", "constant", "global", "texture"}) {
    if (!w.contains(m) || !w[m].is_object()) continue;
    const json& x = w[m];
    o << "| " << m << " | " << yn(x.value("broadcasts", json())) << " | " << yn(x.value("serves_parallel", json())) << " | "
      << yn(x.value("needs_alignment", json())) << " | " << yn(x.value("needs_contiguity", json())) << " |\n";
  }
  if (w.contains("local_over_register"))
    o << "\nA private array in local memory costs " << fmt(num(w, "local_over_register"))
      << "× its register version per access.\n";
  o << "\n";
}

}  // namespace

std::string render_throughput_markdown(const nlohmann::json& t) {
  std::ostringstream o;
  std::vector<std::string> missing;
  bool any = dram_markdown(t, o);
  for (const char* sec : {"l1_bandwidth", "l2_bandwidth"}) {
    const json c = t.value(sec, json());
    const std::string level = std::string(sec) == "l1_bandwidth" ? "L1" : "L2";
    if (c.is_object() && c.contains("peak_bytes_per_second")) {
      any = true;
      cache_bandwidth_markdown(c, level, o);
    } else if (c.is_object()) {
      missing.push_back(level + " read bandwidth — " + why_missing(c));
    }
  }
  if (t.contains("shared_memory") && t["shared_memory"].is_object()) any = shared_markdown(t["shared_memory"], o, missing) || any;
  const json w = t.value("warp_access", json());
  if (w.is_object() && !w.contains("reason")) {
    any = true;
    warp_markdown(w, o);
  } else if (w.is_object()) {
    missing.push_back("warp access — " + why_missing(w));
  }
  if (!any) return std::string();
  std::string out = "## Bandwidth and warp access\n\n" + o.str();
  if (!missing.empty()) {
    out += "Not measured:\n\n";
    for (const auto& m : missing) out += "- " + m + "\n";
    out += "\n";
  }
  return out;
}

}  // namespace memhier::analysis
