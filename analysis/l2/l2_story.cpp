#include "analysis/l2/l2_story.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "analysis/core/field.hpp"

namespace memhier::analysis {

namespace {

using json = nlohmann::json;

// Accel-Sim's H100 configuration models a 640 KiB slice as 256 sets x 20 ways (issue 30): the
// sentence on the ways says whether the data rule it out.
constexpr std::uint64_t kAccelSimWays = 20;

std::string list(const std::vector<std::uint64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : i + 1 == v.size() ? " and " : ", ") + std::to_string(v[i]);
  return s;
}

Evidence evidence_of(const json& section, const std::string& key) {
  Evidence ev;
  if (section.contains("provenance") && section["provenance"].contains(key))
    for (const auto& e : section["provenance"][key].value("evidence", json::array())) ev.add(e.get<std::string>());
  return ev;
}

double confidence_of(const json& section, const std::string& key) {
  if (!section.contains("provenance") || !section["provenance"].contains(key)) return 0;
  return section["provenance"][key].value("confidence", 0.0);
}

// What one SM's P-chase sees: where misses begin, the 50 % point, and the replication limit of
// l2_partitions (the footprint up to which a line has a copy in the near partition).
json one_sm_sees(const json& c, const json& parts) {
  json o = json::object();
  o["onset_size_bytes"] = c.value("onset_size_bytes", json());
  o["onset_size_bracket_bytes"] = c.value("onset_size_bracket_bytes", json());
  o["half_point_bytes"] = c.value("half_point_bytes", json());
  o["half_point_bracket_bytes"] = c.value("half_point_bracket_bytes", json());
  o["replication_limit_bytes"] = parts.is_object() ? parts.value("replication_limit_bytes", json()) : json();
  o["note"] = "the capacity sweep of one SM's chase on global_cg: misses begin where the first set of the (hashed) L2 "
              "overflows, the 50 % point where half the accesses miss; replication_limit_bytes is l2_partitions' "
              "footprint up to which a line read from one partition keeps a copy in the other (the near partition "
              "serves it); none of them is the L2's size";
  return o;
}

// The P-chase's value says the same as the L2's own: equal, per-set ways all equal to the number,
// or lru_or_fifo (a class: replacement_cyclic_class, else LRU and FIFO) holding every name given.
bool same_story(const json& c, const std::string& key, const json& value) {
  const json& mine = c[key];
  if (mine == value) return true;
  if (key == "ways" && mine.is_array() && !mine.empty())
    return std::all_of(mine.begin(), mine.end(), [&](const json& w) { return w == value; });
  if (key == "replacement" && mine == "lru_or_fifo") {
    const json cls = c.value("replacement_cyclic_class", json::array({"lru", "fifo"}));
    const json names = value.is_array() ? value : json::array({value});
    return std::all_of(names.begin(), names.end(),
                        [&](const json& n) { return std::find(cls.begin(), cls.end(), n) != cls.end(); });
  }
  return false;
}

// A value of the L2's own experiments into caches.l2: where the P-chase decided another one, null
// with both named.
void take(json& c, const std::string& key, const json& value, double conf, const Evidence& ev, const std::string& note) {
  if (c.contains(key) && !c[key].is_null() && !same_story(c, key, value)) {
    std::string pchase = c[key].dump();
    if (pchase.size() > 160) pchase = pchase.substr(0, 160) + "...";  // per-set ways: the start of the list
    set_null(c, key,
             "the P-chase gives " + pchase + ", the L2's own experiments (" + note + ") give " + value.dump() +
                 ": the two disagree",
             ev);
    return;
  }
  if (c.contains(key) && c[key].is_array() && key == "ways") return;  // per set, the same ways: kept
  set_value(c, key, value, conf, ev, note);
}

struct Product {
  bool decided = false;
  std::uint64_t bytes = 0;
  std::string text, missing;
};
// partitions x slices per partition x sets per slice x ways x line, or what is missing.
Product whole_l2(const json& t) {
  Product p;
  const json& s = t["l2_sets"];
  const json sl = t.value("l2_slices", json()), lp = t.value("l2_partitions", json());
  const json parts = lp.is_object() && lp.contains("map") ? lp["map"].value("partitions", json()) : json();
  const json spp = sl.is_object() ? sl.value("slices_per_partition", json()) : json();
  const json sps = s.value("sets_per_slice", json()), w = s.value("ways", json()), line = s.value("line_bytes", json());
  std::vector<std::string> miss;
  if (!parts.is_number()) miss.push_back("partitions (l2_partitions.map.partitions)");
  if (!spp.is_number()) {
    std::string why = sl.is_object() && sl.contains("provenance") && sl["provenance"].contains("slices_per_partition")
                          ? sl["provenance"]["slices_per_partition"].value("reason", std::string())
                          : std::string("no l2_slices section");
    miss.push_back("slices per partition (" + why + ")");
  }
  if (!sps.is_number()) miss.push_back("sets per slice (l2_sets.sets_per_slice)");
  if (!w.is_number()) miss.push_back("ways (l2_sets.ways)");
  if (!line.is_number()) miss.push_back("line (l2_sets.line_bytes)");
  for (const auto& m : miss) p.missing += (p.missing.empty() ? "" : "; ") + m;
  if (!miss.empty()) return p;
  const std::vector<std::uint64_t> f = {parts.get<std::uint64_t>(), spp.get<std::uint64_t>(), sps.get<std::uint64_t>(),
                                        w.get<std::uint64_t>(), line.get<std::uint64_t>()};
  p.bytes = f[0] * f[1] * f[2] * f[3] * f[4];
  p.text = std::to_string(f[0]) + " partitions x " + std::to_string(f[1]) + " slices x " + std::to_string(f[2]) +
           " sets per slice x " + std::to_string(f[3]) + " ways x " + std::to_string(f[4]) + "-byte lines";
  p.decided = true;
  return p;
}

}  // namespace

