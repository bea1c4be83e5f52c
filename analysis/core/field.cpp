#include "analysis/core/field.hpp"

#include <algorithm>
#include <cmath>

namespace memhier::analysis {

nlohmann::json Evidence::to_json(std::size_t max_listed) const {
  std::vector<std::string> u = names;
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  nlohmann::json j = nlohmann::json::array();
  for (std::size_t i = 0; i < u.size() && i < max_listed; ++i) j.push_back(u[i]);
  if (u.size() > max_listed) j.push_back("... and " + std::to_string(u.size() - max_listed) + " more");
  return j;
}

void set_value(nlohmann::json& section, const std::string& key, nlohmann::json value, double confidence,
               const Evidence& evidence, const std::string& note) {
  section[key] = std::move(value);
  nlohmann::json p = {{"confidence", std::round(std::clamp(confidence, 0.0, 1.0) * 1000) / 1000},
                      {"evidence", evidence.to_json()}};
  if (!note.empty()) p["note"] = note;
  section["provenance"][key] = p;
}

void set_null(nlohmann::json& section, const std::string& key, const std::string& reason,
              const Evidence& evidence) {
  section[key] = nullptr;
  section["provenance"][key] = {{"confidence", 0}, {"evidence", evidence.to_json()}, {"reason", reason}};
}

bool has_value(const nlohmann::json& section, const std::string& key) {
  return section.contains(key) && !section[key].is_null();
}

}  // namespace memhier::analysis
