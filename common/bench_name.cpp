#include "common/bench_name.hpp"

#include <cctype>
#include <cstdlib>
#include <sstream>

namespace memhier {

BenchName& BenchName::add(const std::string& key, const std::string& value) {
  params_.emplace_back(key, value);
  return *this;
}

BenchName& BenchName::add(const std::string& key, std::int64_t value) {
  return add(key, std::to_string(value));
}

bool BenchName::has(const std::string& key) const { return get(key).has_value(); }

std::optional<std::string> BenchName::get(const std::string& key) const {
  for (const auto& [k, v] : params_)
    if (k == key) return v;
  return std::nullopt;
}

std::optional<std::int64_t> BenchName::get_int(const std::string& key) const {
  auto v = get(key);
  if (!v || v->empty()) return std::nullopt;
  char* end = nullptr;
  long long x = std::strtoll(v->c_str(), &end, 10);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<std::int64_t>(x);
}

std::string BenchName::get_or(const std::string& key, const std::string& fallback) const {
  auto v = get(key);
  return v ? *v : fallback;
}

std::int64_t BenchName::get_int_or(const std::string& key, std::int64_t fallback) const {
  auto v = get_int(key);
  return v ? *v : fallback;
}

std::string BenchName::str() const {
  std::string s = family_;
  for (const auto& [k, v] : params_) s += "/" + k + ":" + v;
  return s;
}

namespace {
bool is_runner_suffix(const std::string& key) {
  return key == "iterations" || key == "repeats" || key == "threads" || key == "min_time" ||
         key == "min_warmup_time";
}
}  // namespace

std::optional<BenchName> BenchName::parse(const std::string& name) {
  if (name.empty()) return std::nullopt;
  std::vector<std::string> parts;
  std::stringstream ss(name);
  std::string part;
  while (std::getline(ss, part, '/')) parts.push_back(part);
  if (parts.empty() || parts[0].empty()) return std::nullopt;
  BenchName out(parts[0]);
  for (std::size_t i = 1; i < parts.size(); ++i) {
    std::string p = parts[i];
    // Aggregates append _mean, _median, _stddev, _cv to the last component.
    for (const char* agg : {"_mean", "_median", "_stddev", "_cv"}) {
      std::string a(agg);
      if (i + 1 == parts.size() && p.size() > a.size() &&
          p.compare(p.size() - a.size(), a.size(), a) == 0) {
        p.resize(p.size() - a.size());
        break;
      }
    }
    if (p == "manual_time" || p == "real_time" || p == "process_time") continue;
    auto colon = p.find(':');
    if (colon == std::string::npos) {
      out.add(p, "");
      continue;
    }
    std::string key = p.substr(0, colon);
    if (is_runner_suffix(key)) continue;
    out.add(key, p.substr(colon + 1));
  }
  return out;
}

std::string sanitize_for_file(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '/')
      out += "__";
    else if (c == ':')
      out += '-';
    else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')
      out += c;
    else
      out += '_';
  }
  return out;
}

}  // namespace memhier