namespace {

// size_bytes: the product of the structure where decided (it must be the device's L2 size), else the
// device's L2 size with what the product lacks.
void write_whole_size(const json& t, json& c) {
  const json& s = t["l2_sets"];
  const json dev = s.value("l2_bytes", json());
  const Product p = whole_l2(t);
  Evidence ev = evidence_of(s, "ways");
  const json sl = t.value("l2_slices", json());
  if (sl.is_object()) ev.add(sl.value("benchmark", std::string()));
  const double conf = std::min(confidence_of(s, "sets_per_slice"), sl.is_object() ? confidence_of(sl, "slices_per_partition") : 0.0);
  c.erase("size_bytes_product");
  if (p.decided && dev.is_number() && p.bytes != dev.get<std::uint64_t>()) {
    c["size_bytes_product"] = p.bytes;
    set_null(c, "size_bytes",
             p.text + " = " + std::to_string(p.bytes) + " bytes, not the device's L2 size of " + dev.dump() +
                 " bytes (context l2_cache_bytes): a factor is wrong or not every slice is alike",
             ev);
    c.erase("size_source");
    c.erase("size_bracket_bytes");
    return;
  }
  if (p.decided) {
    set_value(c, "size_bytes", p.bytes, conf, ev,
              "the whole L2 from its structure: " + p.text + " = " + std::to_string(p.bytes) + " bytes" +
                  (dev.is_number() ? ", the device's L2 size (context l2_cache_bytes)" : std::string()));
    set_value(c, "size_source", "structure", conf, ev, "partitions x slices x sets per slice x ways x line");
  } else if (dev.is_number()) {
    set_value(c, "size_bytes", dev, 0.9, ev,
              "the device's L2 size (context l2_cache_bytes, the driver's figure); the product partitions x slices x "
              "sets per slice x ways x line is not decided: " + p.missing);
    set_value(c, "size_source", "device", 0.9, ev, "size_bytes is the device's L2 size: the structure's product lacks a factor");
  } else {
    set_null(c, "size_bytes", "the whole L2: neither the device's L2 size nor the structure's product (" + p.missing + ")", ev);
    c.erase("size_source");
    c.erase("size_bracket_bytes");
    return;
  }
  set_value(c, "size_bracket_bytes", json::array({c["size_bytes"], c["size_bytes"]}), 0.9, ev, "exact");
}

// index_bits: the slice from a hash of address bits (l2_slices), the set within a slice from
// l2_sets.index_within_slice.
void write_index(const json& t, json& c) {
  const json& s = t["l2_sets"];
  const json sl = t.value("l2_slices", json());
  const json within = s.value("index_within_slice", json());
  if (!sl.is_object() || !sl.value("slices", json()).is_number()) {
    const std::string why = sl.is_object() && sl.contains("provenance") && sl["provenance"].contains("slices")
                                ? sl["provenance"]["slices"].value("reason", std::string())
                                : std::string("no l2_slices section");
    if (!has_value(c, "index_bits"))
      set_null(c, "index_bits", "the L2's slices are not counted (l2_slices: " + why + "), so the index (slice, then set "
               "within the slice) is not decided", evidence_of(s, "sets"));
    return;
  }
  Evidence ev = evidence_of(sl, "slices");
  ev.add(sl.value("benchmark", std::string()));
  const std::string w = within.is_null() ? "not determined (" + (s.contains("provenance") && s["provenance"].contains("index_within_slice")
                                                                     ? s["provenance"]["index_within_slice"].value("reason", std::string())
                                                                     : std::string("no reason")) + ")"
                                         : within.get<std::string>();
  take(c, "index_bits", "hashed", confidence_of(sl, "slices"), ev,
       "l2_slices: " + sl["slices"].dump() + " slices chosen by a hash of address bits (bits_that_change_the_slice); the "
       "set within a slice: " + w);
  c["index_within_slice"] = within;
}

void recompute_confidence(json& c) {
  double conf = 1;
  for (auto k : {"size_bytes", "line_bytes", "sets", "ways", "replacement", "hit_latency_cycles"})
    conf = std::min(conf, confidence_of(c, k));
  c["confidence"] = conf;
}

}  // namespace

