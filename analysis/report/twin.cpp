#include "analysis/report/twin.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "analysis/report/json_numbers.hpp"
#include "analysis/report/topology_schema.hpp"
#include "common/policy.hpp"

namespace memhier::analysis {

using nlohmann::json;

namespace {

unsigned log2u(std::uint64_t x) {
  unsigned n = 0;
  while ((1ull << n) < x) ++n;
  return n;
}
std::uint64_t u64(double x) { return static_cast<std::uint64_t>(std::llround(x)); }

// What the writer knows while it builds: the lists of defaulted and derived fields.
struct Twin {
  const json& topo;
  json defaulted = json::array();
  json derived = json::array();
  void dflt(const std::string& field, const std::string& why) { defaulted.push_back(field + ": " + why); }
  void deriv(const std::string& field, const std::string& how) { derived.push_back(field + ": " + how); }
};

// A fixed GF(2) matrix for a hashed index whose matrix was not measured: row j holds address bit
// line_bits + j (so an aligned block of sets x line bytes spreads over every set, as on the GPU)
// and a pseudo-random choice of the bits above it up to bit 33 (rows independent by construction).
json pseudo_random_rows(unsigned line_bits, unsigned set_bits) {
  json rows = json::array();
  std::uint64_t s = 0x5eed0f7e1ull;
  for (unsigned j = 0; j < set_bits; ++j) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const unsigned hi = line_bits + set_bits;
    const std::uint64_t high = hi < 34 ? ((s >> 11) << hi) & ((1ull << 34) - 1) : 0;
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(high | (1ull << (line_bits + j))));
    rows.push_back(buf);
  }
  return rows;
}

// The replacement policy: the measured one, the nearest model for a class ("lru_or_fifo"), or LRU.
std::string policy_of(const json& v, std::uint32_t ways, const std::string& field, Twin& t) {
  // candidates that every experiment predicts alike (e.g. ["lru", "slru_p1"]): the first the
  // simulator models
  if (v.is_array()) {
    for (const auto& c : v)
      if (c.is_string() && !policy::canonical_policy_name(c.get<std::string>()).empty() &&
          policy::policy_ways_problem(policy::canonical_policy_name(c.get<std::string>()), ways).empty()) {
        t.deriv(field, "candidates " + v.dump() + " predict the measurements alike: the first the simulator models, " +
                           c.get<std::string>());
        return policy::canonical_policy_name(c.get<std::string>());
      }
  }
  const std::string measured = v.is_string() ? v.get<std::string>() : "";
  std::string p = policy::canonical_policy_name(measured);
  if (measured == "lru_or_fifo") {
    p = "lru";
    t.deriv(field, "'lru_or_fifo' (a cyclic chase cannot tell them apart): the nearest model, lru");
  } else if (p.empty()) {
    p = "lru";
    t.dflt(field, measured.empty() ? "not determined: lru" : "'" + measured + "' is no simulator model: lru");
  }
  if (!policy::policy_ways_problem(p, ways).empty()) {
    t.dflt(field, "'" + p + "' does not fit " + std::to_string(ways) + " ways: lru");
    p = "lru";
  }
  return p;
}

// The index: measured bits [lo, hi] -> modulo from lo (or bits); "hashed" -> a fixed GF(2) matrix
// (power-of-two sets) or modulo; null -> modulo. `sets` may be any count.
json index_of(const json& c, std::uint64_t line, std::uint64_t sets, const std::string& field, Twin& t) {
  const json ib = c.contains("index_bits") ? c["index_bits"] : json();
  if (ib.is_array() && ib.size() == 2 && ib[0].is_number_unsigned() && is_pow2(sets) &&
      (1ull << (ib[1].get<unsigned>() - ib[0].get<unsigned>() + 1)) == sets)
    return json{{"function", "modulo"}, {"shift", ib[0]}};
  if (ib == "hashed" && is_pow2(sets) && sets > 1) {
    t.dflt(field, "hashed, matrix not measured: a fixed pseudo-random GF(2) matrix (each row one bit of the "
                  "lowest log2(sets) above the line)");
    return json{{"function", "gf2"}, {"rows", pseudo_random_rows(log2u(line), log2u(sets))}};
  }
  if (sets > 1)
    t.dflt(field, ib == "hashed" ? "hashed over " + std::to_string(sets) + " sets (no power of two), not measured as "
                                   "a matrix: modulo, the nearest model the simulator has"
                                 : "not determined: modulo over the line number");
  return json{{"function", "modulo"}};
}

