// The L2 partition map, replication limit and bandwidth by readers per line.
// docs/methodology.md, section requests_sharing_partitions.
#include "analysis/l2/l2_partitions.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "analysis/core/field.hpp"
#include "analysis/core/stats.hpp"

namespace memhier::analysis {
namespace {

using json = nlohmann::json;

constexpr double kAgree = 0.9;  // passes (and SMs of one group) must agree on this share of lines

double median_of(const std::vector<double>& v) { return v.empty() ? NAN : median(v); }

double agreement(const std::vector<bool>& a, const std::vector<bool>& b) {
  std::size_t same = 0;
  for (std::size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  return a.empty() ? 0 : static_cast<double>(same) / a.size();
}

std::vector<bool> negate(std::vector<bool> v) {
  v.flip();
  return v;
}

}  // namespace

namespace {

std::vector<double> finite_sorted(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  std::sort(v.begin(), v.end());
  return v;
}

// The classes v[0..cut] and v[cut+1..] of sorted values: medians and threshold; returns their
// pooled robust deviation (at least 2 cycles).
double fill_classes(const std::vector<double>& v, std::size_t cut, TwoClass& c) {
  const std::vector<double> fast(v.begin(), v.begin() + cut + 1), slow(v.begin() + cut + 1, v.end());
  c.fast = median_of(fast);
  c.slow = median_of(slow);
  c.threshold = 0.5 * (v[cut] + v[cut + 1]);
  return std::max(2.0, std::sqrt(0.5 * (std::pow(robust_sigma(fast), 2) + std::pow(robust_sigma(slow), 2))));
}

// The smallest class size of a split: 5 % of the values, at least 2.
std::size_t min_class(std::size_t n) { return std::max<std::size_t>(2, static_cast<std::size_t>(std::ceil(0.05 * n))); }

}  // namespace

TwoClass split_two(std::vector<double> v) {
  TwoClass c;
  v = finite_sorted(std::move(v));
  const std::size_t n = v.size();
  if (n < 6) return c;
  const std::size_t minc = min_class(n);
  std::size_t cut = 0;
  double gap = -1;
  for (std::size_t i = minc - 1; i + minc < n; ++i)
    if (v[i + 1] - v[i] > gap) {
      gap = v[i + 1] - v[i];
      cut = i;
    }
  if (gap <= 0) return c;
  const double pooled = fill_classes(v, cut, c);
  c.split = gap >= std::max(3 * pooled, 10.0) && c.slow - c.fast >= 4 * pooled;
  return c;
}

TwoClass split_pooled(std::vector<double> v) {
  TwoClass c;
  v = finite_sorted(std::move(v));
  const std::size_t n = v.size();
  if (n < 12) return c;
  std::vector<double> prefix(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + v[i];
  const std::size_t minc = min_class(n);
  double best = -1;
  std::size_t cut = 0;  // the fast class is v[0..cut]: Otsu, the largest between-class variance
  for (std::size_t i = minc - 1; i + minc < n; ++i) {
    if (v[i + 1] == v[i]) continue;
    const double n1 = static_cast<double>(i + 1), n2 = static_cast<double>(n - i - 1);
    const double d = prefix[i + 1] / n1 - (prefix[n] - prefix[i + 1]) / n2;
    if (n1 * n2 * d * d > best) {
      best = n1 * n2 * d * d;
      cut = i;
    }
  }
  if (best < 0) return c;
  const double pooled = fill_classes(v, cut, c);
  c.split = c.slow - c.fast >= 4 * pooled;
  return c;
}

namespace {

bool has_pass(const MapData& d, std::size_t s, int p) {
  return p < static_cast<int>(d.lat[s].size()) &&
         std::any_of(d.lat[s][p].begin(), d.lat[s][p].end(), [](double x) { return std::isfinite(x); });
}

std::vector<double> pooled(const MapData& d, int p) {
  std::vector<double> v;
  for (std::size_t s = 0; s < d.lat.size(); ++s)
    if (has_pass(d, s, p)) v.insert(v.end(), d.lat[s][p].begin(), d.lat[s][p].end());
  return v;
}

std::vector<bool> slow_set(const std::vector<double>& lat, double threshold) {
  std::vector<bool> v(lat.size());
  for (std::size_t i = 0; i < lat.size(); ++i) v[i] = lat[i] > threshold;
  return v;
}

// The lines of one pass on the given slots, by line class: (cls true, cls false).
std::pair<std::vector<double>, std::vector<double>> by_class(const MapData& d, const std::vector<std::size_t>& slots, int p,
                                                             const std::vector<bool>& cls) {
  std::pair<std::vector<double>, std::vector<double>> v;
  for (std::size_t s : slots)
    for (std::size_t i = 0; i < cls.size(); ++i)
      if (std::isfinite(d.lat[s][p][i])) (cls[i] ? v.first : v.second).push_back(d.lat[s][p][i]);
  return v;
}

// median(b) - median(a) in standard errors of that difference (the median's: 1.2533 sigma / sqrt n,
// sigma the pooled robust deviation, at least 2 cycles); 0 when a class is empty.
double class_shift(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) return 0;
  const double sigma = std::max(2.0, std::sqrt(0.5 * (std::pow(robust_sigma(a), 2) + std::pow(robust_sigma(b), 2))));
  return (median(b) - median(a)) / (1.2533 * sigma * std::sqrt(1.0 / a.size() + 1.0 / b.size()));
}

// When no pass splits on its own (every SM's lines pooled: the cold pass's DRAM spread, ~53 cycles
// a class on the H100 inside a characterization, hides a 190-cycle step from the 4-deviation test):
// the primer pass E gives the line classes, the cold pass A confirms them. In E the SMs opposite the
// primer's partition read the lines homed there as far hits (>= 5 % of their lines slow) and the
// primer's own SMs read every line near; the classes are the opposite SMs' line-wise majority (homed
// with the primer, or not). A, an independent pass, must then show them on both sides, as shifts of
// >= 4 standard errors of opposite sign: on the primer's side the lines not homed there read slower,
// on the other side the lines homed with the primer. Far lines: on the opposite side E's slow set;
// on the primer's side A's (and D's, when D shows A's shift: a second cold pass, a line far when slow
// in both) slow set at the SM's own midpoint between its class medians. An SM whose cold shift has
// the other side's sign stays without a set (unassigned).
void primer_far_sets(const MapData& d, PartitionMap& m, std::vector<std::vector<bool>>& far) {
  const TwoClass e = split_pooled(pooled(d, kMapPassPrimer));
  if (!e.split) return;
  const std::size_t n = d.offsets.size(), minc = min_class(n);
  std::vector<std::size_t> side[2];  // 0: the primer's partition (E all near), 1: the opposite one
  std::vector<std::vector<bool>> slow(d.lat.size());
  std::vector<int> votes(n, 0);
  for (std::size_t s = 0; s < d.lat.size(); ++s) {
    if (!has_pass(d, s, kMapPassPrimer) || !has_pass(d, s, kMapPassCold)) continue;
    slow[s] = slow_set(d.lat[s][kMapPassPrimer], e.threshold);
    const bool opposite = static_cast<std::size_t>(std::count(slow[s].begin(), slow[s].end(), true)) >= minc;
    side[opposite].push_back(s);
    if (opposite)
      for (std::size_t i = 0; i < n; ++i) votes[i] += slow[s][i] ? 1 : -1;
  }
  std::vector<bool> homed(n);  // homed in the primer's partition
  for (std::size_t i = 0; i < n; ++i) homed[i] = votes[i] > 0;
  const std::size_t k = static_cast<std::size_t>(std::count(homed.begin(), homed.end(), true));
  if (side[0].empty() || side[1].empty() || k < minc || n - k < minc) {
    m.primer_note = "the primer pass splits " + std::to_string(side[1].size()) + " of " +
                    std::to_string(side[0].size() + side[1].size()) + " SMs into near and far lines: no two SM sides with two line classes";
    return;
  }
  // A's shift (lines homed elsewhere minus lines homed with the primer) per side, in standard errors
  double shift[2], dshift[2];
  for (int g = 0; g < 2; ++g) {
    auto [h, o] = by_class(d, side[g], kMapPassCold, homed);
    shift[g] = class_shift(h, o);
    auto [dh, dn] = by_class(d, side[g], kMapPassPressure, homed);
    dshift[g] = class_shift(dh, dn);
  }
  if (!(shift[0] >= 4 && shift[1] <= -4)) {
    m.primer_note = "the primer pass splits " + std::to_string(side[1].size()) + " of " +
                    std::to_string(side[0].size() + side[1].size()) +
                    " SMs, but the cold pass does not confirm its line classes on both sides (shifts of " +
                    std::to_string(shift[0]) + " and " + std::to_string(shift[1]) + " standard errors; 4 and -4 needed)";
    return;
  }
  const bool d_cold = dshift[0] >= 4 && dshift[1] <= -4;  // the pressure evicted both partitions' copies
  if (d_cold) m.pressure_outcome = "evicted";
  for (std::size_t s : side[1]) {
    auto [h, o] = by_class(d, {s}, kMapPassCold, homed);
    if (!h.empty() && !o.empty() && median(h) > median(o)) {
      far[s] = slow[s];
      m.pass_used[s] = "after_primer";
    }
  }
  for (std::size_t s : side[0]) {
    auto [h, o] = by_class(d, {s}, kMapPassCold, homed);
    if (h.empty() || o.empty() || median(o) <= median(h)) continue;
    far[s] = slow_set(d.lat[s][kMapPassCold], 0.5 * (median(h) + median(o)));
    if (d_cold && has_pass(d, s, kMapPassPressure)) {
      auto [dh, dn] = by_class(d, {s}, kMapPassPressure, homed);
      if (!dh.empty() && !dn.empty() && median(dn) > median(dh)) {
        const std::vector<bool> again = slow_set(d.lat[s][kMapPassPressure], 0.5 * (median(dh) + median(dn)));
        for (std::size_t i = 0; i < n; ++i) far[s][i] = far[s][i] && again[i];
      }
    }
    m.pass_used[s] = "cold";
  }
}

// Per slot the far lines, from the least noisy pass that splits: after the write (far = slow: hits
// in the far partition), after the pressure when it kept the far lines (far = fast: far hits against
// DRAM), else cold (far = slow: DRAM through the far partition), where a pressure pass that evicted
// everything counts as a second cold pass (a line is far when both are slow: DRAM tails are
// one-sided, so a near line rarely reads slow twice).
std::vector<std::vector<bool>> far_sets(const MapData& d, PartitionMap& m) {
  const TwoClass a = split_pooled(pooled(d, kMapPassCold)), b = split_pooled(pooled(d, kMapPassWrite)),
                 p = split_pooled(pooled(d, kMapPassPressure));
  double same = 0;
  int n = 0;
  for (std::size_t s = 0; s < d.lat.size(); ++s)
    if (a.split && p.split && has_pass(d, s, kMapPassPressure)) {
      same += agreement(slow_set(d.lat[s][kMapPassCold], a.threshold), slow_set(d.lat[s][kMapPassPressure], p.threshold));
      ++n;
    }
  const bool pressure_cold = n > 0 && same / n > 0.5;
  m.pressure_outcome = !p.split ? "no_split" : pressure_cold ? "evicted" : n > 0 ? "far_kept" : "split";
  std::vector<std::vector<bool>> far(d.lat.size());
  m.pass_used.assign(d.lat.size(), "");
  for (std::size_t s = 0; s < d.lat.size(); ++s) {
    if (b.split && has_pass(d, s, kMapPassWrite)) {
      far[s] = slow_set(d.lat[s][kMapPassWrite], b.threshold);
      m.pass_used[s] = "after_write";
    } else if (p.split && !pressure_cold && has_pass(d, s, kMapPassPressure)) {
      far[s] = slow_set(d.lat[s][kMapPassPressure], p.threshold);
      far[s].flip();
      m.pass_used[s] = "after_pressure";
    } else if (a.split && has_pass(d, s, kMapPassCold)) {
      far[s] = slow_set(d.lat[s][kMapPassCold], a.threshold);
      if (pressure_cold && has_pass(d, s, kMapPassPressure)) {
        const std::vector<bool> again = slow_set(d.lat[s][kMapPassPressure], p.threshold);
        for (std::size_t i = 0; i < far[s].size(); ++i) far[s][i] = far[s][i] && again[i];
      }
      m.pass_used[s] = "cold";
    }
  }
  if (std::all_of(far.begin(), far.end(), [](const std::vector<bool>& f) { return f.empty(); })) primer_far_sets(d, m, far);
  return far;
}

// Groups SMs by their far sets (a set or its complement): the group map is the line-wise majority,
// refined until no SM changes group; an SM that agrees with neither map on 75 % of the lines stays
// unassigned.
std::vector<bool> group_sms(const std::vector<std::vector<bool>>& far, PartitionMap& m) {
  m.sm_partition.assign(far.size(), -1);
  m.sm_agreement.assign(far.size(), 0);
  std::vector<bool> far0;
  for (const auto& f : far)
    if (!f.empty()) {
      far0 = f;
      break;
    }
  if (far0.empty()) return {};
  for (int round = 0; round < 20; ++round) {
    std::vector<int> votes(far0.size(), 0);
    for (std::size_t s = 0; s < far.size(); ++s) {
      if (far[s].empty()) continue;
      const bool g1 = agreement(far[s], far0) < 0.5;
      m.sm_partition[s] = g1 ? 1 : 0;
      for (std::size_t i = 0; i < votes.size(); ++i) votes[i] += (far[s][i] != g1) ? 1 : -1;
    }
    std::vector<bool> next(votes.size());
    for (std::size_t i = 0; i < votes.size(); ++i) next[i] = votes[i] > 0;
    if (next == far0) break;
    far0 = next;
  }
  for (std::size_t s = 0; s < far.size(); ++s) {
    if (far[s].empty()) continue;
    m.sm_agreement[s] = agreement(far[s], m.sm_partition[s] ? negate(far0) : far0);
    if (m.sm_agreement[s] < 0.75) m.sm_partition[s] = -1;
  }
  return far0;
}

// The far-partition hit latency: after the write when it split; else after the primer (the SMs
// whose far lines read slower than their near lines there: those opposite the primer); else after a
// pressure that kept the far lines.
void far_hits(const MapData& d, const std::vector<bool>& far0, PartitionMap& m) {
  std::vector<double> write_far, primer_far, pressure_far;
  for (std::size_t s = 0; s < d.lat.size(); ++s) {
    if (m.sm_partition[s] < 0) continue;
    std::vector<double> pf, pn;
    for (std::size_t i = 0; i < far0.size(); ++i) {
      const bool far = far0[i] != (m.sm_partition[s] == 1);
      if (!far) {
        if (has_pass(d, s, kMapPassPrimer)) pn.push_back(d.lat[s][kMapPassPrimer][i]);
        continue;
      }
      if (m.pass_used[s] == "after_write") write_far.push_back(d.lat[s][kMapPassWrite][i]);
      if (m.pass_used[s] == "after_pressure") pressure_far.push_back(d.lat[s][kMapPassPressure][i]);
      if (has_pass(d, s, kMapPassPrimer)) pf.push_back(d.lat[s][kMapPassPrimer][i]);
    }
    if (pf.size() >= 2 && pn.size() >= 2 &&
        median_of(pf) - median_of(pn) > std::max(20.0, 4 * std::max(robust_sigma(pn), robust_sigma(pf)))) {
      primer_far.insert(primer_far.end(), pf.begin(), pf.end());
      ++m.primer_split_sms;
    }
  }
  if (!write_far.empty()) {
    m.far_cycles = median_of(write_far);
    m.far_from = "after_write";
  } else if (!primer_far.empty()) {
    m.far_cycles = median_of(primer_far);
    m.far_from = "after_primer";
  } else if (!pressure_far.empty()) {
    m.far_cycles = median_of(pressure_far);
    m.far_from = "after_pressure";
  }
}

// Near hits (after the write: every near line is an L2 hit in its own partition) and the cold
// latencies by class.
void latencies(const MapData& d, const std::vector<bool>& far0, PartitionMap& m) {
  std::vector<double> near_w, cold_n, cold_f;
  for (std::size_t s = 0; s < d.lat.size(); ++s) {
    if (m.sm_partition[s] < 0) continue;
    for (std::size_t i = 0; i < far0.size(); ++i) {
      const bool far = far0[i] != (m.sm_partition[s] == 1);
      if (!far && has_pass(d, s, kMapPassWrite)) near_w.push_back(d.lat[s][kMapPassWrite][i]);
      if (has_pass(d, s, kMapPassCold)) (far ? cold_f : cold_n).push_back(d.lat[s][kMapPassCold][i]);
    }
  }
  m.near_cycles = median_of(near_w);
  m.cold_near_cycles = median_of(cold_n);
  m.cold_far_cycles = median_of(cold_f);
  far_hits(d, far0, m);
}

// Per page: offset bit k belongs to the mask when offset 2^k and offset 0 have different homes;
// the mask stands when it predicts the home of every line of the page.
void page_masks(const MapData& d, PartitionMap& m) {
  const std::size_t pages = d.offsets.empty() ? 0 : d.offsets.back() / d.page_bytes + 1;
  m.linear = pages > 0;
  for (std::size_t p = 0; p < pages; ++p) {
    std::map<std::uint64_t, int> home;
    for (std::size_t i = 0; i < d.offsets.size(); ++i)
      if (d.offsets[i] / d.page_bytes == p) home[d.offsets[i] % d.page_bytes] = m.line_home[i];
    std::int64_t mask = -1;
    if (home.count(0)) {
      mask = 0;
      for (std::uint64_t b = 1; b < d.page_bytes; b <<= 1)
        if (home.count(b) && home[b] != home[0]) mask |= static_cast<std::int64_t>(b);
      for (const auto& [off, h] : home)
        if ((home[0] ^ __builtin_parityll(off & static_cast<std::uint64_t>(mask))) != h) mask = -1;
    }
    m.page_mask.push_back(mask);
    m.linear = m.linear && mask >= 0;
  }
}

}  // namespace

PartitionMap infer_partition_map(const MapData& d) {
  PartitionMap m;
  const std::vector<std::vector<bool>> far = far_sets(d, m);
  const std::vector<bool> far0 = group_sms(far, m);
  if (far0.empty()) {
    m.reason = "no SM's latencies split into a near and a far class in any pass" +
               (m.primer_note.empty() ? std::string() : " (" + m.primer_note + ")");
    return m;
  }
  m.line_home.resize(far0.size());
  for (std::size_t i = 0; i < far0.size(); ++i) m.line_home[i] = far0[i] ? 1 : 0;
  latencies(d, far0, m);
  page_masks(d, m);
  m.ok = true;
  return m;
}

bool load_map_data(const Dataset& data, MapData* out, std::string* benchmark) {
  for (std::size_t r = 0; r < data.runs().size(); ++r)
    for (const BenchEntry* e : data.runs()[r].family("l2_partitions")) {
      if (!e->params.has("map")) continue;
      const Trace* t = data.trace(*e, r);
      if (!t || t->label.size() != t->index.size()) continue;
      MapData d;
      for (const auto& s : trace_list(*t, "sm_ids"))
        d.sm_ids.push_back(static_cast<unsigned>(std::stoul(s)));
      for (const auto& s : trace_list(*t, "line_offsets"))
        d.offsets.push_back(std::stoull(s));
      if (t->meta.count("page_bytes")) d.page_bytes = std::stoull(t->meta.at("page_bytes"));
      const std::size_t n = d.offsets.size();
      if (n == 0 || d.sm_ids.empty()) continue;
      d.lat.assign(d.sm_ids.size(), std::vector<std::vector<double>>(kMapPassCount, std::vector<double>(n, NAN)));
      for (std::size_t k = 0; k < t->index.size(); ++k) {
        const std::size_t slot = t->index[k] / n, line = t->index[k] % n;
        if (slot < d.sm_ids.size() && t->label[k] < kMapPassCount) d.lat[slot][t->label[k]][line] = t->latency[k];
      }
      *out = std::move(d);
      *benchmark = e->params.str();
      return true;
    }
  return false;
}

Replication replication_limit(const Dataset& data, double near, double far, double dram) {
  Replication r;
  const double lo = 0.5 * (near + far), hi = 0.5 * (far + dram);
  std::map<double, std::pair<double, std::string>> frac;
  for (const Chase& c : data.chases()) {
    if (c.family != "pchase" || c.path != "global_cg" || c.mode != "count" || !c.warm) continue;
    const Trace* t = data.trace(c);
    if (!t || t->hist.total() == 0) continue;
    double in = 0;
    for (std::size_t b = 0; b < t->hist.counts.size(); ++b) {
      const double x = (b + 0.5) * t->hist.bin_width;
      if (x > lo && x <= hi) in += t->hist.counts[b];
    }
    frac[static_cast<double>(c.bytes)] = {in / t->hist.total(), c.name()};
  }
  for (const auto& [b, f] : frac) {
    r.far_fraction.emplace_back(b, f.first);
    if (!std::isnan(r.next)) continue;
    r.evidence.push_back(f.second);
    if (f.first > 0.01) r.next = b; else r.limit = b;
  }
  return r;
}

namespace {

json map_json(const MapData& d, const PartitionMap& m, const std::string& bench) {
  json j = json::object();
  Evidence ev;
  ev.add(bench);
  if (!m.ok) {
    set_null(j, "partitions", m.reason, ev);
    return j;
  }
  json groups = {json::array(), json::array()}, unassigned = json::array();
  std::map<std::string, int> used;
  double worst = 1;
  for (std::size_t s = 0; s < d.sm_ids.size(); ++s) {
    if (m.sm_partition[s] < 0) {
      unassigned.push_back(d.sm_ids[s]);
      continue;
    }
    groups[m.sm_partition[s]].push_back(d.sm_ids[s]);
    ++used[m.pass_used[s]];
    worst = std::min(worst, m.sm_agreement[s]);
  }
  const int seen = (groups[0].empty() ? 0 : 1) + (groups[1].empty() ? 0 : 1);
  const bool lines_split = std::count(m.line_home.begin(), m.line_home.end(), 0) > 0 &&
                           std::count(m.line_home.begin(), m.line_home.end(), 1) > 0;
  if (seen == 1 && lines_split) {
    // Every probed SM in one group, yet lines they all see far: those live in another partition
    // (or several: near/far cannot tell two far partitions apart). At least 2, not how many.
    set_null(j, "partitions",
             "all " + std::to_string(groups[0].size() + groups[1].size()) +
                 " SMs probed share one partition, and the lines they all see far lie in another one (or more): "
                 "at least 2 partitions, their number not determined (probe more SMs: the full plan)",
             ev);
    j["partitions_lower_bound"] = 2;
  } else {
    set_value(j, "partitions", seen, worst >= kAgree ? 0.8 : 0.5, ev,
              "SM groups with complementary near/far line sets (the lowest agreement of an SM with its group's map: " +
                  std::to_string(worst) + ")");
  }
  j["sms_per_partition"] = groups;
  j["sms_unassigned"] = unassigned;
  j["passes_used"] = used;
  j["far_latency_from"] = m.far_from.empty() ? json(nullptr) : json(m.far_from);
  j["after_pressure"] = m.pressure_outcome;
  j["after_primer_split_sms"] = m.primer_split_sms;  // about half: the primer's reads left near copies in its partition
  const double home1 = std::count(m.line_home.begin(), m.line_home.end(), 1) / static_cast<double>(m.line_home.size());
  j["line_home_fraction"] = {1 - home1, home1};
  j["line_home"] = m.line_home;
  for (auto [k, v] : {std::pair<const char*, double>{"near_latency_cycles", m.near_cycles}, {"far_latency_cycles", m.far_cycles},
                      {"cold_near_latency_cycles", m.cold_near_cycles}, {"cold_far_latency_cycles", m.cold_far_cycles}})
    if (std::isfinite(v)) set_value(j, k, v, 0.8, ev);
    else set_null(j, k, std::string(k) == "far_latency_cycles"
                            ? "no pass shows far-partition hits (after the write every line was near, no primer pass split, "
                              "the pressure evicted far lines too)"
                            : "no line of that class", ev);
  json masks = json::array();
  std::int64_t low = 0;
  for (auto mk : m.page_mask) {
    masks.push_back(mk < 0 ? json(nullptr) : json(mk));
    if (mk > 0 && (low == 0 || (mk & -mk) < low)) low = mk & -mk;
  }
  j["page_offset_masks"] = masks;
  j["linear_in_offset_bits"] = m.linear;
  if (m.linear && low > 0)
    set_value(j, "interleave_bytes", low, 0.7, ev, "the lowest offset bit that changes the home partition");
  else
    set_null(j, "interleave_bytes", m.linear ? "no offset bit changes the home" : "the home is not an XOR of offset bits", ev);
  return j;
}

void replication(const Dataset& data, const PartitionMap& m, json& j) {
  if (!m.ok || !std::isfinite(m.near_cycles) || !std::isfinite(m.far_cycles) || !std::isfinite(m.cold_near_cycles)) {
    set_null(j, "replication_limit_bytes", "needs the map's near, far and DRAM latencies");
    return;
  }
  const Replication r = replication_limit(data, m.near_cycles, m.far_cycles, m.cold_near_cycles);
  json curve = json::array();
  for (const auto& [b, f] : r.far_fraction) curve.push_back({{"bytes", b}, {"far_fraction", f}});
  j["far_fraction_by_footprint"] = curve;
  Evidence ev;
  for (const auto& n : r.evidence) ev.add(n);
  if (std::isfinite(r.limit) && std::isfinite(r.next)) {
    set_value(j, "replication_limit_bytes", r.limit, 0.7, ev,
              "one SM's footprints up to this size show no access at the far-partition latency");
    j["replication_bracket_bytes"] = {r.limit, r.next};
  } else {
    set_null(j, "replication_limit_bytes",
             r.far_fraction.empty() ? "no warm global_cg count sweep" : "no footprint change from near to far", ev);
  }
}

void readers(const Dataset& data, json& j) {
  std::map<std::string, std::vector<double>> bps;
  std::map<std::string, std::pair<double, double>> who;  // readers param, readers per line
  for (const BenchEntry* e : data.family("l2_partitions")) {
    if (!e->params.has("readers") || !e->has("bytes_per_second")) continue;
    bps[e->params.str()].push_back(e->counter("bytes_per_second"));
    who[e->params.str()] = {static_cast<double>(e->params.get_int_or("readers", 0)), e->counter("readers_per_line", NAN)};
  }
  json list = json::array(), shared = json::array();
  for (const auto& [name, v] : bps) {
    const json p = {{"readers", who[name].first}, {"readers_per_line", who[name].second},
                    {"bytes_per_second", median_of(v)}, {"benchmark", name}};
    list.push_back(p);
    if (std::fabs(who[name].second - 1) < 0.01) j["one_reader_per_line"] = p; else shared.push_back(p);
  }
  j["bandwidth_by_readers"] = list;
  j["shared_lines_by_readers"] = shared;
}

}  // namespace

json l2_partitions_section(const Dataset& data) {
  MapData d;
  std::string bench;
  json j = json::object();
  const bool have = load_map_data(data, &d, &bench);
  const PartitionMap m = have ? infer_partition_map(d) : PartitionMap{};
  if (have) j["map"] = map_json(d, m, bench);
  replication(data, m, j);
  readers(data, j);
  if (!have && j["bandwidth_by_readers"].empty()) return nullptr;
  return j;
}

}  // namespace memhier::analysis
