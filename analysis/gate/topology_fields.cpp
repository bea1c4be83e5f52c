#include "analysis/gate/topology_fields.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>

#include "analysis/gate/compare.hpp"
#include "common/policy.hpp"

namespace memhier::analysis {

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}  // namespace

std::vector<std::string> path_parts(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string p;
  while (std::getline(ss, p, '.')) {
    const auto b = p.find('[');
    parts.push_back(b == std::string::npos ? p : p.substr(0, b));
  }
  return parts;
}

const std::set<std::string> kTopologySkip = {"device", "evidence", "reason", "reasons", "notes", "note",
                                             "generated_at", "generated", "inputs", "source", "schema",
                                             "analyzer"};  // the stamp: analysis/gate/analyzer.hpp

void flatten(const nlohmann::json& j, const std::string& prefix, FlatTopology& out) {
  if (j.is_object()) {
    for (auto& [k, v] : j.items()) {
      if (kTopologySkip.count(k)) continue;
      flatten(v, prefix.empty() ? k : prefix + "." + k, out);
    }
    return;
  }
  if (j.is_array()) {
    const bool scalars = std::all_of(j.begin(), j.end(), [](const nlohmann::json& x) { return x.is_primitive(); });
    const bool range = prefix.size() > 6 && prefix.compare(prefix.size() - 6, 6, "_range") == 0;
    if (scalars && (range || topology_class(prefix) != FieldClass::measured)) {
      out[prefix] = j;  // e.g. ways [4, 4]: one value
      return;
    }
    for (std::size_t i = 0; i < j.size(); ++i) flatten(j[i], prefix + "[" + std::to_string(i) + "]", out);
    return;
  }
  out[prefix] = j;
}

std::string show(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) {
    std::ostringstream s;
    s << std::setprecision(6) << v.get<double>();
    return s.str();
  }
  return v.dump();
}

std::optional<std::pair<double, double>> range_of(const FlatTopology& f, const std::string& key) {
  auto as_range = [](const nlohmann::json& v) -> std::optional<std::pair<double, double>> {
    if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number())
      return std::make_pair(v[0].get<double>(), v[1].get<double>());
    return std::nullopt;
  };
  auto it = f.find(key);
  if (it == f.end() || it->second.is_null()) return std::nullopt;
  if (key.find("size_bracket_bytes") != std::string::npos) return as_range(it->second);
  if (it->second.is_number()) {  // a value with its stated range beside it: entries_per_sm_range
    auto r = f.find(key + "_range");
    if (r != f.end())
      if (auto rr = as_range(r->second)) return rr;
  }
  // A TLB's entries are its reach (a size) counted in entries: judged as a size is, a value whose
  // range is itself, within the size tolerance. A 2048-entry level whose onset moved by a few
  // entries between back-to-back H200 runs (2042-2047) is one structure; a 16-entry level read as
  // 17 is not (1 entry is beyond 5 % of 17).
  const bool tlb = key.find("_tlb.") != std::string::npos || key.rfind("address_translation.", 0) == 0;
  if (tlb && it->second.is_number() && key.size() >= 8 && key.compare(key.size() - 8, 8, ".entries") == 0) {
    const double v = it->second.get<double>();
    return std::make_pair(v, v);
  }
  const auto pos = key.find("size_bytes");
  if (pos != std::string::npos && it->second.is_number()) {
    std::string sib = key;
    sib.replace(pos, std::string("size_bytes").size(), "size_bracket_bytes");
    auto s = f.find(sib);
    if (s != f.end()) {
      auto r = as_range(s->second);
      if (r) return r;
    }
    const double v = it->second.get<double>();
    return std::make_pair(v, v);
  }
  return std::nullopt;
}

double confidence_of(const FlatTopology& f, const std::string& key) {
  const auto parts = path_parts(key);
  std::string section, leaf;
  // caches.l1.size_bytes_by_carveout.0 -> caches.l1 / size_bytes_by_carveout
  std::size_t li = parts.size() - 1;
  if (li >= 1 && ends_with(parts[li - 1], "_by_carveout")) --li;
  for (std::size_t i = 0; i < li; ++i) section += (i ? "." : "") + parts[i];
  leaf = parts[li];
  const std::string prov = (section.empty() ? "" : section + ".") + "provenance.";
  auto it = f.find(prov + leaf + ".confidence");
  // a bracket (size_bracket_bytes, or the bracket's element size_bracket_bytes[0]) is as sure as its value
  if ((it == f.end() || !it->second.is_number()) && leaf.rfind("size_bracket_bytes", 0) == 0)
    it = f.find(prov + "size_bytes.confidence");
  if (it == f.end() || !it->second.is_number()) return 1.0;
  return it->second.get<double>();
}

