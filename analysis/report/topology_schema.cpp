#include "analysis/report/topology_schema.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <set>

namespace memhier::analysis {

using json = nlohmann::json;

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Keys whose values name or identify something: text even where it reads as a number (a serial, a
// host name, compute capability "9.0", a driver "570.86", a list of peer indices "0" or "0,1").
bool textual_key(const std::string& key) {
  static const std::set<std::string> kText = {"compute_capability", "gpu_name", "gpu_serial", "gpu_slug", "gpu_uuid",
                                              "host_name", "peer_devices", "date", "sm_tag", "executable",
                                              "memhier_plan", "trace_dir"};
  return kText.count(key) > 0 || ends_with(key, "_version") || ends_with(key, "_uuid") || ends_with(key, "_name");
}

json number_of(const std::string& s) {
  static const std::regex kNumber(R"(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)");
  if (!std::regex_match(s, kNumber)) return nullptr;
  errno = 0;
  if (s.find_first_of(".eE") == std::string::npos) {
    const long long v = std::strtoll(s.c_str(), nullptr, 10);
    if (errno == 0) return v;
    errno = 0;
  }
  const double d = std::strtod(s.c_str(), nullptr);
  if (errno != 0) return nullptr;  // beyond a double: text
  return d;
}

bool numbers(const json& a) {
  return a.is_array() && std::all_of(a.begin(), a.end(), [](const json& x) { return x.is_number(); });
}

void shape_levels(json& at) {
  for (const char* k : {"levels", "levels_vmm_gap", "levels_vmm"})
    if (at.contains(k) && at[k].is_array())
      for (auto& l : at[k])
        if (l.is_object()) shape_ways(l);
}

void per_set(json& c) {
  if (!c.is_object()) return;
  if (c.contains("ways_per_set") && c["ways_per_set"].is_array()) {
    c["ways"] = c["ways_per_set"];
    c.erase("ways_per_set");
  } else if (c.contains("ways") && c["ways"].is_number_integer() && c.contains("sets") && c["sets"].is_number_integer() &&
             c["sets"].get<std::int64_t>() >= 0 &&
             c["sets"].get<std::int64_t>() <= (1 << 20)) {  // a hostile file's 10^18 sets: the count as it is
    c["ways"] = json(std::vector<json>(c["sets"].get<std::size_t>(), c["ways"]));
  }
}
}  // namespace

json device_value(const std::string& key, const json& v) {
  if (!v.is_string() || textual_key(key)) return v;
  const std::string s = v.get<std::string>();
  if (s == "true" || s == "false") return s == "true";
  if (json n = number_of(s); !n.is_null()) return n;
  if (!s.empty() && (s.front() == '[' || s.front() == '{')) {
    json j = json::parse(s, nullptr, false);
    if (!j.is_discarded() && (j.is_array() || j.is_object())) return j;
  }
  return v;
}

std::string input_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

void shape_ways(json& c) {
  if (!c.is_object()) return;
  if (c.contains("ways") && numbers(c["ways"])) {
    const json w = c["ways"];
    const bool agree = !w.empty() && std::all_of(w.begin(), w.end(), [&](const json& x) { return x == w.front(); });
    if (agree) {
      c["ways"] = w.front();
      c.erase("ways_per_set");
    } else {
      c["ways"] = nullptr;
      c["ways_per_set"] = w;
      if (c.contains("provenance") && c["provenance"].contains("ways") && c["provenance"]["ways"].is_object())
        c["provenance"]["ways"]["reason"] = "the sets differ: ways_per_set lists each set's ways";
    }
  }
  if (c.contains("alternatives") && c["alternatives"].is_array())
    for (auto& a : c["alternatives"]) shape_ways(a);
}

bool upgrade_topology(json& t) {
  if (!t.is_object() || !t.contains("schema")) return false;
  if (t["schema"] == kTopologySchema) return true;
  if (t["schema"] != kTopologySchemaV1) return false;
  t["schema"] = kTopologySchema;
  if (t.contains("device") && t["device"].is_object())
    for (auto& [k, v] : t["device"].items()) v = device_value(k, v);
  if (t.contains("inputs") && t["inputs"].is_array())
    for (auto& p : t["inputs"])
      if (p.is_string()) p = input_name(p.get<std::string>());
  if (t.contains("caches") && t["caches"].is_object())
    for (auto& [name, c] : t["caches"].items()) shape_ways(c);
  if (t.contains("address_translation") && t["address_translation"].is_object()) shape_levels(t["address_translation"]);
  return true;
}

json ways_by_set_view(const json& topology) {
  json t = topology;
  if (t.contains("caches") && t["caches"].is_object())
    for (auto& [name, c] : t["caches"].items()) {
      per_set(c);
      if (c.is_object() && c.contains("alternatives") && c["alternatives"].is_array())
        for (auto& a : c["alternatives"]) per_set(a);
    }
  if (t.contains("address_translation") && t["address_translation"].is_object())
    for (const char* k : {"levels", "levels_vmm_gap", "levels_vmm"})
      if (t["address_translation"].contains(k) && t["address_translation"][k].is_array())
        for (auto& l : t["address_translation"][k]) per_set(l);
  return t;
}

}  // namespace memhier::analysis
