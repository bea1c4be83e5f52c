// memhier-compare --fleet (analysis/gate/fleet.hpp): a slowed board is named, identical boards and
// differences within the two-archive gate's threshold are not, a structural disagreement is named,
// different GPU models are refused, boards are named by gpu_uuid (else host and archive), and the
// fleet's board-to-board spread as a baseline turns a difference within it into SAME.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/gate/fleet.hpp"

using namespace memhier;
using namespace memhier::analysis;
namespace fs = std::filesystem;

namespace {

struct Board {
  double read_bw = 3.2e12, l1_hit = 37, l2_hit = 200, l1_line = 128;
  std::string uuid, gpu = "NVIDIA H100 80GB HBM3";
};

CompareInput input(const Board& b, const std::string& label) {
  CompareInput c;
  c.label = label;
  c.bench.path = label + "/bench.json";
  c.bench.context = {{"device_backend", "cuda"}, {"gpu_name", b.gpu}, {"compute_capability", "9.0"},
                     {"driver_version", "580.159.04"}, {"host_name", "node-" + label}};
  if (!b.uuid.empty()) c.bench.context["gpu_uuid"] = b.uuid;
  c.topology = nlohmann::json{
      {"schema", "memhier-topology/1"},
      {"caches",
       {{"l1", {{"size_bytes", 245760}, {"size_bracket_bytes", {245760, 245792}}, {"line_bytes", b.l1_line},
                {"hit_latency_cycles", b.l1_hit}}},
        {"l2", {{"hit_latency_cycles", b.l2_hit}}}}},
      {"global_memory", {{"peak_read_bytes_per_second", b.read_bw}}}};
  return c;
}

std::vector<CompareInput> fleet(const std::vector<Board>& boards) {
  std::vector<CompareInput> out;
  for (std::size_t i = 0; i < boards.size(); ++i) out.push_back(input(boards[i], "archive-" + std::to_string(i)));
  return out;
}

const FleetFigure& figure(const FleetResult& r, const std::string& id) {
  for (const auto& f : r.figures)
    if (f.id == id) return f;
  throw std::runtime_error("no figure " + id);
}

std::vector<std::string> outside_names(const FleetResult& r) {
  std::vector<std::string> out;
  for (int b : r.outlier_boards()) out.push_back(r.boards[b].name);
  return out;
}

Board l2_at(double cycles) {
  Board b;
  b.l2_hit = cycles;
  return b;
}

Board with_uuid(Board b, const std::string& uuid) {
  b.uuid = uuid;
  return b;
}

}  // namespace

TEST(Fleet, OneSlowedBoardIsNamed) {
  Board slow = with_uuid({}, "GPU-slow");
  slow.l2_hit = 240;
  const FleetResult r = fleet_compare(fleet({with_uuid({}, "GPU-a"), with_uuid(l2_at(202), "GPU-b"), slow,
                                             with_uuid(l2_at(199), "GPU-c"), with_uuid(l2_at(201), "GPU-d")}),
                                      {});
  EXPECT_EQ(outside_names(r), std::vector<std::string>{"GPU-slow"});
  const FleetFigure& l2 = figure(r, "caches.l2.hit_latency_cycles");
  EXPECT_DOUBLE_EQ(l2.median, 201);
  ASSERT_EQ(l2.outliers.size(), 1u);
  EXPECT_EQ(l2.outliers[0].board, 2);
  EXPECT_TRUE(l2.outliers[0].worse);
  EXPECT_DOUBLE_EQ(l2.outliers[0].deviation, 39);
  ASSERT_TRUE(l2.outliers[0].z.has_value());
  EXPECT_GT(*l2.outliers[0].z, 3.5);
  EXPECT_DOUBLE_EQ(l2.spread, 3);  // 199..202: the boards inside the fleet
  EXPECT_TRUE(figure(r, "caches.l1.hit_latency_cycles").outliers.empty());
  EXPECT_EQ(fleet_exit_code(r), kFleetOutlierExit);
  const std::string text = render_fleet_console(r);
  EXPECT_NE(text.find("fleet: OUTLIER - 1 of 5 boards outside: GPU-slow"), std::string::npos) << text;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 100u) << line;
}

TEST(Fleet, AFasterBoardIsOutsideToo) {
  Board fast = with_uuid({}, "GPU-fast");
  fast.read_bw = 3.6e12;
  const FleetResult r = fleet_compare(fleet({with_uuid({}, "GPU-a"), with_uuid({}, "GPU-b"), fast}), {});
  const FleetFigure& bw = figure(r, "global_memory.peak_read_bytes_per_second");
  ASSERT_EQ(bw.outliers.size(), 1u);
  EXPECT_FALSE(bw.outliers[0].worse);
  EXPECT_FALSE(bw.outliers[0].z.has_value());  // the others identical: MAD 0, the threshold decides
}