FlatTopology flatten(const nlohmann::json& topology) {
  FlatTopology f;
  flatten(topology, "", f);
  return f;
}

std::set<std::string> cyclic_thrashing_policies(std::uint32_t ways) {
  static std::map<std::uint32_t, std::set<std::string>> known;
  if (known.count(ways)) return known[ways];
  std::set<std::string> out;
  const std::vector<std::uint32_t> all = {2, 3, 4, 6, 8, 12, 16, 24, 32};
  for (std::uint32_t w : ways ? std::vector<std::uint32_t>{ways} : all) {
    std::vector<std::int64_t> lines;
    for (std::uint32_t pass = 0; pass < 8; ++pass)
      for (std::uint32_t i = 0; i <= w; ++i) lines.push_back(i);
    for (const auto& p : policy::candidate_policies(w, true)) {
      if (!policy::policy_is_deterministic(p)) continue;
      const auto hit = policy::simulate_set(p, w, lines);
      bool thrash = true;
      for (std::size_t k = 4 * (w + 1); k < hit.size() && thrash; ++k) thrash = !hit[k];
      if (thrash) out.insert(p);
    }
  }
  return known[ways] = out;
}

std::optional<PolicyCandidates> policy_candidates(const nlohmann::json& v, std::uint32_t ways) {
  PolicyCandidates c;
  if (v.is_array()) {
    for (const auto& x : v) {
      if (!x.is_string()) return std::nullopt;
      c.names.insert(x.get<std::string>());
    }
    return c.names.empty() ? std::nullopt : std::optional<PolicyCandidates>(c);
  }
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  if (s == "lru_or_fifo") c.names = cyclic_thrashing_policies(ways);
  else if (s == "non-lru") c.names = ways ? cyclic_thrashing_policies(ways) : std::set<std::string>{"lru", "fifo"}, c.all_but = true;
  else c.names = {s};
  return c;
}

bool overlap(const PolicyCandidates& a, const PolicyCandidates& b) {
  if (a.all_but && b.all_but) return true;
  if (a.all_but || b.all_but) {
    const PolicyCandidates& pos = a.all_but ? b : a;
    const PolicyCandidates& neg = a.all_but ? a : b;
    return std::any_of(pos.names.begin(), pos.names.end(), [&](const std::string& n) { return !neg.names.count(n); });
  }
  return std::any_of(a.names.begin(), a.names.end(), [&](const std::string& n) { return b.names.count(n) > 0; });
}

namespace {
// The ways of one set both runs state alike (ways_one_set, else the ways of every set), 0 when unknown.
std::uint32_t common_ways(const FlatTopology& fa, const FlatTopology& fb, const std::string& prefix) {
  auto ways = [&](const FlatTopology& f) -> std::uint32_t {
    auto it = f.find(prefix + "ways_one_set");
    if (it != f.end() && it->second.is_number_unsigned()) return it->second.get<std::uint32_t>();
    it = f.find(prefix + "ways");
    if (it != f.end() && it->second.is_number_integer() && it->second.get<std::int64_t>() > 0)  // memhier-topology/2
      return it->second.get<std::uint32_t>();
    if (it == f.end() || !it->second.is_array() || it->second.empty()) return 0;
    for (const auto& x : it->second)
      if (x != it->second.front()) return 0;
    return it->second.front().is_number_unsigned() ? it->second.front().get<std::uint32_t>() : 0;
  };
  const std::uint32_t a = ways(fa), b = ways(fb);
  return a == b ? a : 0;
}

// A replacement stated as candidates (a list, "lru_or_fifo", "non-lru") on either side: CHANGED only
// when no policy is a candidate of both runs (one run narrowing the other's list is no change).
bool judge_candidates(const FlatTopology& fa, const FlatTopology& fb, const std::string& k, StructuralJudgement& j) {
  const auto parts = path_parts(k);
  if (parts.empty() || parts.back() != "replacement") return false;
  const std::uint32_t w = common_ways(fa, fb, k.substr(0, k.size() - std::string("replacement").size()));
  const auto a = policy_candidates(fa.at(k), w), b = policy_candidates(fb.at(k), w);
  if (!a || !b) return false;
  j.test = "candidates";
  j.changed = !overlap(*a, *b);
  j.note = j.changed ? "no policy is a candidate of both runs" : "a policy is a candidate of both runs";
  return true;
}
}  // namespace