struct Geometry {
  std::uint64_t line = 0, sector = 0, sets = 0;
  json ways;             // a number or a list
  std::uint32_t max_ways = 0;
};

// Line, sector, sets and ways of a cache: measured, or the size (or its lower bound) split into
// `dflt_ways` ways of the line (the size rounded to whole sets, within its bracket where possible).
Geometry geometry_of(const json& c, const std::string& f, std::uint64_t dflt_line, std::uint32_t dflt_ways, Twin& t) {
  Geometry g;
  if (auto l = json_number(c, "line_bytes")) g.line = u64(*l);
  else g.line = dflt_line, t.dflt(f + ".line_bytes", "not determined: " + std::to_string(dflt_line));
  if (auto s = json_number(c, "sector_bytes")) g.sector = u64(*s);
  else g.sector = g.line, t.dflt(f + ".sector_bytes", "not determined: the line");
  if (c.contains("ways") && c["ways"].is_array() && !c["ways"].empty()) {
    bool equal = true;
    for (const auto& w : c["ways"]) {
      equal = equal && w == c["ways"][0];
      g.max_ways = std::max(g.max_ways, w.get<std::uint32_t>());
    }
    g.ways = equal ? c["ways"][0] : c["ways"];
    g.sets = c["ways"].size();
    return g;
  }
  std::optional<double> size = json_number(c, "size_bytes");
  if (!size && (size = json_number(c, "size_bytes_lower_bound")))
    t.dflt(f + ".size_bytes", "not determined: its lower bound " + std::to_string(u64(*size)));
  if (!size) size = 16384.0, t.dflt(f + ".size_bytes", "not determined: 16384");
  g.max_ways = dflt_ways;
  g.ways = dflt_ways;
  const double per_set = static_cast<double>(g.line) * dflt_ways;
  g.sets = 1;  // a power of two (a modulo over few sets maps a regular stride onto a few of them)
  while (static_cast<double>(g.sets * 2) * per_set <= *size * 1.25) g.sets *= 2;
  t.dflt(f + ".ways", "not determined: " + std::to_string(dflt_ways));
  if (static_cast<double>(g.sets) * per_set != *size)
    t.dflt(f + ".size_bytes", "measured " + std::to_string(u64(*size)) + " is no whole number of " +
                                  std::to_string(dflt_ways) + "-way sets of a power-of-two count: " +
                                  std::to_string(g.sets * u64(per_set)));
  t.dflt(f + ".sets", "not determined: the power of two nearest size / (line x ways): " + std::to_string(g.sets));
  return g;
}

json cache_level(const json& c, const std::string& name, std::uint64_t dflt_line, Twin& t) {
  const std::string f = "levels." + name;
  Geometry g = geometry_of(c, f, dflt_line, 4, t);
  json L = {{"name", name}, {"line_bytes", g.line}, {"sector_bytes", g.sector}, {"sets", g.sets}, {"ways", g.ways}};
  L["index"] = index_of(c, g.line, g.sets, f + ".index", t);
  L["replacement"] = policy_of(c.value("replacement", json()), g.max_ways, f + ".replacement", t);
  if (auto h = json_number(c, "hit_latency_cycles")) L["hit_latency_cycles"] = u64(*h);
  else L["hit_latency_cycles"] = 100, t.dflt(f + ".hit_latency_cycles", "not determined: 100");
  return L;
}

}  // namespace