void merge_l2_story(json& t) {
  if (!t.contains("l2_sets") || !t["l2_sets"].is_object() || !t.contains("caches") || !t["caches"].contains("l2")) return;
  json& c = t["caches"]["l2"];
  const json& s = t["l2_sets"];
  c["one_sm_sees"] = one_sm_sees(c, t.value("l2_partitions", json()));
  for (auto k : {"line_bytes", "ways", "sets", "replacement"}) {
    const json v = s.value(k, json());
    if (v.is_null()) continue;
    const std::string note = s.contains("provenance") && s["provenance"].contains(k)
                                 ? s["provenance"][k].value("note", std::string())
                                 : std::string("l2_sets") ;
    take(c, k, v, std::string(k) == "line_bytes" ? 0.9 : confidence_of(s, k), evidence_of(s, k), "l2_sets: " + note);
  }
  write_index(t, c);
  write_whole_size(t, c);
  recompute_confidence(c);
}

std::string l2_ways_sentence(const json& s) {
  if (!s.is_object() || !s.value("ways", json()).is_number() || !s.contains("cyclic_reads")) return "";
  const auto W = s["ways"].get<std::uint64_t>();
  const json& cr = s["cyclic_reads"];
  std::vector<std::uint64_t> members, steps, outside;
  for (const auto& l : cr.value("leave_one_out", json::array()))
    if (l.value("members", json()).is_number()) {
      members.push_back(l["members"].get<std::uint64_t>());
      outside.push_back(l.value("outside", json::array()).size());
    }
  for (const auto& w : cr.value("sweeps", json::array()))
    if (w.value("step_k", json()).is_number()) steps.push_back(w["step_k"].get<std::uint64_t>());
  if (steps.empty()) return "";
  const std::uint64_t first = *std::min_element(steps.begin(), steps.end());
  const std::uint64_t last = *std::max_element(steps.begin(), steps.end());
  std::vector<std::uint64_t> sizes;
  for (const auto& x : s.value("minimal_set_sizes", json::array()))
    if (x.is_number()) sizes.push_back(x.get<std::uint64_t>());
  std::sort(sizes.begin(), sizes.end());
  std::string o = "Ways " + std::to_string(W) + ": ";
  if (!members.empty())
    o += "the leave-one-out checks find " + list(members) + " lines of one set each, every one of them needed for a miss "
         "(so at least " + std::to_string(members.front() - 1) + " ways); ";
  o += "the cyclic-read sweeps first miss at k = " + list(steps) + " lines, and k lines of one set all stay in it while k is at most the ways, whatever the policy, so the "
       "earliest step (k = " +
       std::to_string(first) + ") allows at most " + std::to_string(first - 1) + " ways";
  if (first - 1 < kAccelSimWays)
    o += ", not the " + std::to_string(kAccelSimWays) + " of Accel-Sim's H100 model (no miss before k = " +
         std::to_string(kAccelSimWays + 1) + ")";
  std::uint64_t out = 0;
  for (auto x : outside) out += x;
  if (last > first)
    o += "; later steps (up to k = " + std::to_string(last) + ") are sweeps whose first k lines include lines of other sets" +
         (out ? " (the checks found " + std::to_string(out) + " such line" + (out == 1 ? "" : "s") + ")" : std::string());
  if (!sizes.empty()) {
    std::size_t match = 0, smaller = 0;
    for (auto x : sizes) match += x == W || x == W + 1, smaller += x < W;
    o += "; of the verified minimal sets (" + list(sizes) + " lines) " + std::to_string(match) + " of " +
         std::to_string(sizes.size()) + " hold the " + std::to_string(W) + " or " + std::to_string(W + 1) +
         " lines a set of that many ways gives (the target and " + std::to_string(W) +
         " others overflow it; one more where a way holds a line the reads never displace), " + std::to_string(smaller) +
         " fewer and " + std::to_string(sizes.size() - match - smaller) +
         " more: a set from which no line can be dropped is minimal for the set's history under the policy, not the "
         "ways, so these sizes are evidence, not a count";
  }
  return o + ".";
}

}  // namespace memhier::analysis

