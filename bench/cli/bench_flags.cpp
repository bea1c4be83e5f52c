#include "bench/cli/bench_flags.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <regex>

namespace memhier {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool parse_long(const std::string& v, long* out) {
  if (v.empty() || std::isspace(static_cast<unsigned char>(v[0]))) return false;
  errno = 0;
  char* end = nullptr;
  const long x = std::strtol(v.c_str(), &end, 10);
  if (errno || !end || *end) return false;
  *out = x;
  return true;
}

bool parse_double(const std::string& v, double* out) {
  if (v.empty() || std::isspace(static_cast<unsigned char>(v[0]))) return false;
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (errno || !end || *end || !std::isfinite(x)) return false;
  *out = x;
  return true;
}

const std::vector<std::string> kTruthy = {"", "1", "t", "true", "y", "yes", "on"};
const std::vector<std::string> kFalsy = {"0", "f", "false", "n", "no", "off"};

std::string check_bool(const std::string& flag, const std::string& v) {
  const std::string l = lower(v);
  if (std::count(kTruthy.begin(), kTruthy.end(), l) || std::count(kFalsy.begin(), kFalsy.end(), l)) return {};
  return "bad value '" + v + "' for " + flag + ": use true or false";
}

std::string check_int(const std::string& flag, const std::string& v, long lo, long hi) {
  long x = 0;
  if (!parse_long(v, &x) || x < lo || x > hi)
    return "bad value '" + v + "' for " + flag + ": an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  return {};
}

std::string check_one_of(const std::string& flag, const std::string& v, const std::vector<std::string>& ok) {
  if (std::count(ok.begin(), ok.end(), v)) return {};
  std::string list;
  for (std::size_t i = 0; i < ok.size(); ++i) list += (i ? (i + 1 == ok.size() ? " or " : ", ") : "") + ok[i];
  return "unknown value '" + v + "' for " + flag + ": use " + list;
}

// Google Benchmark matches names with std::regex(spec, extended) (or POSIX regcomp, the same
// grammar); a leading '-' negates the filter.
std::string check_filter(const std::string& flag, const std::string& v) {
  std::string spec = !v.empty() && v[0] == '-' ? v.substr(1) : v;
  if (spec.empty() || spec == "all") return {};
  try {
    std::regex re(spec, std::regex::extended);
  } catch (const std::regex_error& e) {
    return "bad value '" + v + "' for " + flag + ": not a regular expression (" + e.what() + ")";
  }
  return {};
}

// 1.7: seconds; 1.8: seconds with an optional 's' suffix, or iterations as "<N>x".
std::string check_min_time(const std::string& flag, const std::string& v) {
  double x = 0;
  std::string num = v;
#ifndef MEMHIER_GBENCH_MIN_TIME_IS_DOUBLE
  long n = 0;
  if (!num.empty() && num.back() == 'x')
    return parse_long(num.substr(0, num.size() - 1), &n) && n >= 1 ? std::string()
                                                                   : "bad value '" + v + "' for " + flag +
                                                                         ": seconds (e.g. 0.5 or 0.5s) or iterations (e.g. 10x)";
  if (!num.empty() && num.back() == 's') num.pop_back();
  const char* what = ": seconds (e.g. 0.5 or 0.5s) or iterations (e.g. 10x)";
#else
  const char* what = ": seconds, e.g. 0.5 (this Google Benchmark has no 's'/'x' suffixes)";
#endif
  if (!parse_double(num, &x) || x < 0) return "bad value '" + v + "' for " + flag + what;
  return {};
}

std::string check_context(const std::string& flag, const std::string& v) {
  std::size_t start = 0;
  while (start <= v.size()) {
    const std::size_t comma = std::min(v.find(',', start), v.size());
    const std::string kv = v.substr(start, comma - start);
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      return "bad value '" + v + "' for " + flag + ": key=value pairs separated by commas";
    start = comma + 1;
  }
  return {};
}

using Check = std::function<std::string(const std::string& flag, const std::string& value)>;
struct FlagSpec {
  bool is_bool;  // may stand alone (--benchmark_list_tests)
  Check check;
};

const std::map<std::string, FlagSpec>& specs() {
  static const std::map<std::string, FlagSpec> s = {
      {"benchmark_list_tests", {true, check_bool}},
      {"benchmark_enable_random_interleaving", {true, check_bool}},
      {"benchmark_report_aggregates_only", {true, check_bool}},
      {"benchmark_display_aggregates_only", {true, check_bool}},
      {"benchmark_counters_tabular", {true, check_bool}},
      {"benchmark_filter", {false, check_filter}},
      {"benchmark_min_time", {false, check_min_time}},
      {"benchmark_min_warmup_time",
       {false, [](const std::string& f, const std::string& v) {
          double x = 0;
          return parse_double(v, &x) && x >= 0 ? std::string() : "bad value '" + v + "' for " + f + ": seconds >= 0";
        }}},
      {"benchmark_repetitions", {false, [](const std::string& f, const std::string& v) { return check_int(f, v, 1, 100000); }}},
      {"benchmark_format", {false, [](const std::string& f, const std::string& v) { return check_one_of(f, v, {"console", "json", "csv"}); }}},
      {"benchmark_out_format", {false, [](const std::string& f, const std::string& v) { return check_one_of(f, v, {"console", "json", "csv"}); }}},
      {"benchmark_out",
       {false, [](const std::string& f, const std::string& v) { return v.empty() ? f + " needs a file name" : std::string(); }}},
      {"benchmark_color",
       {false, [](const std::string& f, const std::string& v) {
          return lower(v) == "auto" ? std::string() : check_bool(f, v).empty() ? std::string()
                                                                               : "bad value '" + v + "' for " + f + ": use auto, true or false";
        }}},
      {"benchmark_time_unit", {false, [](const std::string& f, const std::string& v) { return check_one_of(f, v, {"ns", "us", "ms", "s"}); }}},
      {"benchmark_perf_counters",
       {false, [](const std::string& f, const std::string&) {
          return f + " counts host CPU events, which say nothing about the device under test; memhier-bench does not take it";
        }}},
      {"benchmark_context", {false, check_context}},
      {"v", {false, [](const std::string& f, const std::string& v) { return check_int(f, v, 0, 100); }}},
  };
  return s;
}

}  // namespace

