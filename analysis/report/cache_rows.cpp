#include "analysis/report/cache_rows.hpp"

#include <algorithm>
#include <cstdio>

#include "analysis/report/format.hpp"

namespace memhier::analysis::report_rows {

namespace {

namespace rf = report_format;
using json = nlohmann::json;
using Fields = std::vector<std::pair<std::string, std::string>>;

const Fields kCacheFields = {
    {"size_bytes", "capacity"},
    {"onset_size_bytes", "misses begin (onset)"},
    {"half_point_bytes", "50 % point of the miss-rate curve"},
    {"one_sm_sees", "one SM sees (P-chase)"},
    {"line_bytes", "line"},
    {"sector_bytes", "fill granularity (sector)"},
    {"sets", "sets"},
    {"ways", "ways"},
    {"ways_one_set", "minimal eviction set"},
    {"replacement", "replacement policy"},
    {"replacement_probabilities", "replacement probability per way"},
    {"index_bits", "set index"},
    {"index_matrix", "set index as GF(2) matrix"},
    {"hit_latency_cycles", "hit latency"},
    {"miss_penalty_cycles", "miss penalty"},
    {"levels_between_hit_and_dram_cycles", "latency levels between hit and DRAM"},
    {"per_sm", "scope"},
    {"shared_with", "same physical array as"},
    {"slices_per_sm", "slices per SM"}};

const Fields kTlbFields = {{"entries", "entries"},
                           {"reach_per_entry_bytes", "reach per entry"},
                           {"size_bytes", "total reach"},
                           {"page_bytes", "page"},
                           {"sets", "sets"},
                           {"ways", "ways"},
                           {"replacement", "replacement policy"},
                           {"miss_penalty_cycles", "miss penalty"},
                           {"per_sm", "scope"},
                           {"shared_with", "same physical array as"}};

const Fields& fields_of(const std::string& name) { return is_tlb(name) ? kTlbFields : kCacheFields; }

bool determined(const json& c, const std::string& k) { return c.contains(k) && !c[k].is_null(); }

double num(const json& c, const std::string& k) { return c[k].get<double>(); }

bool pair_of_numbers(const json& c, const std::string& k) {
  return c.contains(k) && c[k].is_array() && c[k].size() == 2 && c[k][0].is_number() && c[k][1].is_number();
}

std::string size_source_text(const std::string& src) {
  if (src == "structure") return "sets × ways × line";
  if (src == "half_point") return "the 50 % point of the miss-rate curve";
  if (src == "model_fit") return "a fit of the miss-rate curve";
  if (src == "device") return "the device's L2 size (driver)";
  return src;
}

std::string capacity_text(const json& c) {
  const double v = num(c, "size_bytes");
  const std::string src = c.value("size_source", std::string());
  std::string s = rf::bytes_long(v);
  if (pair_of_numbers(c, "size_bracket_bytes") && c["size_bracket_bytes"][0] == c["size_bracket_bytes"][1] &&
      c["size_bracket_bytes"][0].get<double>() == v)
    s += ", exact" + (src.empty() ? "" : ": " + size_source_text(src));
  else {
    if (!src.empty()) s += ", " + size_source_text(src);
    if (pair_of_numbers(c, "size_bracket_bytes"))
      s += "; lies in " + rf::bytes_interval(c["size_bracket_bytes"][0].get<double>(), c["size_bracket_bytes"][1].get<double>(), true);
  }
  if (c.contains("size_carveout") && c["size_carveout"].is_number())
    s += " (at shared-memory carveout " + rf::plain(c["size_carveout"]) + " %)";
  return s;
}

std::string onset_text(const json& c) {
  const double v = num(c, "onset_size_bytes");
  std::string s = rf::bytes_long(v) + ", the largest footprint without capacity misses";
  if (pair_of_numbers(c, "onset_size_bracket_bytes")) {
    const double lo = c["onset_size_bracket_bytes"][0].get<double>(), hi = c["onset_size_bracket_bytes"][1].get<double>();
    if (lo != v) s += " (bracket " + rf::bytes_interval(lo, hi, false) + ")";
    s += "; the smallest with misses " + rf::bytes_long(hi);
  }
  return s;
}

// caches.l2.one_sm_sees: the P-chase's figures beside the whole L2.
std::string one_sm_text(const json& o) {
  std::string s;
  auto add = [&](const char* k, const char* label) {
    if (o.contains(k) && o[k].is_number()) s += (s.empty() ? "" : "; ") + std::string(label) + " " + rf::bytes_long(o[k].get<double>());
  };
  add("onset_size_bytes", "misses begin at");
  add("half_point_bytes", "50 % point");
  add("replication_limit_bytes", "replication limit");
  return s.empty() ? "—" : s + " (one SM's chase; not the L2's size)";
}

std::string half_point_text(const json& c) {
  std::string s = rf::bytes_long(num(c, "half_point_bytes"));
  if (pair_of_numbers(c, "half_point_bracket_bytes"))
    s += ", in " + rf::bytes_interval(c["half_point_bracket_bytes"][0].get<double>(), c["half_point_bracket_bytes"][1].get<double>(), true);
  return s;
}

// A TLB's total reach: entries × reach per entry where they multiply to it, and its measured bracket.
std::string total_reach_text(const json& c) {
  const double v = num(c, "size_bytes");
  std::string s = rf::bytes_long(v);
  if (determined(c, "entries") && determined(c, "reach_per_entry_bytes") && c["entries"].is_number() &&
      c["reach_per_entry_bytes"].is_number() && num(c, "entries") * num(c, "reach_per_entry_bytes") == v)
    s += " = " + rf::plain(c["entries"]) + " entries × " + rf::bytes_short(num(c, "reach_per_entry_bytes"));
  if (pair_of_numbers(c, "reach_bracket_bytes"))
    s += "; measured in " + rf::bytes_interval(c["reach_bracket_bytes"][0].get<double>(), c["reach_bracket_bytes"][1].get<double>(), false);
  return s;
}

std::string index_bits_text(const json& v) {
  if (v.is_array() && v.empty()) return "none (fully associative)";
  if (v.is_array() && v.size() == 2) return "address bits " + rf::plain(v[0]) + "–" + rf::plain(v[1]);
  return rf::plain(v);
}

std::string cycles_text(const json& c, const std::string& k) {
  std::string s = rf::plain(c[k]) + " cycles";
  if (k == "miss_penalty_cycles" && c.contains("miss_penalty_ci95_cycles") && c["miss_penalty_ci95_cycles"].is_number())
    s += " ± " + rf::plain(c["miss_penalty_ci95_cycles"], 3) + " (95 %)";
  return s;
}

std::string value_text(const json& c, const std::string& k) {
  const json& v = c[k];
  if (k == "size_bytes") return capacity_text(c);
  if (k == "onset_size_bytes") return onset_text(c);
  if (k == "one_sm_sees") return one_sm_text(v);
  if (k == "half_point_bytes") return half_point_text(c);
  if (k.size() > 6 && k.compare(k.size() - 6, 6, "_bytes") == 0 && v.is_number()) return rf::bytes_long(v.get<double>());
  if (k == "ways") return rf::ways_text(v);
  if (k == "ways_one_set") return rf::plain(v) + " lines";
  if (k == "replacement" && v.is_array()) {
    const auto rc = c.value("replacement_consistent", nlohmann::json::object());
    if (rc.value("classes", 1) <= 1) return "one of " + rf::list_text(v) + " (identical outcomes on every sequence run)";
    return "one of " + rf::list_text(v) + " (" + std::to_string(rc.value("policies", 0)) + " consistent policies in " +
           std::to_string(rc.value("classes", 0)) + " classes of identical outcomes; one named per class)";
  }
  if (k == "replacement_probabilities" && v.is_array()) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + rf::plain(x, 2);
    return s + " (sorted; the way numbering is not observable)";
  }
  if (k == "index_bits") return index_bits_text(v);
  if (k == "index_matrix" && v.is_array())
    return std::to_string(v.size()) + " rows: " + rf::list_text(v) +
           (pair_of_numbers(c, "index_matrix_bits") ? " (address bits " + rf::plain(c["index_matrix_bits"][0]) + "–" +
                                                          rf::plain(c["index_matrix_bits"][1]) + ")" : "");
  if (k == "levels_between_hit_and_dram_cycles") return rf::list_text(v) + " cycles";
  if (k.size() > 7 && k.compare(k.size() - 7, 7, "_cycles") == 0 && v.is_number()) return cycles_text(c, k);
  if (k == "per_sm" && v.is_boolean()) return v.get<bool>() ? "per SM" : "device-wide";
  if (k == "shared_with") return rf::list_text(v, "none");
  return rf::plain(v);
}

// Bounds that stand where a value is not determined: capacity, miss penalty, page.
void bound_rows(const std::string& name, const json& c, const std::string& k, std::vector<Row>& out) {
  if (k == "size_bytes" && c.contains("size_bytes_lower_bound") && c["size_bytes_lower_bound"].is_number())
    out.push_back({is_tlb(name) ? "total reach" : "capacity",
                   "at least " + rf::bytes_long(num(c, "size_bytes_lower_bound")) + " (lower bound)",
                   confidence_or(c, "size_bytes_lower_bound", "")});
  if (k == "miss_penalty_cycles" && c.contains("miss_penalty_lower_bound_cycles") && c["miss_penalty_lower_bound_cycles"].is_number())
    out.push_back({"miss penalty", "at least " + rf::plain(c["miss_penalty_lower_bound_cycles"]) + " cycles (lower bound)", ""});
  if (k == "page_bytes" && c.contains("page_bytes_at_most") && c["page_bytes_at_most"].is_number())
    out.push_back({"page", "at most " + rf::bytes_long(num(c, "page_bytes_at_most")), ""});
}

}  // namespace

