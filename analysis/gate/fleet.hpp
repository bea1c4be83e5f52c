// memhier-compare --fleet: N archives of one GPU model (one per board, e.g. every GPU node of a
// cluster) compared with each other rather than two by two. Per headline figure (headline.hpp) the
// fleet's median and the boards outside it: robust z-score |x - median| / (1.4826 MAD) above
// `z_threshold`, and never a deviation within the two-archive gate's own threshold (5 % bandwidth,
// max(10 cycles, 5 %) latency) or within the board's own run-to-run spread, so identical figures
// (MAD 0) do not make infinite z. Per structural field the majority value and each board whose value
// the gate would call CHANGED against it. Boards are named by the context key gpu_uuid, else
// host_name + archive path, so another board and a regression are told apart.
// The fleet's board-to-board spread per figure (the range of the boards inside it) is a baseline
// for the two-archive gate (--baseline fleet.json): a difference within it is SAME
// (apply_fleet_baseline, the gate's one hook). docs/ci.md section Fleets states the rules; exit
// status 6 = a board outside the fleet.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analysis/gate/gate.hpp"

namespace memhier::analysis {

constexpr int kFleetOutlierExit = 6;

struct FleetOptions {
  GateOptions gate;          // thresholds (the floor of an outlier), min_samples, size_tolerance
  double z_threshold = 3.5;  // robust z above which a board is outside (Iglewicz & Hoaglin)
};

struct FleetBoard {
  std::string name;       // gpu_uuid, else host_name:archive
  std::string gpu_uuid, host, archive, driver, plan, utc;
};

struct FleetOutlier {
  int board = 0;
  double value = 0, deviation = 0;  // value - median
  std::optional<double> z;          // none: MAD 0 (the other boards identical)
  bool worse = false;               // slower: a higher latency, a lower bandwidth
};

struct FleetFigure {
  std::string id, label;
  Figure::Kind kind = Figure::Kind::latency;
  std::vector<std::optional<double>> values;  // per board (none: not determined there)
  int n = 0;                                  // boards with a value
  double median = 0, mad = 0;
  double floor = 0;   // the two-archive gate's threshold at the median
  double spread = 0;  // board-to-board: the range of the boards inside the fleet (the baseline)
  int few_samples = 0;  // boards whose value rests on fewer than min_samples: never named
  std::vector<FleetOutlier> outliers;
};

struct FleetDisagreement {
  int board = 0;
  nlohmann::json value;
  std::string note;
};

struct FleetStructure {
  std::string id, label;
  nlohmann::json majority;
  int majority_boards = 0, determined = 0;
  bool tie = false;  // no value held by more boards than every other: the first largest group stands
  std::vector<FleetDisagreement> disagreements;
};

struct FleetResult {
  FleetOptions options;
  std::string gpu, compute_capability, backend;
  std::string refusal;  // non-empty: different GPU models, nothing compared (exit 4)
  std::vector<FleetBoard> boards;
  std::vector<FleetFigure> figures;      // every measured headline figure, in the gate's order
  std::vector<FleetStructure> structure; // every structural field determined somewhere
  std::vector<std::string> notes;

  std::vector<int> outlier_boards() const;  // boards with an outlier figure or a disagreement
  // Boards told apart by gpu_uuid (an archive without one counts as its own board); `boards` holds
  // one entry per archive. count_text: "4 boards", or "5 archives of 1 board".
  int board_count() const;
  std::string count_text() const;
  int figure_outliers(int board) const;
  int disagreements(int board) const;
};

// Archives named or found below the inputs (a directory holding bench.json[.gz] and
// topology.json is an archive; any other directory is searched). Throws std::runtime_error with one
// line when an input is missing, is a bench.json file, or holds no archive.
std::vector<std::string> fleet_archives(const std::vector<std::string>& inputs);

// The fleet of `runs` (each with a topology; throws std::runtime_error naming one without).
FleetResult fleet_compare(const std::vector<CompareInput>& runs, const FleetOptions& o);

// 0 every board inside, 4 different GPU models (refusal), 6 a board outside the fleet.
int fleet_exit_code(const FleetResult& r);

std::string render_fleet_console(const FleetResult& r);   // one screen, <= 100 columns
std::string render_fleet_markdown(const FleetResult& r);  // every figure
nlohmann::json render_fleet_json(const FleetResult& r);   // memhier-fleet/1 (docs/formats.md)

// --baseline: a fleet report (render_fleet_json) read back. Throws std::runtime_error with one line.
struct FleetBaseline {
  std::string path, gpu, compute_capability;
  int boards = 0;
  std::map<std::string, double> spread;  // figure id -> board-to-board spread
};
FleetBaseline load_fleet_baseline(const std::string& path);
// The gate's options with the baseline's spreads (GateOptions::fleet_spread).
void use_fleet_baseline(const FleetBaseline& b, GateOptions& o);

// The gate's hook (gate_compare, per row): a figure WORSE or BETTER whose change is within the
// fleet's board-to-board spread is SAME, with a note saying so.
void apply_fleet_baseline(GateRow& row, const GateOptions& o);

}  // namespace memhier::analysis
