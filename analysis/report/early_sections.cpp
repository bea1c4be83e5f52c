#include "analysis/report/early_sections.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "analysis/gate/analyzer.hpp"

namespace memhier::analysis {

namespace {

// FNV-1a, 64 bits: a change of any byte changes the text's hash (not a security property).
class Hash {
 public:
  void add(const std::string& s) {
    for (unsigned char c : s) h_ = (h_ ^ c) * 1099511628211ull;
    h_ = (h_ ^ 0xFFu) * 1099511628211ull;  // field separator
  }
  void add(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.17g", v);
    add(std::string(b));
  }
  std::string hex() const {
    char b[24];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h_));
    return b;
  }

 private:
  std::uint64_t h_ = 1469598103934665603ull;
};

std::string family_of(const BenchEntry& e) { return e.run_name.substr(0, e.run_name.find('/')); }

}  // namespace

bool late_family(const std::string& f) {
  static const std::set<std::string> late = {
      "gmem_throughput", "l1_throughput", "l2_throughput", "l2_partitions", "outstanding_requests",
      "smem_throughput", "smem_bank_conflict", "warp_access", "dsmem", "async_copy", "host", "peer",
      "l2_persist", "l2_slices", "l2_evsets"};
  return late.count(f) != 0;
}

bool volatile_context_key(const std::string& k) {
  static const std::set<std::string> keys = {
      "characterize_wall_seconds", "characterize_stages", "deferred_wall_seconds", "measurement_conditions",
      "measurement_contended", "measurement_evidence", "measurement_throttled", "memhier_failed_benchmarks",
      "sm_clock_measured_mhz_end", "sm_clock_throttled", "load_avg", "memhier_deferred"};
  return keys.count(k) != 0;
}

nlohmann::json early_fingerprint(const Dataset& data, const RefinementBudget& b) {
  nlohmann::json fp;
  fp["schema"] = "memhier-early-sections/1";
  fp["analyzer"] = analyzer_text(analyzer_stamp());
  fp["budget"] = {{"round_benchmarks", b.round_benchmarks}, {"round_seconds", b.round_seconds},
                  {"total_seconds", b.total_seconds}, {"max_rounds", b.max_rounds},
                  {"tlb_round_benchmarks", b.tlb_round_benchmarks}, {"tlb_round_seconds", b.tlb_round_seconds}};
  nlohmann::json runs = nlohmann::json::array();
  for (const auto& r : data.runs()) {
    Hash ctx, ent;
    for (const auto& [k, v] : r.context)
      if (!volatile_context_key(k)) ctx.add(k), ctx.add(v);
    std::size_t n = 0;
    for (const auto& e : r.entries) {
      if (late_family(family_of(e))) continue;
      ++n;
      ent.add(e.name), ent.add(e.run_name), ent.add(e.run_type), ent.add(e.aggregate_name);
      ent.add(static_cast<double>(e.repetition_index)), ent.add(static_cast<double>(e.iterations));
      ent.add(e.real_time), ent.add(e.cpu_time), ent.add(e.time_unit);
      ent.add(e.error ? "error" : "ok"), ent.add(e.error_message);
      for (const auto& [k, v] : e.counters) ent.add(k), ent.add(v);
      for (const auto& k : e.nonfinite_counters) ent.add(k);
    }
    runs.push_back({{"context", ctx.hex()}, {"entries", ent.hex()}, {"early_entries", n}});
  }
  fp["runs"] = runs;
  return fp;
}

bool load_early_sections(const std::string& path, const nlohmann::json& fp, EarlySections* out, std::string* why) {
  std::ifstream f(path);
  if (!f) {
    *why = "no sections cache yet";
    return false;
  }
  nlohmann::json j;
  try {
    f >> j;
  } catch (const std::exception&) {
    *why = path + " is not JSON";
    return false;
  }
  const nlohmann::json& have = j.contains("fingerprint") ? j["fingerprint"] : nlohmann::json();
  if (have != fp) {
    if (!have.is_object()) *why = path + " has no fingerprint";
    else if (have.value("analyzer", "") != fp["analyzer"]) *why = "another analyzer wrote it";
    else if (have.value("budget", nlohmann::json()) != fp["budget"]) *why = "another refinement budget";
    else if (!have["runs"].is_array() || have["runs"].size() != fp["runs"].size()) *why = "another number of input files";
    else
      for (std::size_t i = 0; i < fp["runs"].size() && why->empty(); ++i)
        for (auto k : {"context", "entries", "early_entries"})
          if (have["runs"][i].value(k, nlohmann::json()) != fp["runs"][i][k]) {
            *why = "input " + std::to_string(i + 1) + ": another " + (std::string(k) == "context" ? "context" : "set of early entries");
            break;
          }
    if (why->empty()) *why = "another fingerprint";
    return false;
  }
  for (auto k : {"caches", "address_translation", "refinement_pending", "refinement", "selected"})
    if (!j.contains(k)) {
      *why = path + " lacks " + k;
      return false;
    }
  out->caches = j["caches"];
  out->address_translation = j["address_translation"];
  out->refinement_pending = j["refinement_pending"];
  out->refinement = j["refinement"];
  out->selected = j["selected"];
  return true;
}

bool save_early_sections(const std::string& path, const nlohmann::json& fp, const EarlySections& s) {
  nlohmann::json j = {{"fingerprint", fp},
                      {"caches", s.caches},
                      {"address_translation", s.address_translation},
                      {"refinement_pending", s.refinement_pending},
                      {"refinement", s.refinement},
                      {"selected", s.selected}};
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    if (!f) return false;
    f << j.dump() << "\n";
    if (!f) return false;
  }
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

}  // namespace memhier::analysis
