// topology.json's shape (analysis/report/topology_schema.hpp, docs/formats.md): memhier-topology/2
// states device values as numbers and booleans (names, identifiers and versions as text), inputs
// by file name and a cache's ways as one count (ways_per_set only where the sets differ); a /1
// document is upgraded to the same /2 document, so report.md and memhier-compare read both alike
// (a committed /1 archive and its /2 form compare SAME in every structural figure).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "analysis/gate/compare.hpp"
#include "analysis/report/topology.hpp"
#include "analysis/report/topology_schema.hpp"

using namespace memhier::analysis;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

json read_json(const std::string& path) {
  std::ifstream f(path);
  return json::parse(f);
}

// A committed archive written before /2 (results/ keeps them as they were): the oldest H100 archive
// whose topology.json is memhier-topology/1; "" when none is left.
std::string committed_v1_archive() {
  std::vector<std::string> found;
  const fs::path root = fs::path(MEMHIER_SOURCE_DIR) / "results" / "sm_90" / "nvidia-h100-80gb-hbm3";
  std::error_code ec;
  for (const auto& driver : fs::directory_iterator(root, ec))
    for (const auto& a : fs::directory_iterator(driver.path(), ec)) {
      const std::string name = a.path().filename().string();
      if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0])) && fs::exists(a.path() / "topology.json") &&
          fs::exists(a.path() / "bench.json.gz") && read_json((a.path() / "topology.json").string())["schema"] == kTopologySchemaV1)
        found.push_back(a.path().string());
    }
  std::sort(found.begin(), found.end());
  return found.empty() ? "" : found.front();
}

void write_json(const std::string& path, const json& j) { std::ofstream(path) << j.dump(2) << "\n"; }

// A small /1 document with every shape /2 changes: text device values, machine paths, ways by set
// (equal and unequal), a TLB level's ways, and counts that stay as they are (l2_sets).
json v1_document() {
  return json::parse(R"({
    "schema": "memhier-topology/1",
    "device": {"sm_count": "132", "sm_clock_throttled": "false", "characterize_wall_seconds": "28.6",
               "compute_capability": "9.0", "driver_version": "580.159.04", "gpu_serial": "1652824030713",
               "gpu_name": "NVIDIA H100 80GB HBM3", "load_avg": "[2.5,1.25]", "measurement_evidence": "",
               "theoretical_dram_bytes_per_second": "3.352320e+12", "host_name": "007"},
    "inputs": ["/root/out/w/.incomplete-x/bench.json", "/root/out/w/.incomplete-x/refine-1.json"],
    "caches": {"l1": {"sets": 3, "ways": [4, 4, 4], "provenance": {"ways": {"confidence": 0.9}}},
               "l2_tlb": {"sets": 2, "ways": [8, 16], "provenance": {"ways": {"confidence": 0.9}}},
               "l2": {"ways": null, "provenance": {"ways": {"confidence": 0, "reason": "r"}}}},
    "address_translation": {"levels": [{"name": "l1_tlb", "ways": [16]}, {"name": "l2_tlb", "ways": null}]},
    "l2_sets": {"ways": 16, "cyclic_reads": {"sweeps": [{"ways": 16}]}}
  })");
}

json v2_expected() {
  return json::parse(R"({
    "schema": "memhier-topology/2",
    "device": {"sm_count": 132, "sm_clock_throttled": false, "characterize_wall_seconds": 28.6,
               "compute_capability": "9.0", "driver_version": "580.159.04", "gpu_serial": "1652824030713",
               "gpu_name": "NVIDIA H100 80GB HBM3", "load_avg": [2.5, 1.25], "measurement_evidence": "",
               "theoretical_dram_bytes_per_second": 3.35232e12, "host_name": "007"},
    "inputs": ["bench.json", "refine-1.json"],
    "caches": {"l1": {"sets": 3, "ways": 4, "provenance": {"ways": {"confidence": 0.9}}},
               "l2_tlb": {"sets": 2, "ways": null, "ways_per_set": [8, 16],
                          "provenance": {"ways": {"confidence": 0.9,
                                                  "reason": "the sets differ: ways_per_set lists each set's ways"}}},
               "l2": {"ways": null, "provenance": {"ways": {"confidence": 0, "reason": "r"}}}},
    "address_translation": {"levels": [{"name": "l1_tlb", "ways": 16}, {"name": "l2_tlb", "ways": null}]},
    "l2_sets": {"ways": 16, "cyclic_reads": {"sweeps": [{"ways": 16}]}}
  })");
}