TEST(Fleet, IdenticalBoardsAndDifferencesWithinTheGateThresholdNameNone) {
  FleetResult r = fleet_compare(fleet({{}, {}, {}, {}}), {});
  EXPECT_TRUE(r.outlier_boards().empty());
  EXPECT_EQ(fleet_exit_code(r), 0);
  EXPECT_NE(render_fleet_console(r).find("fleet: PASS - 4 boards"), std::string::npos);
  // MAD 0 makes any deviation an infinite z: the two-archive gate's threshold is the floor
  Board near;
  near.read_bw = 3.2e12 * 0.96;  // 4 % < 5 %
  near.l2_hit = 209;             // 9 cycles < max(10, 5 %)
  r = fleet_compare(fleet({{}, {}, {}, near}), {});
  EXPECT_TRUE(r.outlier_boards().empty());
  near.l2_hit = 211;
  r = fleet_compare(fleet({{}, {}, {}, near}), {});
  EXPECT_EQ(r.outlier_boards(), std::vector<int>{3});
}

TEST(Fleet, TwoBoardsNameNone) {
  Board slow;
  slow.l2_hit = 300;
  const FleetResult r = fleet_compare(fleet({{}, slow}), {});
  EXPECT_TRUE(r.outlier_boards().empty());
  ASSERT_FALSE(r.notes.empty());
  EXPECT_NE(r.notes[0].find("fewer than 3 boards"), std::string::npos);
}

