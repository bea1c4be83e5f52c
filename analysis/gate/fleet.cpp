// memhier-compare --fleet: the boards of one GPU model against their median (fleet.hpp). The
// renderings are in fleet_render.cpp.
#include "analysis/gate/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <stdexcept>

#include "common/archive_files.hpp"

namespace fs = std::filesystem;

namespace memhier::analysis {

namespace {

bool is_archive(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && fs::exists(dir / "topology.json", ec) &&
         !existing_maybe_gz((dir / "bench.json").string()).empty();
}

double median_of(std::vector<double> x) {
  if (x.empty()) return 0;
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

std::string utc_of(const CompareInput& in) {
  std::string dir = in.label;
  while (!dir.empty() && dir.back() == '/') dir.pop_back();
  const std::string last = fs::path(dir).filename().string();
  std::smatch m;
  static const std::regex ts("^(\\d{4})(\\d{2})(\\d{2})T(\\d{2})(\\d{2})(\\d{2})Z$");
  if (std::regex_match(last, m, ts))
    return m[1].str() + "-" + m[2].str() + "-" + m[3].str() + " " + m[4].str() + ":" + m[5].str() + ":" + m[6].str() + "Z";
  return in.bench.context_or("date", "");
}

// Boards named by gpu_uuid, else host_name:archive; a name given twice (one board measured twice)
// gets " (2)", " (3)", ...
std::vector<FleetBoard> boards_of(const std::vector<CompareInput>& runs) {
  std::vector<FleetBoard> out;
  std::map<std::string, int> seen;
  for (const auto& in : runs) {
    FleetBoard b;
    b.gpu_uuid = in.bench.context_or("gpu_uuid", "");
    b.host = in.bench.context_or("host_name", "");
    b.archive = in.label;
    b.driver = in.bench.context_or("driver_version", "?");
    b.plan = in.bench.context_or("memhier_plan", "");
    b.utc = utc_of(in);
    b.name = !b.gpu_uuid.empty() ? b.gpu_uuid : (b.host.empty() ? "" : b.host + ":") + b.archive;
    const int k = ++seen[b.name];
    if (k > 1) b.name += " (" + std::to_string(k) + ")";
    out.push_back(b);
  }
  return out;
}

// Different GPU models (gpu_name, compute capability, backend, as the two-archive gate): the line
// that refuses them, else "".
std::string refusal_of(const std::vector<CompareInput>& runs) {
  std::map<std::string, int> models;
  for (const auto& in : runs) {
    const auto& b = in.bench;
    std::string m = b.context_or("gpu_name", "?") + " (compute " + b.context_or("compute_capability", "?");
    if (b.context_or("device_backend", "?") != "cuda") m += ", " + b.context_or("device_backend", "?");
    ++models[m + ")"];
  }
  if (models.size() < 2) return "";
  std::string s = "different GPU models:";
  for (const auto& [m, n] : models) s += " " + std::to_string(n) + " x " + m + ";";
  return s + " give the archives of one model (e.g. one results/<sm>/<gpu-slug>/ directory)";
}

double gate_floor(const Figure::Kind kind, double median, const GateOptions& g) {
  return kind == Figure::Kind::bandwidth ? g.bandwidth_threshold * std::fabs(median)
                                         : std::max(g.latency_floor_cycles, g.latency_threshold * std::fabs(median));
}

// One measured figure across the boards: median, MAD, the boards outside, the spread of the rest.
FleetFigure judge_figure(const std::string& id, const std::vector<const Figure*>& figs, const FleetOptions& o) {
  FleetFigure f;
  f.id = id;
  f.label = figure_label(id);
  std::vector<double> xs;
  for (const Figure* fig : figs) {
    const bool has = fig && fig->value.is_number();
    f.values.push_back(has ? std::optional<double>(fig->value.get<double>()) : std::nullopt);
    if (has) xs.push_back(fig->value.get<double>()), f.kind = fig->kind;
  }
  f.n = static_cast<int>(xs.size());
  f.median = median_of(xs);
  std::vector<double> dev;
  for (double x : xs) dev.push_back(std::fabs(x - f.median));
  f.mad = median_of(dev);
  f.floor = gate_floor(f.kind, f.median, o.gate);
  std::vector<double> spreads;  // the boards' own run-to-run spreads: the typical one counts too
  for (const Figure* fig : figs)
    if (fig && fig->value.is_number()) spreads.push_back(fig->spread);
  const double typical_spread = median_of(spreads);
  const double scale = 1.4826 * f.mad;
  double lo = 0, hi = 0;
  bool any = false;
  for (std::size_t i = 0; i < figs.size(); ++i) {
    if (!f.values[i]) continue;
    const double x = *f.values[i], d = x - f.median;
    // the two-archive gate's threshold (inclusive, up to rounding) and the board's own spread
    bool out = f.n >= 3 && std::fabs(d) >= f.floor * (1 - 1e-9) && std::fabs(d) > std::max(figs[i]->spread, typical_spread) &&
               (scale == 0 || std::fabs(d) / scale > o.z_threshold);
    const int s = figs[i]->samples;
    if (out && s > 0 && s < o.gate.min_samples) {
      ++f.few_samples;
      out = false;
    }
    if (out) {
      FleetOutlier w;
      w.board = static_cast<int>(i);
      w.value = x;
      w.deviation = d;
      if (scale > 0) w.z = std::fabs(d) / scale;
      w.worse = (d > 0) == (f.kind == Figure::Kind::latency);
      f.outliers.push_back(w);
      continue;
    }
    lo = any ? std::min(lo, x) : x;
    hi = any ? std::max(hi, x) : x;
    any = true;
  }
  f.spread = hi - lo;
  return f;
}

bool same_value(const nlohmann::json& a, const nlohmann::json& b) {
  return a == b || (a.is_number() && b.is_number() && a.get<double>() == b.get<double>());
}

// One structural field: the majority value and each board the gate would call CHANGED against it.
FleetStructure judge_structure(const std::string& id, const std::vector<const Headline*>& hs, const FleetOptions& o) {
  FleetStructure s;
  s.id = id;
  s.label = figure_label(id);
  std::vector<std::pair<nlohmann::json, std::vector<int>>> groups;  // value -> boards
  for (std::size_t i = 0; i < hs.size(); ++i) {
    const auto it = hs[i]->figures.find(id);
    if (it == hs[i]->figures.end() || it->second.value.is_null()) continue;
    ++s.determined;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& x) { return same_value(x.first, it->second.value); });
    if (g == groups.end()) groups.push_back({it->second.value, {static_cast<int>(i)}});
    else g->second.push_back(static_cast<int>(i));
  }
  if (groups.empty()) return s;
  std::size_t best = 0;
  for (std::size_t g = 1; g < groups.size(); ++g)
    if (groups[g].second.size() > groups[best].second.size()) best = g;
  s.majority = groups[best].first;
  s.majority_boards = static_cast<int>(groups[best].second.size());
  const Headline& ref = *hs[groups[best].second.front()];
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (g == best) continue;
    if (groups[g].second.size() == groups[best].second.size()) s.tie = true;
    for (int b : groups[g].second) {
      const StructuralJudgement j = judge_structural(hs[b]->flat, ref.flat, id, o.gate.size_tolerance);
      if (j.changed) s.disagreements.push_back({b, groups[g].first, j.note});
    }
  }
  return s;
}

}  // namespace