// Every device value a number, boolean, list or object where its text reads as one (names and
// identifiers aside), every input a file name, every cache's ways a count or null.
void expect_v2_types(const json& t) {
  EXPECT_EQ(t["schema"], "memhier-topology/2");
  for (const auto& [k, v] : t["device"].items()) {
    if (!v.is_string() || k == "compute_capability" || k == "gpu_serial" || k == "host_name" || k == "peer_devices" ||
        k.find("_version") != std::string::npos || k.find("name") != std::string::npos)
      continue;
    const std::string s = v.get<std::string>();
    EXPECT_FALSE(s == "true" || s == "false") << k;
    EXPECT_TRUE(s.empty() || s.find_first_not_of("0123456789.-+e") != std::string::npos) << k << " = " << s;
  }
  ASSERT_TRUE(t["inputs"].is_array());
  for (const auto& p : t["inputs"]) EXPECT_EQ(p.get<std::string>().find('/'), std::string::npos) << p;
  for (const auto& [name, c] : t["caches"].items())
    if (c.is_object() && c.contains("ways")) EXPECT_TRUE(c["ways"].is_number() || c["ways"].is_null()) << name;
}

}  // namespace

TEST(TopologySchema, DeviceValuesTyped) {
  EXPECT_EQ(device_value("sm_count", "132"), json(132));
  EXPECT_TRUE(device_value("sm_count", "132").is_number_integer());
  EXPECT_EQ(device_value("global_mem_bytes", "150109880320"), json(150109880320LL));
  EXPECT_EQ(device_value("sm_clock_throttled", "true"), json(true));
  EXPECT_EQ(device_value("x", "-1.5"), json(-1.5));
  EXPECT_EQ(device_value("compute_capability", "9.0"), json("9.0"));  // an identifier, not 9
  EXPECT_EQ(device_value("cuda_version", "12.10"), json("12.10"));     // not 12.1
  EXPECT_EQ(device_value("peer_devices", "0"), json("0"));            // "0,1" elsewhere: one type
  EXPECT_EQ(device_value("x", "007"), json("007"));                   // no JSON number
  EXPECT_EQ(device_value("x", "1e999"), json("1e999"));               // beyond a double
  EXPECT_EQ(device_value("x", "[1, oops"), json("[1, oops"));
  EXPECT_EQ(device_value("x", "{\"a\":1}"), json({{"a", 1}}));
  EXPECT_EQ(device_value("x", json(5)), json(5));  // typed already (/2, --context twice)
  EXPECT_EQ(input_name("/tmp/a/.incomplete-1/refine-2.json"), "refine-2.json");
  EXPECT_EQ(input_name("bench.json"), "bench.json");
}

TEST(TopologySchema, V1UpgradesToV2) {
  json t = v1_document();
  ASSERT_TRUE(upgrade_topology(t));
  EXPECT_EQ(t, v2_expected()) << t.dump(1);
  json again = t;
  ASSERT_TRUE(upgrade_topology(again));  // a /2 document stays as it is
  EXPECT_EQ(again, t);
  json other = {{"schema", "memhier-topology/9"}, {"device", {{"sm_count", "1"}}}};
  EXPECT_FALSE(upgrade_topology(other));
  EXPECT_EQ(other["device"]["sm_count"], "1");
}

TEST(TopologySchema, WaysBySetViewRestoresTheLists) {
  const json v = ways_by_set_view(v2_expected());
  EXPECT_EQ(v["caches"]["l1"]["ways"], json({4, 4, 4}));
  EXPECT_EQ(v["caches"]["l2_tlb"]["ways"], json({8, 16}));
  EXPECT_FALSE(v["caches"]["l2_tlb"].contains("ways_per_set"));
  EXPECT_EQ(v["l2_sets"]["ways"], 16);  // a count in both schemas
}