TEST(Fleet, AStructuralDisagreementIsNamed) {
  Board odd = with_uuid({}, "GPU-odd");
  odd.l1_line = 64;
  const FleetResult r = fleet_compare(fleet({with_uuid({}, "GPU-a"), odd, with_uuid({}, "GPU-b")}), {});
  EXPECT_EQ(outside_names(r), std::vector<std::string>{"GPU-odd"});
  EXPECT_EQ(r.disagreements(1), 1);
  EXPECT_EQ(r.figure_outliers(1), 0);
  bool found = false;
  for (const auto& s : r.structure) {
    if (s.id != "caches.l1.line_bytes") continue;
    found = true;
    EXPECT_EQ(s.majority, 128);
    EXPECT_EQ(s.majority_boards, 2);
    ASSERT_EQ(s.disagreements.size(), 1u);
    EXPECT_EQ(s.disagreements[0].value, 64);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(fleet_exit_code(r), kFleetOutlierExit);
  EXPECT_NE(render_fleet_console(r).find("STRUCTURAL DISAGREEMENTS"), std::string::npos);
}

TEST(Fleet, BoardsAreNamedByUuidElseHostAndArchive) {
  const FleetResult r = fleet_compare(fleet({with_uuid({}, "GPU-1234"), {}, with_uuid({}, "GPU-1234")}), {});
  EXPECT_EQ(r.boards[0].name, "GPU-1234");
  EXPECT_EQ(r.boards[1].name, "node-archive-1:archive-1");
  EXPECT_EQ(r.boards[2].name, "GPU-1234 (2)");  // one board measured twice
}

TEST(Fleet, DifferentGpuModelsAreRefused) {
  Board h200;
  h200.gpu = "NVIDIA H200";
  const FleetResult r = fleet_compare(fleet({{}, {}, h200}), {});
  EXPECT_EQ(fleet_exit_code(r), 4);
  EXPECT_NE(r.refusal.find("1 x NVIDIA H200"), std::string::npos) << r.refusal;
  EXPECT_NE(r.refusal.find("2 x NVIDIA H100 80GB HBM3"), std::string::npos) << r.refusal;
  EXPECT_TRUE(r.figures.empty());
}

TEST(Fleet, ABaselineAbsorbsADifferenceWithinTheFleetSpread) {
  // three boards, L2 hit latency 200..212: none outside (MAD 6, threshold 10.3), spread 12
  const FleetResult f = fleet_compare(fleet({{}, l2_at(206), l2_at(212)}), {});
  ASSERT_TRUE(f.outlier_boards().empty());
  EXPECT_DOUBLE_EQ(figure(f, "caches.l2.hit_latency_cycles").spread, 12);
  const fs::path file = fs::path(MEMHIER_BINARY_DIR) / "test_fleet_baseline.json";
  std::ofstream(file) << render_fleet_json(f).dump(2);
  const FleetBaseline b = load_fleet_baseline(file.string());
  EXPECT_EQ(b.boards, 3);
  EXPECT_EQ(b.gpu, "NVIDIA H100 80GB HBM3");

  const CompareInput base = input({}, "base");
  const CompareInput within = input(l2_at(212), "new");  // +12 cycles: beyond the gate's 10
  GateOptions plain;
  const auto row_of = [](const GateResult& r, const std::string& id) {
    for (const auto& x : r.rows)
      if (x.id == id) return x;
    throw std::runtime_error("no row " + id);
  };
  EXPECT_EQ(row_of(gate_compare(base, within, plain), "caches.l2.hit_latency_cycles").verdict, Verdict::worse);
  GateOptions with = plain;
  use_fleet_baseline(b, with);
  const GateResult r = gate_compare(base, within, with);
  const GateRow l2 = row_of(r, "caches.l2.hit_latency_cycles");
  EXPECT_EQ(l2.verdict, Verdict::same);
  EXPECT_NE(l2.note.find("within the fleet's board-to-board spread"), std::string::npos) << l2.note;
  EXPECT_EQ(gate_exit_code(r, true, true), 0);
  // beyond the fleet's spread: still WORSE
  const GateResult beyond = gate_compare(base, input(l2_at(225), "new"), with);
  EXPECT_EQ(row_of(beyond, "caches.l2.hit_latency_cycles").verdict, Verdict::worse);
  EXPECT_EQ(gate_exit_code(beyond, true, true), 1);
}

TEST(Fleet, BadBaselinesAndInputsAreOneLineErrors) {
  const fs::path dir = fs::path(MEMHIER_BINARY_DIR) / "test_fleet_inputs";
  fs::remove_all(dir);
  fs::create_directories(dir / "results/sm_90/gpu/drv/20261127T102618Z");
  fs::create_directories(dir / "empty");
  std::ofstream(dir / "not_fleet.json") << R"({"format": "memhier-compare/2", "figures": []})";
  EXPECT_THROW(load_fleet_baseline((dir / "not_fleet.json").string()), std::runtime_error);
  EXPECT_THROW(load_fleet_baseline((dir / "missing.json").string()), std::runtime_error);
  EXPECT_THROW(fleet_archives({(dir / "empty").string()}), std::runtime_error);
  EXPECT_THROW(fleet_archives({(dir / "not_fleet.json").string()}), std::runtime_error);
  const fs::path a = dir / "results/sm_90/gpu/drv/20261127T102618Z";
  std::ofstream(a / "bench.json") << "{}";
  std::ofstream(a / "topology.json") << "{}";
  EXPECT_EQ(fleet_archives({(dir / "results").string()}), std::vector<std::string>{a.string()});
  CompareInput no_topology = input({}, "x");
  no_topology.topology.reset();
  EXPECT_THROW(fleet_compare({input({}, "y"), no_topology}, {}), std::runtime_error);
}

TEST(Fleet, ARunMarkedContendedIsSaid) {
  std::vector<CompareInput> runs = fleet({with_uuid({}, "GPU-a"), with_uuid({}, "GPU-b"), with_uuid({}, "GPU-c")});
  runs[1].bench.context["measurement_contended"] = "true";
  const FleetResult r = fleet_compare(runs, {});
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_EQ(r.notes[0], "GPU-b: the run is marked contended: its figures are not the board's alone");
}

// Issue 31: boards are counted by gpu_uuid (five archives of one board are one board, said so),
// and a fleet of mixed GPU models says its refusal once, first, without one model's name above it.
TEST(Fleet, ArchivesOfOneBoardAreCountedAsOneBoard) {
  const FleetResult r = fleet_compare(fleet({with_uuid({}, "GPU-a"), with_uuid({}, "GPU-a"), with_uuid({}, "GPU-a"),
                                             with_uuid({}, "GPU-b")}), {});
  EXPECT_EQ(r.board_count(), 2);
  EXPECT_EQ(r.boards.size(), 4u);
  EXPECT_EQ(r.count_text(), "4 archives of 2 boards");
  const std::string text = render_fleet_console(r);
  EXPECT_EQ(text.rfind("fleet: PASS - 4 archives of 2 boards within the fleet", 0), 0u) << text;
  EXPECT_EQ(render_fleet_json(r)["board_count"], 2);
  const FleetResult distinct = fleet_compare(fleet({with_uuid({}, "GPU-a"), with_uuid({}, "GPU-b"), with_uuid({}, "GPU-c")}), {});
  EXPECT_EQ(distinct.count_text(), "3 boards");
}

TEST(Fleet, MixedModelsAreRefusedOnceAndFirst) {
  Board h200;
  h200.gpu = "NVIDIA H200";
  const FleetResult r = fleet_compare(fleet({{}, {}, h200}), {});
  const std::string text = render_fleet_console(r);
  EXPECT_EQ(text.rfind("fleet: REFUSED - different GPU models:", 0), 0u) << text;
  std::size_t n = 0;
  for (std::size_t p = 0; (p = text.find("different GPU models", p)) != std::string::npos; ++p) ++n;
  EXPECT_EQ(n, 1u) << text;
  EXPECT_EQ(text.find("boards of NVIDIA"), std::string::npos) << text;  // no one model named above the refusal
}
