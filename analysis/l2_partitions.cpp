// The L2 partition map, replication limit and bandwidth by readers per line.
// docs/methodology.md, section requests_sharing_partitions.
#include "analysis/l2_partitions.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "analysis/field.hpp"
#include "analysis/stats.hpp"

namespace memhier::analysis {
namespace {

using json = nlohmann::json;

constexpr int kPassCold = 0, kPassWrite = 1, kPassPressure = 2;
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

TwoClass split_two(std::vector<double> v) {
  TwoClass c;
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  const std::size_t n = v.size();
  if (n < 6) return c;
  std::sort(v.begin(), v.end());
  const std::size_t minc = std::max<std::size_t>(2, static_cast<std::size_t>(std::ceil(0.05 * n)));
  std::size_t cut = 0;
  double gap = -1;
  for (std::size_t i = minc - 1; i + minc < n; ++i)
    if (v[i + 1] - v[i] > gap) {
      gap = v[i + 1] - v[i];
      cut = i;
    }
  if (gap <= 0) return c;
  const std::vector<double> fast(v.begin(), v.begin() + cut + 1), slow(v.begin() + cut + 1, v.end());
  const double pooled = std::max(2.0, std::sqrt(0.5 * (std::pow(robust_sigma(fast), 2) + std::pow(robust_sigma(slow), 2))));
  c.fast = median_of(fast);
  c.slow = median_of(slow);
  c.threshold = 0.5 * (v[cut] + v[cut + 1]);
  c.split = gap >= std::max(3 * pooled, 10.0) && c.slow - c.fast >= 4 * pooled;
  return c;
}

namespace {

// Far lines of one SM in one pass: the slow class after a write or cold, the fast one after the
// pressure (far lines survive in their home partition, near ones come from DRAM).
bool far_set(const std::vector<double>& lat, int pass, std::vector<bool>* far) {
  const TwoClass c = split_two(lat);
  if (!c.split) return false;
  far->resize(lat.size());
  for (std::size_t i = 0; i < lat.size(); ++i) (*far)[i] = pass == kPassPressure ? lat[i] <= c.threshold : lat[i] > c.threshold;
  return true;
}

const char* pass_name(int p) { return p == kPassWrite ? "after_write" : p == kPassPressure ? "after_pressure" : "cold"; }

// Per slot: the far set from the first pass that splits (after_write, after_pressure, cold).
std::vector<std::vector<bool>> far_sets(const MapData& d, PartitionMap& m) {
  std::vector<std::vector<bool>> far(d.lat.size());
  m.pass_used.assign(d.lat.size(), "");
  for (std::size_t s = 0; s < d.lat.size(); ++s)
    for (int p : {kPassWrite, kPassPressure, kPassCold})
      if (p < static_cast<int>(d.lat[s].size()) && far_set(d.lat[s][p], p, &far[s])) {
        m.pass_used[s] = pass_name(p);
        break;
      }
  return far;
}

// Groups SMs by their far sets (a set or its complement), then a majority map for group 0.
std::vector<bool> group_sms(const std::vector<std::vector<bool>>& far, PartitionMap& m) {
  m.sm_partition.assign(far.size(), -1);
  m.sm_agreement.assign(far.size(), 0);
  const std::vector<bool>* ref = nullptr;
  for (const auto& f : far)
    if (!f.empty()) {
      ref = &f;
      break;
    }
  if (!ref) return {};
  std::vector<int> votes(ref->size(), 0);
  for (std::size_t s = 0; s < far.size(); ++s) {
    if (far[s].empty()) continue;
    const bool g1 = agreement(far[s], *ref) < agreement(far[s], negate(*ref));
    m.sm_partition[s] = g1 ? 1 : 0;
    for (std::size_t i = 0; i < votes.size(); ++i) votes[i] += (far[s][i] != g1) ? 1 : -1;
  }
  std::vector<bool> far0(votes.size());
  for (std::size_t i = 0; i < votes.size(); ++i) far0[i] = votes[i] > 0;
  for (std::size_t s = 0; s < far.size(); ++s)
    if (!far[s].empty()) m.sm_agreement[s] = agreement(far[s], m.sm_partition[s] ? negate(far0) : far0);
  return far0;
}

// Near / far / cold latencies from the classified lines of every SM.
void latencies(const MapData& d, const std::vector<bool>& far0, PartitionMap& m) {
  std::vector<double> near_w, far_w, far_p, cold_n, cold_f;
  for (std::size_t s = 0; s < d.lat.size(); ++s) {
    if (m.sm_partition[s] < 0) continue;
    for (std::size_t i = 0; i < far0.size(); ++i) {
      const bool far = far0[i] != (m.sm_partition[s] == 1);
      const auto& l = d.lat[s];
      if (m.pass_used[s] == "after_write") (far ? far_w : near_w).push_back(l[kPassWrite][i]);
      if (far && l.size() > kPassPressure) far_p.push_back(l[kPassPressure][i]);
      (far ? cold_f : cold_n).push_back(l[kPassCold][i]);
    }
  }
  m.near_cycles = median_of(near_w);
  m.far_cycles = !far_w.empty() ? median_of(far_w) : median_of(far_p);
  m.cold_near_cycles = median_of(cold_n);
  m.cold_far_cycles = median_of(cold_f);
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
    m.reason = "no SM's latencies split into a near and a far class in any pass";
    return m;
  }
  m.line_home.resize(far0.size());
  for (std::size_t i = 0; i < far0.size(); ++i) m.line_home[i] = far0[i] ? 1 : 0;
  latencies(d, far0, m);
  page_masks(d, m);
  m.ok = true;
  return m;
}

namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string x;
  while (std::getline(in, x, ',')) out.push_back(x);
  return out;
}

}  // namespace

