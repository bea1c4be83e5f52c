#include "analysis/core/validate.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace memhier::analysis {
namespace {

bool numeric_looking(const std::string& v) {
  return !v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '-' || v[0] == '+' || v[0] == '.');
}

// "" or what is wrong with a parameter value that looks like a number.
std::string bad_number(const std::string& v) {
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (errno || !end || *end || !std::isfinite(x)) return "'" + v + "' is not a number";
  if (x < 0) return "'" + v + "' is negative";
  return {};
}

// Parameters that are counts, sizes or indices in every family memhier-bench writes: their value is
// a non-negative decimal integer (the analyzer reads them with get_int and would otherwise skip or
// misread the entry without a word).
const std::set<std::string> kIntegerKeys = {
    "bytes",  "stride",   "iters",    "warm",      "carveout",  "width",         "ilp",      "cta_size",
    "ctas",   "ctas_per_sm", "lines", "pressure_bytes", "readers", "chunk",      "overlap",  "share",
    "stagger", "far_pages", "far_stride", "loads", "seed",      "capacity",      "dst_offset"};

bool decimal_integer(const std::string& v) {
  if (v.empty() || v.size() > 19) return false;
  for (char c : v)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Google Benchmark writes `run_name` (what the analysis reads) and `name` (the same for an iteration
// run, run_name + "_" + aggregate_name for an aggregate). A file where they disagree was edited or
// made by another tool: which of the two it meant cannot be known, so the entry is not analyzed.
std::string check_run_name(const BenchEntry& e) {
  const std::string want = e.run_type == "aggregate" && !e.aggregate_name.empty() ? e.run_name + "_" + e.aggregate_name
                                                                                   : e.run_name;
  if (e.name == want) return {};
  return "its name and run_name disagree (run_name '" + e.run_name + "', which the analysis reads" +
         (e.run_type == "aggregate" ? ", with aggregate '" + e.aggregate_name + "'" : std::string()) +
         "): fix one of them";
}

std::string check_name(const BenchEntry& e) {
  if (std::string why = check_run_name(e); !why.empty()) return why;
  if (e.params.family().empty()) return "the name has no family";
  const bool streams = e.params.family() == "cache_streams";  // its loads: is dep or indep (the contract's name)
  for (const auto& [k, v] : e.params.params()) {
    if (k.empty()) return "a parameter without a key";
    if (v.empty()) return "parameter '" + k + "' has no value (key:value expected)";
    if (numeric_looking(v))
      if (std::string why = bad_number(v); !why.empty()) return "parameter " + k + ": " + why;
    if (kIntegerKeys.count(k) && !(streams && k == "loads") && !decimal_integer(v))
      return "parameter " + k + ": '" + v + "' is not a non-negative integer";
  }
  const std::string fam = e.params.family();
  if (fam == "pchase" || fam == "tlb") {
    for (const char* k : {"bytes", "stride"})
      if (e.params.get_int_or(k, 0) <= 0) return std::string("a ") + fam + " entry needs a positive integer " + k;
    if (fam == "pchase" && !e.params.has("path")) return "a pchase entry needs a path";
  }
  return {};
}

bool is_latency(const std::string& k) {
  return k.find("latency") != std::string::npos || (k.size() > 7 && k.compare(k.size() - 7, 7, "_cycles") == 0);
}

std::string check_counters(const BenchEntry& e) {
  auto num = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", x);
    return std::string(buf);
  };
  for (const auto& [k, v] : e.counters) {
    if (!std::isfinite(v)) return "counter " + k + " is not finite";
    if (std::fabs(v) > kMaxCounter) return "counter " + k + " = " + num(v) + " is beyond any measured quantity";
    if (e.run_type == "aggregate") continue;  // a stddev or cv of a counter is not the counter
    if (v < 0) return "counter " + k + " = " + num(v) + " is negative";
    if (is_latency(k) && v > kMaxLatencyCycles)
      return "counter " + k + " = " + num(v) + " cycles is beyond any chase's time budget";
  }
  if (e.run_type == "aggregate") return {};  // cv of a counter that is 0 in every repetition: NaN
  if (!e.nonfinite_counters.empty()) return "counter " + e.nonfinite_counters.front() + " is not finite (NaN or Infinity)";
  if (e.has("miss_rate") && e.counter("miss_rate") > 1) return "counter miss_rate = " + num(e.counter("miss_rate")) + " is above 1";
  if (e.has("misses") && e.has("accesses") && e.counter("misses") > e.counter("accesses"))
    return "more misses (" + num(e.counter("misses")) + ") than accesses (" + num(e.counter("accesses")) + ")";
  if (!std::isfinite(e.real_time) || e.real_time < 0 || !std::isfinite(e.cpu_time) || e.cpu_time < 0)
    return "a negative or non-finite real_time/cpu_time";
  if (e.iterations < 0) return "a negative iteration count";
  return {};
}

}  // namespace