// The analyzer writes /2: memhier-infer's golden input (context values as text, an absolute path).
TEST(TopologySchema, AnalyzerWritesV2) {
  const Dataset d = Dataset::load({std::string(MEMHIER_SOURCE_DIR) + "/tests/cli/golden/infer/bench.json"});
  Requests req;
  const json t = build_topology(d, req);
  expect_v2_types(t);
  EXPECT_EQ(t["device"]["sm_count"], json(1));
  EXPECT_EQ(t["device"]["compute_capability"], "9.0");
  EXPECT_EQ(t["device"]["memhier_version"], "0.1");
  EXPECT_EQ(t["inputs"], json({"bench.json"}));
}

// A committed /1 archive: its upgrade has the /2 types, and report.md reads both alike.
TEST(TopologySchema, CommittedV1ArchiveReadsAsV2) {
  const std::string kH100 = committed_v1_archive();
  if (kH100.empty()) GTEST_SKIP() << "no committed memhier-topology/1 archive under results/ (V1UpgradesToV2 covers the shape)";
  const json v1 = read_json(kH100 + "/topology.json");
  ASSERT_EQ(v1["schema"], "memhier-topology/1");
  ASSERT_TRUE(v1["caches"]["l1"]["ways"].is_array());
  json v2 = v1;
  ASSERT_TRUE(upgrade_topology(v2));
  expect_v2_types(v2);
  EXPECT_EQ(v2["caches"]["l1"]["ways"], v1["caches"]["l1"]["ways"][0]);
  EXPECT_EQ(v2["device"]["sm_count"], json(132));
  EXPECT_EQ(v2["device"]["sm_clock_throttled"], json(false));
  std::string r1 = render_report(v1), r2 = render_report(v2);
  const auto at = r1.find("memhier-topology/1");
  ASSERT_NE(at, std::string::npos);
  r1.replace(at, std::string("memhier-topology/1").size(), "memhier-topology/2");
  EXPECT_EQ(r1, r2);
}

// memhier-compare: the committed /1 archive against the same archive with its topology in the /2
// shape: no structural change, every ways figure SAME.
TEST(TopologySchema, V1AndV2CompareSame) {
  const std::string kH100 = committed_v1_archive();
  if (kH100.empty()) GTEST_SKIP() << "no committed memhier-topology/1 archive under results/";
  const fs::path work = fs::temp_directory_path() / ("memhier_schema_" + std::to_string(::getpid()));
  fs::remove_all(work);
  for (const char* side : {"v1", "v2"}) {
    fs::create_directories(work / side);
    fs::copy_file(kH100 + "/bench.json.gz", work / side / "bench.json.gz");
  }
  const json v1 = read_json(kH100 + "/topology.json");
  json v2 = v1;
  ASSERT_TRUE(upgrade_topology(v2));
  write_json((work / "v1" / "topology.json").string(), v1);
  write_json((work / "v2" / "topology.json").string(), v2);
  const CompareInput a = load_compare_input((work / "v1").string()), b = load_compare_input((work / "v2").string());
  const CompareResult r = compare_runs(a, b, CompareOptions{});
  EXPECT_EQ(r.structure(), "SAME");
  EXPECT_GT(r.structural_rows(), 0);
  int ways_rows = 0;
  for (const auto& row : r.rows) {
    if (row.kind != "topology") continue;
    EXPECT_TRUE(row.verdict == Verdict::same || row.verdict == Verdict::info)
        << row.name << ": " << row.base.dump() << " vs " << row.now.dump() << " " << verdict_name(row.verdict);
    if (row.name == "caches.l1.ways") {
      ++ways_rows;
      EXPECT_EQ(row.base, json(4));
      EXPECT_EQ(row.verdict, Verdict::same);
    }
  }
  EXPECT_EQ(ways_rows, 1);
  fs::remove_all(work);
}