namespace memhier::analysis {

void explain_slice_count(json& t) {
  if (!t.contains("l2_slices") || !t["l2_slices"].is_object() || !t.contains("l2_sets")) return;
  json& sl = t["l2_slices"];
  const json& s = t["l2_sets"];
  const json lp = t.value("l2_partitions", json());
  const json parts = lp.is_object() && lp.contains("map") ? lp["map"].value("partitions", json()) : json();
  if (sl.value("slices_per_partition", json()).is_number() || !sl.value("slices_per_partition_at_least", json()).is_number() ||
      !s.value("sets", json()).is_number() || !parts.is_number() || !sl.contains("contention"))
    return;
  const json& c = sl["contention"];
  const auto at_least = sl["slices_per_partition_at_least"].get<std::uint64_t>();
  const auto sets = s["sets"].get<std::uint64_t>(), P = parts.get<std::uint64_t>();
  const double draws = c.value("independent_lines", 0.0);
  // Slice counts that hold whole, equal sets (sets of the ways l2_sets measured): candidates, each
  // with the slices per partition its lines would leave unseen if they spread evenly.
  json cand = json::array();
  std::string text;
  for (std::uint64_t k = at_least; k <= 2 * at_least && cand.size() < 4; ++k) {
    if (sets % (P * k) != 0) continue;
    // every test line has a slice in each partition (l2_slices classes each partition's probes alone)
    const double n = static_cast<double>(k), unseen = n * std::pow(1 - 1 / n, draws);
    cand.push_back({{"slices_per_partition", k}, {"sets_per_slice", sets / (P * k)}, {"expected_unseen_slices", unseen}});
    text += (text.empty() ? "" : ", ") + std::to_string(k) + " (" + std::to_string(sets / (P * k)) + " sets per slice; " +
            std::to_string(std::lround(unseen * 1000) / 1000.0).substr(0, 5) + " slices of a partition expected unseen)";
  }
  std::string classes;
  for (const auto& p : c.value("by_partition", json::array()))
    classes += (classes.empty() ? "" : ", ") + p.value("classes", json()).dump();
  sl["slices_per_partition_candidates"] = cand;
  const std::string why =
      "the contention separates " + (classes.empty() ? std::to_string(at_least) : classes) + " classes per partition (" +
      c.value("references", json()).dump() + " reference lines, " + c.value("independent_lines", json()).dump() +
      " independent test lines), a count the L2's sets do not divide into equal slices; the counts of at least " +
      std::to_string(at_least) + " that give every slice the same whole number of the " + std::to_string(sets) +
      " sets (l2_sets) are " + (text.empty() ? std::string("none up to twice that") : text) +
      ": where a candidate leaves far less than one slice unseen, missing lines do not explain the shortfall, so "
      "classes merge (two slices' lines slow down together) or the slices differ in size, and the slice's own size "
      "is not measured on this device to choose among them";
  json& prov = sl["provenance"]["slices_per_partition"];
  prov["reason"] = why;
}

}  // namespace memhier::analysis
