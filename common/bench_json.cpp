#include "common/bench_json.hpp"
#include "common/text_file.hpp"

#include "common/archive_files.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

namespace memhier {

double BenchEntry::counter(const std::string& c, double fallback) const {
  auto it = counters.find(c);
  return it == counters.end() ? fallback : it->second;
}

std::string BenchRun::context_or(const std::string& key, const std::string& fallback) const {
  auto it = context.find(key);
  return it == context.end() ? fallback : it->second;
}

std::string BenchRun::trace_dir() const {
  std::string rel = context_or("trace_dir");
  if (rel.empty()) return {};
  if (rel[0] == '/') return rel;
  auto slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  return dir + "/" + rel;
}

std::vector<const BenchEntry*> BenchRun::family(const std::string& fam) const {
  std::vector<const BenchEntry*> out;
  for (const auto& e : entries)
    if (e.params.family() == fam && e.run_type != "aggregate" && !e.error) out.push_back(&e);
  return out;
}

std::string json_without_nonfinite(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (const char* tok : {"-NaN", "NaN", "-Infinity", "Infinity"}) {
      const std::size_t n = std::char_traits<char>::length(tok);
      if (text.compare(i, n, tok) == 0) {
        out += "null";
        i += n - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

namespace {
const std::set<std::string>& standard_keys() {
  static const std::set<std::string> k = {"family_index", "per_family_instance_index", "repetitions", "repetition_index",
                                          "threads", "iterations", "real_time", "cpu_time"};
  return k;
}

// An integer key that may have been written as a float; a value no int64 holds is an error.
std::int64_t int_of(const nlohmann::json& b, const char* key) {
  auto it = b.find(key);
  if (it == b.end() || it->is_null()) return 0;
  if (it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
    throw std::runtime_error(std::string(key) + " out of range");
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_number_float() && std::fabs(it->get<double>()) < 9e18) return static_cast<std::int64_t>(it->get<double>());
  throw std::runtime_error(std::string(key) + " is not an integer");
}

BenchEntry read_entry(const nlohmann::json& b, const std::set<std::string>& standard) {
  BenchEntry e;
  e.name = b.value("name", "");
  e.run_name = b.value("run_name", e.name);
  auto parsed = BenchName::parse(e.run_name);
  if (parsed) e.params = *parsed;
  e.run_type = b.value("run_type", "iteration");
  e.aggregate_name = b.value("aggregate_name", "");
  e.repetition_index = int_of(b, "repetition_index");
  e.iterations = int_of(b, "iterations");
  e.real_time = b.value("real_time", 0.0);
  e.cpu_time = b.value("cpu_time", 0.0);
  e.time_unit = b.value("time_unit", "");
  e.error = b.value("error_occurred", false) || b.value("skipped", false);
  e.error_message = b.value("error_message", b.value("skip_message", ""));
  for (auto& [k, v] : b.items()) {
    if (v.is_number() && !standard.count(k)) e.counters[k] = v.get<double>();
    if (v.is_null() && !standard.count(k)) e.nonfinite_counters.push_back(k);
  }
  if (e.name.empty()) throw std::runtime_error("a benchmark entry has no name");
  return e;
}
}  // namespace

BenchRun load_bench_json(const std::string& path) {
  return parse_bench_json(read_file_maybe_gz(path), path);  // bench.json or bench.json.gz
}

BenchRun parse_bench_json(const std::string& text, const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json_without_nonfinite(text));
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers beyond a double (1e999)
    throw std::runtime_error(path + ": not valid JSON (" + std::string(e.what()) + ")");
  }
  if (!j.is_object() || !j.contains("benchmarks") || !j["benchmarks"].is_array() ||
      !j.contains("context") || !j["context"].is_object())
    throw std::runtime_error(path + ": not Google Benchmark JSON (no 'context' and 'benchmarks')");
  BenchRun run;
  run.path = path;
  for (auto& [k, v] : j["context"].items())
    run.context[k] = v.is_string() ? v.get<std::string>() : v.dump();
  if (!run.context.count("memhier_version"))
    throw std::runtime_error(path + ": Google Benchmark JSON, but not written by memhier-bench "
                                    "(no memhier_version in the context)");
  std::size_t index = 0;
  for (const auto& b : j["benchmarks"]) {
    if (!b.is_object()) throw std::runtime_error(path + ": a benchmark entry is not an object");
    try {
      run.entries.push_back(read_entry(b, standard_keys()));
    } catch (const std::exception& e) {  // no name, or a key of the wrong type ("name": 3)
      throw std::runtime_error(path + ": benchmark entry " + std::to_string(index) + ": " + e.what());
    }
    ++index;
  }
  return run;
}


}  // namespace memhier