namespace {

// A cache of an unmeasured index whose sets are no power of two: the same lines as a power of two of
// sets under the fixed GF(2) hash (a modulo over 15360 sets puts a 12-line stride onto 1/12 of them,
// which the GPU's hash does not).
void recut_hashed(json& L, const std::string& field, Twin& t) {
  const std::uint64_t sets = L["sets"].get<std::uint64_t>();
  if (is_pow2(sets) || !L["ways"].is_number()) return;
  const std::uint64_t lines = sets * L["ways"].get<std::uint64_t>();
  std::uint64_t s2 = 1;
  while (s2 * 2 <= sets && lines % (s2 * 2) == 0) s2 *= 2;
  if (s2 < 2 || lines / s2 > 4096) return;
  const std::uint64_t line = L["line_bytes"].get<std::uint64_t>();
  L["index"] = {{"function", "gf2"}, {"rows", pseudo_random_rows(log2u(line), log2u(s2))}};
  t.deriv(field, std::to_string(sets) + " sets x " + L["ways"].dump() + " ways, index not measured: the same " +
                     std::to_string(lines) + " lines as " + std::to_string(s2) + " sets x " + std::to_string(lines / s2) +
                     " ways under the fixed GF(2) hash (a modulo index would fold regular strides onto few sets)");
  L["sets"] = s2;
  L["ways"] = lines / s2;
  const std::string ix = field.substr(0, field.rfind('.')) + ".index";
  json kept = json::array();
  for (const auto& d : t.defaulted)
    if (d.get<std::string>().rfind(ix + ":", 0) != 0) kept.push_back(d);
  t.defaulted = kept;
  t.dflt(ix, "not measured: a fixed pseudo-random GF(2) matrix over the power-of-two sets");
}

// The L2 one SM sees: the measured structure, or the sets of the eviction-set search (l2_sets) in
// one partition (an SM's lines are cached in its own partition) when that lies in the capacity
// bracket of the P-chase, else the P-chase's size split into the measured (or 16) ways.
json l2_level(const json& topo, Twin& t) {
  json c = topo["caches"]["l2"];
  // A topology whose caches.l2 is the whole L2 (its size from partitions x slices x sets x ways x
  // line) keeps what one SM's chase sees under one_sm_sees: the twin's level is that view.
  if (c.contains("one_sm_sees") && c["one_sm_sees"].is_object()) {
    const json v = c["one_sm_sees"];
    c["size_bytes"] = v.value("half_point_bytes", json());
    c["size_bracket_bytes"] = v.value("half_point_bracket_bytes", json());
    c.erase("ways");
    c.erase("sets");
    t.deriv("levels.l2.size_bytes", "caches.l2 is the whole L2; the level is what one SM sees (one_sm_sees)");
  }
  if (c.contains("ways") && c["ways"].is_array()) return cache_level(c, "l2", 128, t);
  const json ls = topo.value("l2_sets", json::object());
  const auto sets = json_number(ls, "sets"), ways = json_number(ls, "ways");
  const json map = topo.value("l2_partitions", json::object()).value("map", json::object());
  const std::uint64_t parts = json_number(map, "partitions") ? u64(*json_number(map, "partitions")) : 1;
  const std::uint64_t line = json_number(c, "line_bytes") ? u64(*json_number(c, "line_bytes")) : 128;
  const json br = c.value("size_bracket_bytes", json());
  if (sets && ways && u64(*sets) % parts == 0) {
    const std::uint64_t s = u64(*sets) / parts, cap = s * u64(*ways) * line;
    const bool in = !br.is_array() || br.size() != 2 ||
                    (cap >= br[0].get<double>() * 0.95 && cap <= br[1].get<double>() * 1.05);
    if (in) {
      json c2 = c;
      c2["ways"] = json::array();
      for (std::uint64_t i = 0; i < s; ++i) c2["ways"].push_back(u64(*ways));
      if (c2.value("replacement", json()).is_null()) c2["replacement"] = ls.value("replacement", json());
      t.deriv("levels.l2.sets", std::to_string(u64(*sets)) + " sets (l2_sets) / " + std::to_string(parts) +
                                    " partitions (l2_partitions) = " + std::to_string(s) + " sets one SM sees, " +
                                    std::to_string(cap) + " bytes, inside the P-chase's capacity bracket");
      t.deriv("levels.l2.ways", "l2_sets.ways (eviction sets)");
      if (c.value("replacement", json()).is_null() && ls.value("replacement", json()).is_string())
        t.deriv("levels.l2.replacement", "l2_sets.replacement (policy sequences in one set)");
      json L = cache_level(c2, "l2", 128, t);
      if (!c.value("index_bits", json()).is_array()) recut_hashed(L, "levels.l2.sets", t);
      return L;
    }
  }
  json c2 = c;
  if (ways) c2["ways"] = json();  // geometry_of splits the size into the default ways
  return cache_level(c2, "l2", 128, t);
}

// One TLB level of address_translation.levels (malloc): entries, the region one entry covers, the
// page, the associativity, the replacement and the miss penalty.
json tlb_level(const json& lv, const json& at, std::uint64_t prev_entry, Twin& t) {
  const std::string name = lv.value("name", "tlb");
  const std::string f = "tlbs." + name;
  const std::uint64_t page_max = json_number(at, "page_bytes_at_most") ? u64(*json_number(at, "page_bytes_at_most")) : 2097152;
  std::uint64_t page = json_number(at, "page_bytes") ? u64(*json_number(at, "page_bytes")) : 0;
  if (!page) page = page_max, t.dflt(f + ".page_bytes", "not observable: page_bytes_at_most " + std::to_string(page_max));
  std::uint64_t entry = json_number(lv, "reach_per_entry_bytes") ? u64(*json_number(lv, "reach_per_entry_bytes")) : 0;
  if (!entry) entry = prev_entry ? prev_entry : page, t.dflt(f + ".entry_bytes", "not determined: " + std::to_string(entry) + " (the level before's)");
  std::uint64_t entries = json_number(lv, "entries") ? u64(*json_number(lv, "entries")) : 0;
  if (!entries && json_number(lv, "total_reach_bytes")) {
    entries = std::max<std::uint64_t>(1, u64(*json_number(lv, "total_reach_bytes")) / entry);
    t.deriv(f + ".entries", "total_reach_bytes / entry_bytes = " + std::to_string(entries));
  }
  if (!entries) entries = 1024, t.dflt(f + ".entries", "not determined: 1024");
  json T = {{"name", name}, {"page_bytes", page}, {"entry_bytes", entry}, {"entries", entries}};
  std::uint64_t ways = 0, sets = 0;
  if (lv.contains("ways") && lv["ways"].is_array() && !lv["ways"].empty() && json_number(lv, "sets")) {
    ways = lv["ways"][0].get<std::uint64_t>(), sets = u64(*json_number(lv, "sets"));
  } else {
    // one set of every entry: a reach curve that steps at its entries and nowhere else, as the
    // measured one did (sets of a few ways under modulo moved the H200's twin's step 4 entries up)
    // (the simulator's sets hold at most 4096 ways: beyond, sets of 32, 16, ... ways under modulo)
    sets = 1, ways = entries;
    if (entries > 4096) {
      ways = 0;
      for (std::uint64_t w : {32u, 16u, 8u, 4u, 2u, 1u})
        if (!ways && entries % w == 0) ways = w;
      sets = entries / ways;
    }
    t.dflt(f + ".sets", "not determined: " + std::to_string(sets) + " sets x " + std::to_string(ways) +
                            (sets == 1 ? " ways (fully associative)" : " ways, modulo"));
  }
  T["sets"] = sets;
  T["ways"] = ways;
  T["entries"] = sets * ways;
  const auto vmm = json_number(at, "entry_region_bytes_vmm_gap");
  T["entry_scope"] = vmm && u64(*vmm) >= entry && entry > page ? "virtual" : "pages";
  T["replacement"] = policy_of(lv.value("replacement", json()), static_cast<std::uint32_t>(ways), f + ".replacement", t);
  if (auto p = json_number(lv, "miss_penalty_cycles")) T["miss_penalty_cycles"] = u64(*p);
  else if (auto lb = json_number(lv, "miss_penalty_lower_bound_cycles"))
    T["miss_penalty_cycles"] = u64(*lb), t.dflt(f + ".miss_penalty_cycles", "not determined: its lower bound " + std::to_string(u64(*lb)));
  else T["miss_penalty_cycles"] = 100, t.dflt(f + ".miss_penalty_cycles", "not determined: 100");
  return T;
}

json device_block(const json& d, Twin& t) {
  auto need = [&](const char* k) {
    auto v = device_number(d, k);
    if (!v) throw std::runtime_error(std::string("topology: device.") + k + " missing (no twin without it)");
    return u64(*v);
  };
  json o = {{"gpu_name", "Twin of " + d.value("gpu_name", std::string("a measured GPU"))},
            {"compute_capability", d.value("compute_capability", std::string("0.0"))},
            {"sm_count", need("sm_count")}, {"sm_clock_khz", need("sm_clock_khz")},
            {"smem_per_sm_bytes", need("smem_per_sm_bytes")}, {"global_mem_bytes", need("global_mem_bytes")},
            {"l2_bytes", need("l2_cache_bytes")}};
  if (auto v = device_number(d, "smem_per_block_optin_bytes")) o["smem_per_block_optin_bytes"] = u64(*v);
  if (auto v = device_number(d, "chase_limit_bytes_constant")) o["const_bytes"] = u64(*v);
  (void)t;
  return o;
}

// Which level answers each load path: ldg and texture share the L1's level where the archive says
// the caches are one (shared_with) and the hit latencies agree within a cycle; else their own.
void add_paths(const json& caches, json& cfg, Twin& t) {
  json paths = json::object();
  const bool l1 = caches.contains("l1") && caches["l1"].value("present", false);
  auto own = [&](const char* cache, const char* path) -> std::string {
    if (!caches.contains(cache) || !caches[cache].value("present", false)) return "";
    const json& c = caches[cache];
    const auto sw = c.value("shared_with", json::array());
    const bool shared = l1 && sw.is_array() && std::find(sw.begin(), sw.end(), json("l1")) != sw.end();
    const auto a = json_number(c, "hit_latency_cycles"), b = json_number(caches["l1"], "hit_latency_cycles");
    if (shared && a && b && std::fabs(*a - *b) <= 1) return "l1";
    if (shared)
      t.deriv(std::string("levels.") + cache, std::string("one cache with the L1 (shared_with), but the ") + path +
                                                  " path's hit latency differs: a level of the same structure "
                                                  "with its own latency (the sharing is not modelled)");
    cfg["levels"].push_back(cache_level(c, cache, 128, t));
    return cache;
  };
  auto add = [&](const char* path, std::vector<std::string> lv) { paths[path] = {{"levels", lv}}; };
  if (l1) {
    cfg["levels"].push_back(cache_level(caches["l1"], "l1", 128, t));
    add("global_ca", {"l1", "l2"});
  } else {
    add("global_ca", {"l2"});
  }
  const std::string ro = own("readonly", "ldg"), tx = own("texture", "texture");
  add("ldg", ro.empty() ? std::vector<std::string>{"l2"} : std::vector<std::string>{ro, "l2"});
  add("texture", tx.empty() ? std::vector<std::string>{"l2"} : std::vector<std::string>{tx, "l2"});
  add("global_cg", {"l2"});
  std::vector<std::string> cl;
  for (const char* k : {"constant_l1", "constant_l15"})
    if (caches.contains(k) && caches[k].value("present", false)) {
      cfg["levels"].push_back(cache_level(caches[k], k, 64, t));
      cl.push_back(k);
    }
  cl.push_back("l2");
  add("constant", cl);
  cfg["paths"] = paths;
}

}  // namespace

