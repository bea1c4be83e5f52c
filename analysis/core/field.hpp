// Every inferred value carries a confidence (0..1), the benchmarks that decided it, and, when it is
// null, the reason. Values sit as plain keys of their section (size_bytes: 16384) and their
// provenance under `provenance.<key>` = {confidence, evidence[], reason}.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace memhier::analysis {

struct Evidence {
  std::vector<std::string> names;
  void add(const std::string& n) { names.push_back(n); }
  void add(const Evidence& e) { names.insert(names.end(), e.names.begin(), e.names.end()); }
  nlohmann::json to_json(std::size_t max_listed = 12) const;
};

// section[key] = value; section.provenance[key] = {confidence, evidence}.
void set_value(nlohmann::json& section, const std::string& key, nlohmann::json value, double confidence,
               const Evidence& evidence, const std::string& note = "");
// section[key] = null; section.provenance[key] = {confidence: 0, reason}.
void set_null(nlohmann::json& section, const std::string& key, const std::string& reason,
              const Evidence& evidence = {});
bool has_value(const nlohmann::json& section, const std::string& key);

}  // namespace memhier::analysis
