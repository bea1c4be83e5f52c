// memhier-compare's two inputs made comparable (gate.hpp, prepare_pair): one input given twice is
// said once; otherwise both archives are analyzed again by the running analyzer when their raw
// measurements are there, so a verdict speaks of the GPU and not of the analyzer that wrote the
// archived topology.json (docs/ci.md, "Verdicts about the GPU").
#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/gate/analyzer.hpp"
#include "analysis/gate/gate.hpp"
#include "common/archive_files.hpp"

namespace fs = std::filesystem;

namespace memhier::analysis {

namespace {

std::string canonical(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  std::error_code ec;
  auto c = fs::weakly_canonical(p, ec);
  return ec ? p : c.lexically_normal().string();
}

std::string file_text(const std::string& path) {
  if (path.empty()) return "";
  try {
    return read_file_maybe_gz(path);
  } catch (const std::exception&) {
    return "";
  }
}

// The files that make an input: its bench.json and, for an archive, its topology.json.
std::pair<std::string, std::string> input_files(const std::string& label) {
  std::error_code ec;
  if (!fs::is_directory(label, ec)) return {label, ""};
  const fs::path d(label);
  const std::string topo = (d / "topology.json").string();
  return {existing_maybe_gz((d / "bench.json").string()), fs::exists(topo, ec) ? topo : ""};
}

std::string same_input_of(const CompareInput& base, const CompareInput& now) {
  if (canonical(base.label) == canonical(now.label)) return "base and new are one archive (" + now.label + ")";
  const auto [ba, ta] = input_files(base.label);
  const auto [bb, tb] = input_files(now.label);
  if (ta.empty() != tb.empty()) return "";
  const std::string xa = file_text(ba), xb = file_text(bb);
  if (xa.empty() || xa != xb || file_text(ta) != file_text(tb)) return "";
  return "base and new hold identical files (bench.json, topology.json)";
}

// Whether an analysis judged a cache's policy on random streams (a caches.<c>.streams section).
bool judged_streams(const nlohmann::json& t) {
  if (!t.contains("caches") || !t["caches"].is_object()) return false;
  for (const auto& [name, c] : t["caches"].items())
    if (c.is_object() && c.contains("streams")) return true;
  return false;
}

}  // namespace

PairAnalysis prepare_pair(CompareInput& base, CompareInput& now, bool as_archived) {
  PairAnalysis pa;
  pa.as_archived = as_archived;
  pa.running = analyzer_text(analyzer_stamp());
  pa.archived_base = base.topology ? analyzer_text(*base.topology) : "no topology.json";
  pa.archived_now = now.topology ? analyzer_text(*now.topology) : "no topology.json";
  pa.same_input = same_input_of(base, now);
  if (!pa.same_input.empty() || as_archived) return pa;
  for (const auto& [side, in] : {std::pair<const char*, CompareInput*>{"base", &base}, {"new", &now}}) {
    const std::string why = missing_raw_data(in->label);
    if (!why.empty()) {
      std::error_code ec;  // two bench.json files: nothing to say (the per-benchmark gate)
      if (fs::is_directory(in->label, ec)) pa.kept_why += (pa.kept_why.empty() ? "" : "; ") + std::string(side) + ": " + why;
      else pa.kept_why = "bench.json files, not archives";
    }
  }
  if (!pa.kept_why.empty()) return pa;
  try {
    // The stream judgement only where both archives hold stream data (cache_streams; the check plan
    // has none): with it on one side only, the policies would be judged differently (docs/ci.md).
    nlohmann::json tn = reanalyze_archive(now.label);
    const bool streams = judged_streams(tn);
    nlohmann::json tb = reanalyze_archive(base.label, streams);
    if (streams && !judged_streams(tb)) tn = reanalyze_archive(now.label, false);
    base.topology = std::move(tb);
    now.topology = std::move(tn);
    pa.reanalyzed = true;
  } catch (const std::exception& e) {
    pa.kept_why = std::string("the analysis failed: ") + e.what();
  }
  return pa;
}

}  // namespace memhier::analysis