namespace {

// The L2 beyond one SM's chase: the eviction-set model (l2_evsets) and the slices (l2_slices).
void add_l2_models(const json& topo, json& cfg, Twin& t) {
  const json ls = topo.value("l2_sets", json::object());
  if (json_number(ls, "sets") && json_number(ls, "ways")) {
    const std::uint64_t sets = u64(*json_number(ls, "sets"));
    cfg["l2_evsets"] = {{"ways", u64(*json_number(ls, "ways"))}, {"sets", sets}, {"line_bytes", 128},
                        {"index", ls.value("index_within_slice", json()).is_string() || !is_pow2(sets) ? "hash" : "modulo"},
                        {"policy", policy_of(ls.value("replacement", json()), u64(*json_number(ls, "ways")), "l2_evsets.policy", t)}};
  }
  const json sl = topo.value("l2_slices", json::object());
  const json map = topo.value("l2_partitions", json::object()).value("map", json::object());
  if (json_number(sl, "slices_per_partition") && json_number(map, "partitions")) {
    const json h = sl.value("hit_latency_cycles", json::object());
    json s = {{"partitions", u64(*json_number(map, "partitions"))}, {"slices_per_partition", u64(*json_number(sl, "slices_per_partition"))},
              {"hash", "modulo"}};
    t.dflt("l2_slices.hash", "the slice hash was not measured as masks: modulo over folded line numbers");
    if (json_number(h, "p05") && json_number(h, "p95")) {
      s["hit_cycles"] = u64(*json_number(h, "p05"));
      s["spread_cycles"] = u64(*json_number(h, "p95") - *json_number(h, "p05"));
      t.deriv("l2_slices.hit_cycles", "the 5th percentile of the fingerprint's hit latencies; spread to the 95th");
    }
    cfg["l2_slices"] = s;
  }
}

// Per level, the fields defaulted or derived, as its "note" (so the file says it where it is read).
void annotate(json& cfg, const Twin& t) {
  for (const char* list : {"levels", "tlbs"})
    for (auto& L : cfg[list]) {
      std::string note;
      const std::string pre = std::string(list) + "." + L["name"].get<std::string>();
      for (const auto* src : {&t.defaulted, &t.derived})
        for (const auto& d : *src) {
          const std::string s = d.get<std::string>();
          if (s.rfind(pre + ".", 0) == 0 || s.rfind(pre + ":", 0) == 0)
            note += (note.empty() ? "" : "; ") + std::string(src == &t.defaulted ? "DEFAULTED " : "derived ") +
                    (s[pre.size()] == '.' ? s.substr(pre.size() + 1) : s.substr(pre.size() + 2));
        }
      if (!note.empty()) L["note"] = note;
    }
}

// The L2 as a path sees it. The simulator gives a level one hit latency for every path; where a
// first level's hit + miss penalty (an L2 hit through it, measured) differs from the L2's own hit by
// more than 3 %, that path gets a copy of the L2 with that latency ("l2_<level>"). Where one SM sees
// one partition of a partitioned L2 (l2_level), the whole L2 follows at the far partition's latency
// ("l2_far": a line the near copy lost is still in the far partition).
void add_l2_views(const json& topo, json& cfg, Twin& t) {
  json& levels = cfg["levels"];
  const json l2 = levels.back();
  const double l2_hit = l2["hit_latency_cycles"].get<double>();
  const json map = topo.value("l2_partitions", json::object()).value("map", json::object());
  const json ls = topo.value("l2_sets", json::object());
  const bool far = json_number(map, "far_latency_cycles") && json_number(ls, "sets") && json_number(ls, "ways") &&
                   l2["sets"].get<double>() < *json_number(ls, "sets");
  if (far) {
    json F = {{"name", "l2_far"}, {"line_bytes", l2["line_bytes"]}, {"sector_bytes", l2["sector_bytes"]},
              {"sets", u64(*json_number(ls, "sets"))}, {"ways", u64(*json_number(ls, "ways"))}, {"index", {{"function", "modulo"}}},
              {"replacement", l2["replacement"]}, {"hit_latency_cycles", u64(*json_number(map, "far_latency_cycles"))}};
    recut_hashed(F, "levels.l2_far.sets", t);
    levels.push_back(F);
    t.deriv("levels.l2_far", "the whole L2 (l2_sets: " + std::to_string(u64(*json_number(ls, "sets"))) + " sets x " +
                                 std::to_string(u64(*json_number(ls, "ways"))) + " ways) at the far partition's hit latency "
                                 "(l2_partitions.map.far_latency_cycles), behind the near copy");
  }
  for (auto& [path, p] : cfg["paths"].items()) {
    json& lv = p["levels"];
    const auto it = std::find(lv.begin(), lv.end(), json("l2"));
    if (it == lv.end()) continue;
    const std::size_t at = static_cast<std::size_t>(it - lv.begin());
    if (far) lv.insert(lv.begin() + static_cast<long>(at) + 1, "l2_far");
    if (at == 0 || path == "constant") continue;
    const std::string first = lv[at - 1].get<std::string>();
    const json c = topo["caches"].value(first, json::object());
    const auto h = json_number(c, "hit_latency_cycles"), pen = json_number(c, "miss_penalty_cycles");
    if (!h || !pen || std::fabs(*h + *pen - l2_hit) <= 0.03 * l2_hit) continue;
    const std::string view = "l2_" + first;
    if (std::none_of(levels.begin(), levels.end(), [&](const json& L) { return L["name"] == view; })) {
      json V = l2;
      V["name"] = view;
      V.erase("note");
      V["hit_latency_cycles"] = u64(*h + *pen);
      levels.push_back(V);
      t.deriv("levels." + view, "the L2 seen through " + first + ": its hit " + std::to_string(u64(*h)) +
                                    " + miss penalty " + std::to_string(u64(*pen)) + " cycles, not the L2's " +
                                    std::to_string(u64(l2_hit)) + " (a copy of the L2: the contents are not shared)");
    }
    lv[at] = view;
  }
}

}  // namespace