namespace {
std::optional<std::pair<double, double>> pair_at(const FlatTopology& f, const std::string& key) {
  auto it = f.find(key);
  if (it == f.end() || !it->second.is_array() || it->second.size() != 2 || !it->second[0].is_number() ||
      !it->second[1].is_number())
    return std::nullopt;
  return std::make_pair(it->second[0].get<double>(), it->second[1].get<double>());
}

// Disjoint ranges farther apart than `tolerance` of the larger end.
bool ranges_differ(std::pair<double, double> a, std::pair<double, double> b, double tolerance) {
  const double gap = std::max(a.first, b.first) - std::min(a.second, b.second);
  return gap > tolerance * std::max({std::fabs(a.second), std::fabs(b.second), 1.0});
}

// A capacity one run takes from its 50 % point and the other from the structure or a model fit:
// like with like, the two runs' 50 % points (the curve both measured) by their intervals.
bool judge_size_sources(const FlatTopology& fa, const FlatTopology& fb, const std::string& k, double tol,
                        StructuralJudgement& j) {
  const auto parts = path_parts(k);
  if (parts.empty() || parts.back() != "size_bytes") return false;
  const std::string pre = k.substr(0, k.size() - std::string("size_bytes").size());
  auto src = [&](const FlatTopology& f) {
    auto it = f.find(pre + "size_source");
    return it != f.end() && it->second.is_string() ? it->second.get<std::string>() : std::string();
  };
  const std::string sa = src(fa), sb = src(fb);
  if (sa.empty() || sb.empty() || sa == sb || (sa != "half_point" && sb != "half_point")) return false;
  const auto ha = pair_at(fa, pre + "half_point_bracket_bytes"), hb = pair_at(fb, pre + "half_point_bracket_bytes");
  if (!ha || !hb) return false;
  j.test = "half_point";
  j.changed = ranges_differ(*ha, *hb, tol);
  std::ostringstream n;
  n << "capacity from " << sa << " vs " << sb << ": the 50 % points' intervals " << (j.changed ? "differ" : "agree")
    << ": [" << std::setprecision(12) << ha->first << ", " << ha->second << "] vs [" << hb->first << ", " << hb->second
    << "]";
  j.note = n.str();
  return true;
}
}  // namespace

namespace {
// A value stated as a lower bound: x_is_lower_bound beside it (merge_capacity), or for
// max_outstanding_requests_per_sm the section's max_outstanding_is_lower_bound.
bool is_lower_bound(const FlatTopology& f, const std::string& k) {
  const std::string pre = k.substr(0, k.rfind('.') + 1), leaf = k.substr(pre.size());
  const std::string flag = leaf == "max_outstanding_requests_per_sm" ? pre + "max_outstanding_is_lower_bound" : k + "_is_lower_bound";
  auto it = f.find(flag);
  return it != f.end() && it->second.is_boolean() && it->second.get<bool>();
}

// A bound stands for [v, inf): CHANGED only where the other run's value (its range's upper end)
// lies below it beyond the tolerance; two lower bounds never contradict each other.
bool judge_lower_bound(const FlatTopology& fa, const FlatTopology& fb, const std::string& k, double tol,
                       StructuralJudgement& j) {
  const bool la = is_lower_bound(fa, k), lb = is_lower_bound(fb, k);
  if ((!la && !lb) || !fa.at(k).is_number() || !fb.at(k).is_number()) return false;
  auto span = [&](const FlatTopology& f, bool bound) {
    const double v = f.at(k).get<double>();
    const auto r = range_of(f, k).value_or(std::make_pair(v, v));
    return std::make_pair(r.first, bound ? std::numeric_limits<double>::infinity() : r.second);
  };
  const auto a = span(fa, la), b = span(fb, lb);
  const double finite = std::max(la ? a.first : a.second, lb ? b.first : b.second);
  j.test = "bound";
  j.changed = std::max(a.first, b.first) - std::min(a.second, b.second) > tol * std::max(std::fabs(finite), 1.0);
  std::ostringstream n;
  n << std::setprecision(12) << (la && lb ? "both lower bounds" : j.changed ? "below the other run's lower bound" : "within the other run's lower bound")
    << ": >= " << (la ? a.first : b.first) << " vs " << (la && lb ? ">= " : "") << (la ? fb.at(k) : fa.at(k)).get<double>();
  j.note = n.str();
  return true;
}
}  // namespace