bool load_map_data(const Dataset& data, MapData* out, std::string* benchmark) {
  for (std::size_t r = 0; r < data.runs().size(); ++r)
    for (const BenchEntry* e : data.runs()[r].family("l2_partitions")) {
      if (!e->params.has("map")) continue;
      const Trace* t = data.trace(*e, r);
      if (!t || t->label.size() != t->index.size()) continue;
      MapData d;
      for (const auto& s : split_commas(t->meta.count("sm_ids") ? t->meta.at("sm_ids") : ""))
        d.sm_ids.push_back(static_cast<unsigned>(std::stoul(s)));
      for (const auto& s : split_commas(t->meta.count("line_offsets") ? t->meta.at("line_offsets") : ""))
        d.offsets.push_back(std::stoull(s));
      if (t->meta.count("page_bytes")) d.page_bytes = std::stoull(t->meta.at("page_bytes"));
      const std::size_t n = d.offsets.size();
      if (n == 0 || d.sm_ids.empty()) continue;
      d.lat.assign(d.sm_ids.size(), std::vector<std::vector<double>>(3, std::vector<double>(n, NAN)));
      for (std::size_t k = 0; k < t->index.size(); ++k) {
        const std::size_t slot = t->index[k] / n, line = t->index[k] % n;
        if (slot < d.sm_ids.size() && t->label[k] < 3) d.lat[slot][t->label[k]][line] = t->latency[k];
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
  json groups = {json::array(), json::array()};
  std::map<std::string, int> used;
  double worst = 1;
  for (std::size_t s = 0; s < d.sm_ids.size(); ++s) {
    if (m.sm_partition[s] < 0) continue;
    groups[m.sm_partition[s]].push_back(d.sm_ids[s]);
    ++used[m.pass_used[s]];
    worst = std::min(worst, m.sm_agreement[s]);
  }
  const int seen = (groups[0].empty() ? 0 : 1) + (groups[1].empty() ? 0 : 1);
  set_value(j, "partitions", seen, worst >= kAgree ? 0.8 : 0.5, ev,
            "SM groups with complementary near/far line sets (the lowest agreement of an SM with its group's map: " +
                std::to_string(worst) + ")");
  j["sms_per_partition"] = groups;
  j["passes_used"] = used;
  const double home1 = std::count(m.line_home.begin(), m.line_home.end(), 1) / static_cast<double>(m.line_home.size());
  j["line_home_fraction"] = {1 - home1, home1};
  j["line_home"] = m.line_home;
  for (auto [k, v] : {std::pair<const char*, double>{"near_latency_cycles", m.near_cycles}, {"far_latency_cycles", m.far_cycles},
                      {"cold_near_latency_cycles", m.cold_near_cycles}, {"cold_far_latency_cycles", m.cold_far_cycles}})
    if (std::isfinite(v)) set_value(j, k, v, 0.8, ev); else set_null(j, k, "no line of that class", ev);
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
