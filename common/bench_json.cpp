#include "common/bench_json.hpp"

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

BenchRun load_bench_json(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot open (missing file or no permission)");
  nlohmann::json j;
  try {
    std::stringstream text;
    text << f.rdbuf();
    j = nlohmann::json::parse(json_without_nonfinite(text.str()));
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
  static const std::set<std::string> standard = {
      "family_index", "per_family_instance_index", "repetitions", "repetition_index", "threads",
      "iterations",   "real_time",                 "cpu_time"};
  for (const auto& b : j["benchmarks"]) {
    if (!b.is_object()) throw std::runtime_error(path + ": a benchmark entry is not an object");
    BenchEntry e;
    e.name = b.value("name", "");
    e.run_name = b.value("run_name", e.name);
    if (e.name.empty()) throw std::runtime_error(path + ": a benchmark entry has no name");
    auto parsed = BenchName::parse(e.run_name);
    if (parsed) e.params = *parsed;
    e.run_type = b.value("run_type", "iteration");
    e.aggregate_name = b.value("aggregate_name", "");
    e.repetition_index = b.value("repetition_index", 0);
    e.iterations = b.value("iterations", 0);
    e.real_time = b.value("real_time", 0.0);
    e.cpu_time = b.value("cpu_time", 0.0);
    e.time_unit = b.value("time_unit", "");
    e.error = b.value("error_occurred", false) || b.value("skipped", false);
    e.error_message = b.value("error_message", b.value("skip_message", ""));
    for (auto& [k, v] : b.items()) {
      if (v.is_number() && !standard.count(k)) e.counters[k] = v.get<double>();
      if (v.is_null() && !standard.count(k)) e.nonfinite_counters.push_back(k);
    }
    run.entries.push_back(std::move(e));
  }
  return run;
}

}  // namespace memhier
