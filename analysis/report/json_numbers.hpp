// Numbers out of a topology's JSON for the writers of report/ (twin, gpgpusim): a value that is a
// JSON number, and a device-block value that may be a number (memhier-topology/2) or its text (/1).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace memhier::analysis {

// j[key] when it is a number.
inline std::optional<double> json_number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return std::nullopt;
  return j[key].get<double>();
}

// device[key] as a number: a JSON number, or text that reads as one ("132").
inline std::optional<double> device_number(const nlohmann::json& d, const char* key) {
  if (!d.is_object() || !d.contains(key)) return std::nullopt;
  if (d[key].is_number()) return d[key].get<double>();
  if (!d[key].is_string()) return std::nullopt;
  try {
    return std::stod(d[key].get<std::string>());
  } catch (...) {
    return std::nullopt;
  }
}

inline bool is_pow2(std::uint64_t x) { return x && !(x & (x - 1)); }

}  // namespace memhier::analysis