bool is_tlb(const std::string& name) { return name.size() > 4 && name.compare(name.size() - 4, 4, "_tlb") == 0; }

std::string reason_of(const json& c, const std::string& k) {
  if (c.contains("provenance") && c["provenance"].contains(k)) {
    const std::string r = c["provenance"][k].value("reason", "");
    if (!r.empty()) return r;
  }
  return "no reason stated";
}

std::string confidence_or(const json& c, const std::string& k, const std::string& none) {
  if (!c.contains("provenance") || !c["provenance"].contains(k) || !c["provenance"][k].contains("confidence")) return none;
  char b[16];
  std::snprintf(b, sizeof b, "%.2f", c["provenance"][k].value("confidence", 0.0));
  return b;
}

std::vector<Row> rows(const std::string& name, const json& c) {
  std::vector<Row> out;
  const bool tlb = is_tlb(name);
  for (const auto& [k, label] : fields_of(name)) {
    if (!determined(c, k)) {
      if (!(tlb && k == "ways")) bound_rows(name, c, k, out);
      if (!(tlb && k == "sets" && determined(c, "ways"))) continue;
    }
    if (k == "half_point_bytes" && c.value("size_source", std::string()) == "half_point") continue;
    // the L2's whole story: one SM's onset and 50 % point are one row (one_sm_sees)
    if ((k == "half_point_bytes" || k == "onset_size_bytes") && c.contains("one_sm_sees")) continue;
    if (tlb && (k == "sets" || k == "ways")) {  // one row: sets × ways
      if (k == "sets") out.push_back({"sets × ways", rf::sets_ways_text(c.value("sets", json()), c.value("ways", json())),
                                      confidence_or(c, determined(c, "ways") ? "ways" : "sets", "")});
      continue;
    }
    out.push_back({label, tlb && k == "size_bytes" ? total_reach_text(c) : value_text(c, k), confidence_or(c, k, "")});
  }
  if (c.contains("prefetch") && c["prefetch"].is_object() && c["prefetch"].contains("detected") &&
      c["prefetch"]["detected"].is_boolean())
    out.push_back({"prefetch detected", rf::plain(c["prefetch"]["detected"]), confidence_or(c["prefetch"], "detected", "")});
  return out;
}