bool benchmark_flag_true(const std::string& value) {
  return std::count(kTruthy.begin(), kTruthy.end(), lower(value)) > 0;
}

std::string check_benchmark_flag(const std::string& arg) {
  if (arg.rfind("--", 0) != 0) return {};
  const auto eq = arg.find('=');
  const std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
  auto it = specs().find(name);
  if (it == specs().end()) return {};
  if (eq == std::string::npos)
    return it->second.is_bool ? std::string() : "--" + name + " needs a value (--" + name + "=...)";
  return it->second.check("--" + name, arg.substr(eq + 1));
}

std::string check_benchmark_environment() {
  for (const auto& [name, spec] : specs()) {
    if (name == "v") continue;  // read from V, a name too common to judge
    std::string var = name;  // Google Benchmark's FlagToEnvVar: the flag's name in capitals
    for (char& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const char* v = std::getenv(var.c_str());
    if (!v) continue;
    const std::string why = spec.check("environment variable " + var, v);
    if (!why.empty()) return why;
  }
  return {};
}

std::map<std::string, std::string> benchmark_context_pairs(const std::string& value) {
  std::map<std::string, std::string> out;
  std::size_t start = 0;
  while (start < value.size()) {
    const std::size_t comma = std::min(value.find(',', start), value.size());
    const std::string kv = value.substr(start, comma - start);
    const auto eq = kv.find('=');
    if (eq != std::string::npos) out[kv.substr(0, eq)] = kv.substr(eq + 1);
    start = comma + 1;
  }
  return out;
}

std::string check_budget_seconds(const std::string& value, double* out) {
  double x = 0;
  if (!parse_double(value, &x) || x <= 0 || x > 86400)
    return "bad value '" + value + "' for --memhier_budget_s: seconds per benchmark, more than 0 and at most 86400";
  *out = x;
  return {};
}

std::string check_count(const std::string& flag, const std::string& value, long* out) {
  long x = 0;
  if (!parse_long(value, &x) || x < 0) return "bad value '" + value + "' for " + flag + ": a non-negative integer";
  *out = x;
  return {};
}

}  // namespace memhier