std::vector<std::string> fleet_archives(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (!fs::exists(in, ec)) throw std::runtime_error(in + ": no such file or directory");
    if (!fs::is_directory(in, ec))
      throw std::runtime_error(in + ": a fleet is made of archive directories (bench.json[.gz] and topology.json), not files");
    if (is_archive(in)) {
      out.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    for (auto it = fs::recursive_directory_iterator(in, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
      if (it->is_directory() && is_archive(it->path())) {
        found.push_back(it->path().string());
        it.disable_recursion_pending();
      }
    if (found.empty()) throw std::runtime_error(in + ": no archive (bench.json[.gz] with topology.json) in or below it");
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

FleetResult fleet_compare(const std::vector<CompareInput>& runs, const FleetOptions& o) {
  FleetResult r;
  r.options = o;
  for (const auto& in : runs)
    if (!in.topology) throw std::runtime_error(in.label + ": no topology.json (run memhier-infer on it first)");
  r.boards = boards_of(runs);
  r.refusal = refusal_of(runs);
  if (!runs.empty()) {
    r.gpu = runs[0].bench.context_or("gpu_name", "?");
    r.compute_capability = runs[0].bench.context_or("compute_capability", "?");
    r.backend = runs[0].bench.context_or("device_backend", "?");
  }
  if (!r.refusal.empty()) return r;
  std::vector<Headline> heads;
  for (const auto& in : runs) heads.push_back(extract_headline(*in.topology, in.bench));
  std::vector<const Headline*> hs;
  std::map<std::string, Figure::Kind> ids;  // by the gate's order key
  std::map<std::string, std::string> order;
  for (const auto& h : heads) {
    hs.push_back(&h);
    for (const auto& [id, f] : h.figures) order[figure_order(id, f.kind) + "\n" + id] = id, ids[id] = f.kind;
  }
  for (const auto& [key, id] : order) {
    if (ids[id] == Figure::Kind::structure) {
      FleetStructure s = judge_structure(id, hs, o);
      if (s.determined > 0) r.structure.push_back(std::move(s));
      continue;
    }
    std::vector<const Figure*> figs;
    for (const auto& h : heads) figs.push_back(h.figures.count(id) ? &h.figures.at(id) : nullptr);
    FleetFigure f = judge_figure(id, figs, o);
    if (f.n > 0) r.figures.push_back(std::move(f));
  }
  std::set<std::string> drivers, plans;
  for (const auto& b : r.boards) drivers.insert(b.driver), plans.insert(b.plan);
  if (r.board_count() < static_cast<int>(runs.size()))
    r.notes.push_back(r.count_text() + " (boards told apart by gpu_uuid): archives of one board differ run to run, "
                      "not board to board");
  if (runs.size() < 3) r.notes.push_back("fewer than 3 boards: the median cannot tell which board is outside; none is named");
  if (drivers.size() > 1) r.notes.push_back(std::to_string(drivers.size()) + " driver versions in the fleet: a board outside may be its driver");
  if (plans.size() > 1) r.notes.push_back("archives of different plans: a figure measured by some boards only is judged among those");
  for (std::size_t i = 0; i < runs.size(); ++i)  // memhier-bench's NVML looks (bench/cli/conditions.hpp)
    for (const char* k : {"contended", "throttled"})
      if (runs[i].bench.context_or(std::string("measurement_") + k, "") == "true")
        r.notes.push_back(r.boards[i].name + ": the run is marked " + k + ": its figures are not the board's alone");
  return r;
}

int FleetResult::board_count() const {
  std::set<std::string> uuids;
  int without = 0;
  for (const auto& b : boards) b.gpu_uuid.empty() ? ++without : (uuids.insert(b.gpu_uuid), 0);
  return static_cast<int>(uuids.size()) + without;
}

std::string FleetResult::count_text() const {
  const int n = board_count(), a = static_cast<int>(boards.size());
  const std::string boards_text = std::to_string(n) + (n == 1 ? " board" : " boards");
  return a == n ? boards_text : std::to_string(a) + " archives of " + boards_text;
}

std::vector<int> FleetResult::outlier_boards() const {
  std::vector<int> out;
  for (int b = 0; b < static_cast<int>(boards.size()); ++b)
    if (figure_outliers(b) > 0 || disagreements(b) > 0) out.push_back(b);
  return out;
}

int FleetResult::figure_outliers(int board) const {
  int n = 0;
  for (const auto& f : figures)
    for (const auto& w : f.outliers) n += w.board == board;
  return n;
}

int FleetResult::disagreements(int board) const {
  int n = 0;
  for (const auto& s : structure)
    for (const auto& d : s.disagreements) n += d.board == board;
  return n;
}

int fleet_exit_code(const FleetResult& r) {
  if (!r.refusal.empty()) return 4;
  return r.outlier_boards().empty() ? 0 : kFleetOutlierExit;
}

FleetBaseline load_fleet_baseline(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error(path + ": cannot open the baseline");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(f);
  } catch (const nlohmann::json::parse_error&) {
    throw std::runtime_error(path + ": the baseline is not valid JSON");
  }
  if (!j.is_object() || j.value("format", "") != "memhier-fleet/1" || !j.contains("figures") || !j["figures"].is_array())
    throw std::runtime_error(path + ": not a fleet report (memhier-compare --fleet --format=json; format memhier-fleet/1)");
  FleetBaseline b;
  b.path = path;
  b.gpu = j.value("gpu", "?");
  b.compute_capability = j.value("compute_capability", "?");
  b.boards = j.contains("boards") && j["boards"].is_array() ? static_cast<int>(j["boards"].size()) : 0;
  for (const auto& fig : j["figures"]) {
    if (!fig.is_object() || !fig.contains("id") || !fig["id"].is_string() || !fig.contains("spread") ||
        !fig["spread"].is_number() || fig["spread"].get<double>() < 0)
      throw std::runtime_error(path + ": a figure without an id and a non-negative spread");
    b.spread[fig["id"].get<std::string>()] = fig["spread"].get<double>();
  }
  return b;
}

void use_fleet_baseline(const FleetBaseline& b, GateOptions& o) {
  o.fleet_spread = b.spread;
  o.fleet_baseline = b.path + ", " + std::to_string(b.boards) + " boards of " + b.gpu;
}

void apply_fleet_baseline(GateRow& row, const GateOptions& o) {
  if (o.fleet_spread.empty() || row.kind == Figure::Kind::structure) return;
  if (row.verdict != Verdict::worse && row.verdict != Verdict::better) return;
  const auto it = o.fleet_spread.find(row.id);
  if (it == o.fleet_spread.end() || !row.base.is_number() || !row.now.is_number()) return;
  const double delta = std::fabs(row.now.get<double>() - row.base.get<double>());
  if (delta > it->second) return;
  char b[64];
  std::snprintf(b, sizeof b, "%.4g", it->second);
  row.verdict = Verdict::same;
  row.note = "within the fleet's board-to-board spread (" + std::string(b) + "; " + o.fleet_baseline + ")";
}

}  // namespace memhier::analysis