std::string summary_cell(const json& c, const std::string& k) {
  if (!determined(c, k)) {
    if (k == "size_bytes" && c.contains("size_bytes_lower_bound") && c["size_bytes_lower_bound"].is_number())
      return "≥ " + rf::bytes_short(num(c, "size_bytes_lower_bound"));
    if (k == "miss_penalty_cycles" && c.contains("miss_penalty_lower_bound_cycles") && c["miss_penalty_lower_bound_cycles"].is_number())
      return "≥ " + rf::plain(c["miss_penalty_lower_bound_cycles"]);
    return "—";
  }
  if (c[k].is_number() && k.find("bytes") != std::string::npos) {
    const std::string src = k == "size_bytes" ? c.value("size_source", std::string()) : "";
    return rf::bytes_short(num(c, k)) + (src == "half_point" ? " (50 % point)" : src == "model_fit" ? " (fit)" : src == "device" ? " (driver)" : "");
  }
  return rf::plain(c[k]);
}

std::map<std::string, std::vector<std::string>> undetermined(const std::string& name, const json& c,
                                                              const std::set<std::string>& shared) {
  std::map<std::string, std::vector<std::string>> out;
  const bool tlb = is_tlb(name);
  for (const auto& [k, label0] : fields_of(name)) {
    if (!c.contains(k) || !c[k].is_null() || shared.count(k + "\n" + reason_of(c, k))) continue;
    std::string label = label0;
    if (tlb && (k == "sets" || k == "ways") && c.contains("sets") && c["sets"].is_null() && c.contains("ways") &&
        c["ways"].is_null() && reason_of(c, "sets") == reason_of(c, "ways"))
      label = "sets × ways";
    auto& v = out[reason_of(c, k)];
    if (std::find(v.begin(), v.end(), label) == v.end()) v.push_back(label);
  }
  if (c.contains("prefetch") && c["prefetch"].is_object() && c["prefetch"].contains("detected") &&
      c["prefetch"]["detected"].is_null())
    out[reason_of(c["prefetch"], "detected")].push_back("prefetch");
  return out;
}

std::set<std::string> shared_reasons(const json& caches) {
  std::map<std::string, int> count;
  std::set<std::string> keys;
  for (const auto* f : {&kCacheFields, &kTlbFields})
    for (const auto& [k, label] : *f) keys.insert(k);
  for (auto& [n, c] : caches.items())
    for (const auto& k : keys)
      if (c.is_object() && c.contains(k) && c[k].is_null()) count[k + "\n" + reason_of(c, k)]++;
  std::set<std::string> s;
  for (auto& [key, n] : count)
    if (n == static_cast<int>(caches.size()) && caches.size() > 1) s.insert(key);
  return s;
}

bool empty_cache(const std::string& name, const json& c) {
  for (const auto& [k, label] : fields_of(name))
    if (k != "per_sm" && determined(c, k)) return false;
  for (const char* b : {"size_bytes_lower_bound", "miss_penalty_lower_bound_cycles"})
    if (c.contains(b) && c[b].is_number()) return false;
  return true;
}

std::string label_of(const std::string& key) {
  for (const auto* f : {&kCacheFields, &kTlbFields})
    for (const auto& [k, label] : *f)
      if (k == key) return label;
  return key;
}

}  // namespace memhier::analysis::report_rows