// A replacement policy one run judged with random streams (caches.*.streams, cache_streams) and the
// other without: another experiment decided it, not another GPU; no verdict.
bool judge_stream_evidence(const FlatTopology& fa, const FlatTopology& fb, const std::string& k, StructuralJudgement& j) {
  const auto parts = path_parts(k);
  if (parts.empty() || parts.back() != "replacement") return false;
  const std::string streams = k.substr(0, k.size() - std::string("replacement").size()) + "streams.";
  auto has = [&](const FlatTopology& f) {
    auto it = f.lower_bound(streams);
    return it != f.end() && it->first.compare(0, streams.size(), streams) == 0;
  };
  const bool a = has(fa), b = has(fb);
  if (a == b) return false;
  j.test = "evidence";
  j.low_confidence = true;
  j.note = std::string("judged with random streams (cache_streams) in the ") + (a ? "base" : "new") +
           " run only: another experiment, not comparable";
  return true;
}

StructuralJudgement judge_structural(const FlatTopology& fa, const FlatTopology& fb, const std::string& k,
                                     double size_tolerance) {
  StructuralJudgement j;
  if (judge_stream_evidence(fa, fb, k, j)) return j;
  if (fa.count(k) && fb.count(k) && judge_candidates(fa, fb, k, j)) return j;
  if (judge_size_sources(fa, fb, k, size_tolerance, j)) return j;
  if (fa.count(k) && fb.count(k) && judge_lower_bound(fa, fb, k, size_tolerance, j)) return j;
  auto ra = range_of(fa, k), rb = range_of(fb, k);
  const double ca = confidence_of(fa, k), cb = confidence_of(fb, k);
  j.test = ra && rb ? "range" : "exact";
  std::ostringstream n;
  if (ra && rb) {
    const bool overlap = ra->first <= rb->second && rb->first <= ra->second;
    // Disjoint ranges closer than the stated size tolerance: an edge that moves by less than
    // that between runs (soft edges of non-LRU caches on real GPUs) is not a structural change.
    const double gap = std::max(ra->first, rb->first) - std::min(ra->second, rb->second);
    const double scale = std::max({std::fabs(ra->second), std::fabs(rb->second), 1.0});
    const bool close = !overlap && gap <= size_tolerance * scale;
    // Disjoint ranges of a value the analyzer states at low confidence (the L2 TLB's total reach,
    // 0.4-0.5: where a soft step begins moved 61.7 - 68.7 GB between five H100 runs while each
    // run's bracket was 0.07 GB wide) are no structural change either.
    const bool unsure = !overlap && !close && std::min(ca, cb) < kStructuralConfidence;
    j.changed = !overlap && !close && !unsure;
    j.low_confidence = unsure;
    n << (overlap ? "stated ranges overlap: " : close ? "stated ranges within the size tolerance: "
          : unsure ? "stated ranges disjoint, at low confidence (" + std::to_string(ca) + " / " + std::to_string(cb) + "): "
                   : "stated ranges disjoint: ")
      << "[" << std::setprecision(12) << ra->first << ", " << ra->second << "] vs [" << rb->first << ", "
      << rb->second << "]";
  } else if (std::min(ca, cb) < kStructuralConfidence) {
    j.low_confidence = true;
    n << "stated at low confidence (" << ca << " / " << cb << ")";
  } else {
    j.changed = true;
  }
  j.note = n.str();
  return j;
}

}  // namespace memhier::analysis
