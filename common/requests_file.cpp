#include "common/requests_file.hpp"

#include <cstdint>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/text_file.hpp"

namespace memhier {
namespace {

using json = nlohmann::json;

struct KeySpec {
  bool is_string;
  std::int64_t lo = 0, hi = 0;         // integers
  std::set<std::string> values;        // strings
};
using Schema = std::map<std::string, KeySpec>;

const std::map<std::string, Schema>& schemas() {
  static const std::map<std::string, Schema> s = {
      {"pchase",
       {{"path", {true, 0, 0, {"global_ca", "global_cg", "ldg", "texture", "constant", "shared"}}},
        {"mode", {true, 0, 0, {"classic", "fine", "count"}}},
        {"bytes", {false, 4, kRequestMaxBytes, {}}},
        {"stride", {false, 4, kRequestMaxBytes, {}}},
        {"iters", {false, 0, kRequestMaxIters, {}}},
        {"warm", {false, 0, 1, {}}},
        {"carveout", {false, -1, 100, {}}},
        {"max_records", {false, 1, kRequestMaxRecords, {}}}}},
      // whole-memory chases (bench/families/tlb.cpp checks the geometry: stride a multiple of 128 ...)
      {"tlb",
       {{"bytes", {false, 4, kRequestMaxBytes, {}}},
        {"stride", {false, 4, kRequestMaxBytes, {}}},
        {"alloc", {true, 0, 0, {"malloc", "vmm", "vmm_gap"}}},
        {"mode", {true, 0, 0, {"count", "fine"}}},
        {"lines", {false, 1, 1ll << 24, {}}},
        {"span", {false, 1, kRequestMaxBytes, {}}},
        {"seed", {false, 0, 1ll << 32, {}}},
        {"timed", {false, 1, 1ll << 22, {}}}}},
  };
  return s;
}
const std::map<std::string, std::set<std::string>> kRequired = {{"pchase", {"path", "bytes", "stride"}},
                                                                {"tlb", {"bytes", "stride"}}};

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw std::runtime_error(where + ": " + what); }

RequestItem read_item(const json& item, const std::string& where) {
  if (!item.is_object()) fail(where, "must be an object");
  RequestItem r;
  for (auto& [k, v] : item.items()) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      fail(where + "." + k, "integer out of range");
    if (v.is_boolean()) r.num[k] = v.get<bool>() ? 1 : 0;
    else if (v.is_number_integer()) r.num[k] = v.get<std::int64_t>();
    else if (v.is_string()) r.str[k] = v.get<std::string>();
    else if (v.is_number()) fail(where + "." + k, "must be an integer, not " + v.dump());
    else fail(where + "." + k, "must be an integer or a string");
  }
  return r;
}

void check_item(const std::string& family, const RequestItem& r, const std::string& where) {
  const Schema& schema = schemas().at(family);
  for (const auto& [k, v] : r.num) {
    auto it = schema.find(k);
    if (it == schema.end()) fail(where, "unknown key '" + k + "'");
    if (it->second.is_string) fail(where + "." + k, "must be a string");
    if (v < it->second.lo || v > it->second.hi)
      fail(where + "." + k, std::to_string(v) + " is outside [" + std::to_string(it->second.lo) + ", " +
                                std::to_string(it->second.hi) + "]");
  }
  for (const auto& [k, v] : r.str) {
    auto it = schema.find(k);
    if (it == schema.end()) fail(where, "unknown key '" + k + "'");
    if (!it->second.is_string) fail(where + "." + k, "must be an integer");
    if (!it->second.values.count(v)) fail(where + "." + k, "unknown " + k + " '" + v + "'");
  }
  for (const auto& k : kRequired.at(family))
    if (!r.num.count(k) && !r.str.count(k)) fail(where, "missing key '" + k + "'");
  const std::int64_t bytes = r.get("bytes", 0), stride = r.get("stride", 0);
  if (stride % 4) fail(where + ".stride", std::to_string(stride) + " is not a multiple of 4 (elements are 4 bytes)");
  if (stride > bytes)
    fail(where + ".stride", std::to_string(stride) + " is larger than the array (" + std::to_string(bytes) + " bytes)");
  if (bytes / stride > 0xFFFFFFFFll) fail(where, "more than 2^32 elements on the chain");
}

}  // namespace

RequestFile parse_requests(const std::string& text, const std::string& origin) {
  json j;
  try {
    j = json::parse(text);
  } catch (const std::exception& e) {
    fail(origin, "not valid JSON (" + std::string(e.what()) + ")");
  }
  if (!j.is_object() || !j.contains("format") || !j["format"].is_string() ||
      j["format"].get<std::string>() != "memhier-requests/1")
    fail(origin, "not a memhier-requests/1 file (see docs/formats.md)");
  RequestFile out;
  for (auto& [family, list] : j.items()) {
    if (family == "format") continue;
    if (family == "last_round") {  // the analyzer's word that its budget allows no round after this one
      if (!list.is_boolean()) fail(origin, "'last_round' must be true or false");
      continue;
    }
    if (!list.is_array()) fail(origin, "'" + family + "' must be a list");
    auto& items = out[family];
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string where = origin + ": " + family + "[" + std::to_string(i) + "]";
      items.push_back(read_item(list[i], where));
      if (schemas().count(family)) check_item(family, items.back(), where);
    }
  }
  return out;
}

RequestFile load_requests(const std::string& path) {
  return parse_requests(read_text_file(path, "cannot open the requests file"), path);
}

}  // namespace memhier