json twin_config(const json& topology, const std::string& name) {
  if (!topology.is_object() || !topology.contains("device") || !topology.contains("caches"))
    throw std::runtime_error("topology: no 'device' or 'caches' block (not a memhier topology?)");
  const json topo = ways_by_set_view(topology);  // memhier-topology/1 and /2 alike: ways by set
  Twin t{topo};
  const json& d = topo["device"];
  json cfg = {{"format", "memhier-sim-config/1"}, {"name", name}};
  cfg["description"] = "A simulated twin of " + d.value("gpu_name", std::string("a GPU")) + " (driver " +
                       d.value("driver_version", std::string("?")) + ", archive of " + d.value("date", std::string("?")) +
                       "), written by memhier-infer --twin-config from its topology.json alone. Every value the "
                       "archive left undetermined is listed in 'defaulted' (and in its level's note); values "
                       "computed from other measurements in 'derived'.";
  cfg["device"] = device_block(d, t);
  json ctx = json::object();
  for (const char* k : {"mem_clock_khz", "mem_bus_width_bits", "theoretical_dram_bytes_per_second"})
    if (d.contains(k) && d[k].is_string()) ctx[k] = d[k];
  cfg["context"] = ctx;
  const json m = topo.value("measurement", json::object());
  cfg["clock_overhead"] = {{"pair_cycles", json_number(m, "clock_overhead_pair_cycles").value_or(0)},
                           {"fine_cycles", json_number(m, "clock_overhead_fine_cycles").value_or(0)}};
  if (!json_number(m, "clock_overhead_fine_cycles")) t.dflt("clock_overhead", "not measured: 0");
  // DRAM: the L2 P-chase's own miss level (hit + miss penalty) where measured, else the latency spectrum's.
  const json& l2c = topo["caches"].value("l2", json::object());
  const auto dram = json_number(topo.value("global_memory", json::object()), "dram_latency_cycles");
  if (json_number(l2c, "hit_latency_cycles") && json_number(l2c, "miss_penalty_cycles")) {
    cfg["dram_latency_cycles"] = u64(*json_number(l2c, "hit_latency_cycles") + *json_number(l2c, "miss_penalty_cycles"));
    t.deriv("dram_latency_cycles", "the L2's hit + miss penalty (global_cg P-chase); global_memory.dram_latency_cycles " +
                                       (dram ? std::to_string(u64(*dram)) : std::string("null")) + " (latency spectrum)");
  } else {
    cfg["dram_latency_cycles"] = dram ? u64(*dram) : 600;
    if (!dram) t.dflt("dram_latency_cycles", "not measured: 600");
  }
  cfg["levels"] = json::array();
  add_paths(topo["caches"], cfg, t);
  const auto smem = json_number(topo.value("shared_memory", json::object()), "latency_cycles");
  cfg["levels"].push_back({{"name", "shared"}, {"kind", "scratchpad"}, {"hit_latency_cycles", smem ? u64(*smem) : 30}});
  if (!smem) t.dflt("levels.shared.hit_latency_cycles", "not measured: 30");
  cfg["paths"]["shared"] = {{"levels", {"shared"}}};
  cfg["levels"].push_back(l2_level(topo, t));
  add_l2_views(topo, cfg, t);
  const json at = topo.value("address_translation", json::object());
  json tlbs = json::array();
  std::uint64_t prev = 0;
  for (const auto& lv : at.value("levels", json::array())) {
    if (!lv.value("entries", json()).is_number() && !lv.value("total_reach_bytes", json()).is_number() &&
        !lv.value("miss_penalty_cycles", json()).is_number() && !lv.value("miss_penalty_lower_bound_cycles", json()).is_number())
      continue;  // a level the archive saw nothing of
    tlbs.push_back(tlb_level(lv, at, prev, t));
    prev = tlbs.back()["entry_bytes"].get<std::uint64_t>();
  }
  if (!tlbs.empty()) cfg["tlbs"] = tlbs;
  for (auto& [path, p] : cfg["paths"].items()) {
    if (!tlbs.empty() && path != "constant" && path != "shared") p["translated"] = true;
    if (auto lim = device_number(d, ("chase_limit_bytes_" + path).c_str())) p["max_array_bytes"] = u64(*lim);
  }
  add_l2_models(topo, cfg, t);
  annotate(cfg, t);
  cfg["defaulted"] = t.defaulted;
  cfg["derived"] = t.derived;
  return cfg;
}

}  // namespace memhier::analysis