const std::set<std::string>& known_families() {
  static const std::set<std::string> k = {
      "pchase",          "tlb",           "latency_spectrum", "cache_sequences",  "cache_sharing",
      "caches_per_sm",   "clock_overhead", "gmem_throughput", "l1_throughput",    "l2_throughput",
      "l2_partitions",   "smem_throughput", "smem_bank_conflict", "outstanding_requests", "warp_access",
      "dsmem",           "async_copy",    "host",             "peer",             "l2_slices",
      "l2_persist",      "l2_evsets",      "cache_streams"};
  return k;
}

std::vector<std::string> unknown_family_warnings(const std::vector<BenchRun>& runs) {
  std::map<std::string, std::size_t> n;
  for (const auto& r : runs)
    for (const auto& e : r.entries)
      if (!e.params.family().empty() && !known_families().count(e.params.family())) ++n[e.params.family()];
  std::vector<std::string> out;
  for (const auto& [fam, count] : n)
    out.push_back(std::to_string(count) + " entr" + (count == 1 ? "y" : "ies") + " of family '" + fam +
                  "', which this analyzer does not read: skipped");
  return out;
}

std::string empty_run_error(const BenchRun& run) {
  if (run.entries.empty()) return run.path + ": the benchmarks list is empty: nothing to analyze";
  return {};
}

std::vector<InputProblem> check_bench_run(const BenchRun& run) {
  std::vector<InputProblem> out;
  std::set<std::tuple<std::string, std::int64_t, std::string, std::string>> seen;
  for (std::size_t i = 0; i < run.entries.size(); ++i) {
    const BenchEntry& e = run.entries[i];
    if (e.error) continue;
    std::string why = check_name(e);
    if (why.empty()) why = check_counters(e);
    if (why.empty() && !seen.insert({e.run_name, e.repetition_index, e.run_type, e.aggregate_name}).second)
      why = "appears twice in this file (same repetition)";
    if (!why.empty()) out.push_back({i, run.path + ": benchmark '" + e.name + "': " + why});
  }
  return out;
}

void screen_runs(std::vector<BenchRun>& runs, bool allow_errors, std::vector<std::string>* left_out) {
  std::vector<std::pair<BenchEntry*, std::string>> bad;
  for (auto& r : runs) {
    if (std::string why = empty_run_error(r); !why.empty()) throw std::runtime_error(why);
    for (auto& p : check_bench_run(r)) bad.emplace_back(&r.entries[p.entry], p.text);
  }
  if (!bad.empty() && !allow_errors)
    throw std::runtime_error(bad.front().second +
                             (bad.size() > 1 ? " (and " + std::to_string(bad.size() - 1) + " more problems)" : "") +
                             "; pass --allow-errors to leave such entries out and analyze the rest");
  for (auto& [e, text] : bad) {
    e->error = true;
    e->error_message = "invalid input: " + text;
    left_out->push_back(e->name + ": " + e->error_message);
  }
  for (auto& r : runs)
    for (auto& e : r.entries)
      if (!e.error && e.counter("clock_throttled", 0) > 0) {
        e.error = true;
        e.error_message = "left out: the SM clock was throttled during this sample (sm_clock_mhz " +
                          std::to_string(e.counter("sm_clock_mhz", 0)) + ")";
        left_out->push_back(e.name + ": " + e.error_message);
      }
}

std::size_t count_determined_values(const nlohmann::json& t) {
  // per_sm is set from the load path's kind for every cache, measured or not
  static const std::set<std::string> bookkeeping = {"schema",      "device",     "inputs",  "provenance",
                                                    "evidence",    "notes",      "note",    "reason",
                                                    "measurement", "refinement_pending", "refinement", "confidence", "per_sm",
                                                    "analyzer"};
  std::size_t n = 0;
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& j) {
    if (j.is_object()) {
      for (const auto& [k, v] : j.items())
        if (!bookkeeping.count(k) && k.find("_reason") == std::string::npos) walk(v);
    } else if (j.is_array()) {
      for (const auto& v : j) walk(v);
    } else if (!j.is_null()) {
      ++n;
    }
  };
  walk(t);
  return n;
}

}  // namespace memhier::analysis
