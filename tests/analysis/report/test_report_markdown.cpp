// report.md reads like a datasheet (issue 19): equal ways collapsed, an exact capacity shown as
// exact and never as an empty interval, each size figure named for what it is (capacity, onset,
// 50 % point per carveout), TLB rows named entries / reach per entry / total reach / page /
// sets × ways / miss penalty, and every null with its reason.
#include <gtest/gtest.h>

#include <regex>

#include "analysis/report/format.hpp"
#include "analysis/report/topology.hpp"

using namespace memhier::analysis;
using nlohmann::json;

namespace {

json prov(double confidence) { return {{"confidence", confidence}, {"note", "test"}}; }

json why(const std::string& reason) { return {{"confidence", 0}, {"reason", reason}}; }

// An L1 as the H100 shows it: 512 sets of 4 ways, capacity exact from the structure, the 50 %
// points per carveout beside it.
json l1_cache() {
  json c;
  c["present"] = true;
  c["size_bytes"] = 262144;
  c["size_bracket_bytes"] = {262144, 262144};
  c["size_source"] = "structure";
  c["size_carveout"] = 0;
  c["onset_size_bytes"] = 246336;
  c["onset_size_bracket_bytes"] = {246336, 249856};
  c["half_point_bytes"] = 267552;
  c["half_point_bracket_bytes"] = {262400, 272800};
  c["size_bytes_by_carveout"] = {{"0", 267552}, {"100", 27840}, {"50", 104928}};
  c["onset_size_bytes_by_carveout"] = {{"0", 246336}, {"100", 20800}, {"50", 86464}};
  c["line_bytes"] = 128;
  c["sector_bytes"] = 32;
  c["sets"] = 512;
  c["ways"] = std::vector<int>(512, 4);
  c["hit_latency_cycles"] = 33.0;
  c["miss_penalty_cycles"] = 245.9;
  c["shared_with"] = {"readonly", "texture"};
  c["index_matrix"] = nullptr;
  for (auto k : {"size_bytes", "onset_size_bytes", "half_point_bytes", "size_bytes_by_carveout", "onset_size_bytes_by_carveout",
                 "line_bytes", "sector_bytes", "sets", "ways", "hit_latency_cycles", "miss_penalty_cycles", "shared_with"})
    c["provenance"][k] = prov(0.9);
  c["provenance"]["index_matrix"] = why("the congruence tests span 14 of 18 dimensions");
  return c;
}

json l1_tlb() {
  json c;
  c["present"] = true;
  c["entries"] = 16;
  c["line_bytes"] = 16777216;
  c["reach_per_entry_bytes"] = 16777216;
  c["size_bytes"] = 268435456;
  c["reach_bracket_bytes"] = {268435456, 285212672};
  c["sets"] = 1;
  c["ways"] = {16};
  c["page_bytes"] = nullptr;
  c["page_bytes_at_most"] = 2097152;
  c["miss_penalty_cycles"] = 9.8;
  c["miss_penalty_ci95_cycles"] = 0.221;
  c["hit_latency_cycles"] = nullptr;
  for (auto k : {"entries", "line_bytes", "reach_per_entry_bytes", "size_bytes", "sets", "ways", "miss_penalty_cycles"})
    c["provenance"][k] = prov(0.9);
  c["provenance"]["page_bytes"] = why("not observable from reach");
  c["provenance"]["hit_latency_cycles"] = why("a TLB hit has no latency of its own");
  return c;
}

json topology() {
  json t;
  t["schema"] = "memhier-topology/1";
  t["device"] = {{"gpu_name", "test"}};
  t["caches"]["l1"] = l1_cache();
  t["caches"]["l1_tlb"] = l1_tlb();
  t["shared_memory"]["latency_cycles"] = nullptr;
  t["shared_memory"]["provenance"]["latency_cycles"] = why("no classic shared-memory P-chase");
  return t;
}

// The text of one cache's screen: from its heading to the next.
std::string screen(const std::string& report, const std::string& name) {
  const auto a = report.find("### " + name + "\n");
  if (a == std::string::npos) return {};
  const auto b = report.find("\n#", a + 4);
  return report.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

}  // namespace

TEST(ReportMarkdown, EqualWaysCollapseToOneLine) {
  const std::string r = render_report(topology());
  const std::string l1 = screen(r, "l1");
  EXPECT_NE(l1.find("| ways | 4 ways in all 512 sets | 0.90 |"), std::string::npos) << l1;
  EXPECT_EQ(r.find("4,4,4"), std::string::npos);
  EXPECT_EQ(r.find("[4, 4"), std::string::npos);
}

TEST(ReportMarkdown, UnequalWaysAsRuns) {
  std::vector<int> ways(512, 4);
  for (int i = 256; i < 512; ++i) ways[i] = 2;
  EXPECT_EQ(report_format::ways_text(json(ways)), "4 ways in sets 0–255, 2 in 256–511");
  EXPECT_EQ(report_format::ways_text(json({16})), "16 ways (one set)");
  EXPECT_EQ(report_format::ways_text(json({4, 4, 5, 4})), "4 ways in sets 0–1, 5 in set 2, 4 in set 3");
}

TEST(ReportMarkdown, ExactCapacityNeverAnEmptyInterval) {
  const std::string r = render_report(topology());
  EXPECT_NE(screen(r, "l1").find("| capacity | 256 KiB, exact: sets × ways × line"), std::string::npos) << r;
  // an interval whose two ends read the same: [x, x) or [x, x]
  const std::regex empty(R"(\[([^\[\],]+), \1[\)\]])");
  EXPECT_FALSE(std::regex_search(r, empty)) << r;
  EXPECT_EQ(r.find("size bracket"), std::string::npos);
  // ends that round alike print as exact counts, never as one value twice
  const std::string close = report_format::bytes_interval(26933760, 26935040, false);
  EXPECT_FALSE(std::regex_search(close, empty)) << close;
  EXPECT_EQ(report_format::bytes_interval(4096, 4128, false), "[4 KiB, 4.03 KiB)");
}

TEST(ReportMarkdown, SizeFiguresNamedForWhatTheyAre) {
  const std::string l1 = screen(render_report(topology()), "l1");
  EXPECT_EQ(l1.find("size by carveout"), std::string::npos) << l1;
  EXPECT_EQ(l1.find("size C"), std::string::npos);
  EXPECT_NE(l1.find("| misses begin (onset) | 240.6 KiB (246336 B)"), std::string::npos) << l1;
  EXPECT_NE(l1.find("| 50 % point of the miss-rate curve | 261.3 KiB (267552 B)"), std::string::npos) << l1;
  // per carveout: onset and 50 % point, in carveout order
  EXPECT_NE(l1.find("| carveout | misses begin (onset) | 50 % point of the miss-rate curve |"), std::string::npos) << l1;
  const auto c0 = l1.find("| 0 % | 240.6 KiB (246336 B) | 261.3 KiB (267552 B)");
  const auto c50 = l1.find("| 50 % | 84.4 KiB (86464 B) | 102.5 KiB (104928 B)");
  const auto c100 = l1.find("| 100 % | 20.3 KiB (20800 B) | 27.2 KiB (27840 B)");
  ASSERT_NE(c0, std::string::npos) << l1;
  ASSERT_NE(c50, std::string::npos) << l1;
  ASSERT_NE(c100, std::string::npos) << l1;
  EXPECT_LT(c0, c50);
  EXPECT_LT(c50, c100);
  EXPECT_NE(l1.find("confidence: onset 0.90, 50 % point 0.90"), std::string::npos) << l1;
}

TEST(ReportMarkdown, TlbRowsNamedForWhatTheyAre) {
  const std::string r = render_report(topology());
  const std::string tlb = screen(r, "l1_tlb");
  for (const char* row : {"| entries | 16 | 0.90 |", "| reach per entry | 16 MiB | 0.90 |",
                          "| total reach | 256 MiB = 16 entries × 16 MiB; measured in [256 MiB, 272 MiB) | 0.90 |",
                          "| page | at most 2 MiB |", "| sets × ways | 1 set × 16 ways | 0.90 |",
                          "| miss penalty | 9.8 cycles ± 0.221 (95 %) | 0.90 |"})
    EXPECT_NE(tlb.find(row), std::string::npos) << row << "\n" << tlb;
  for (const char* wrong : {"| capacity", "| line", "| size", "| ways |"}) EXPECT_EQ(tlb.find(wrong), std::string::npos) << wrong;
  EXPECT_NE(tlb.find("- Not determined: page — not observable from reach"), std::string::npos) << tlb;
  // the summary keeps TLBs out of the cache columns
  EXPECT_NE(r.find("| TLB | entries | reach per entry | total reach | miss penalty (cycles) |"), std::string::npos);
  EXPECT_NE(r.find("| l1_tlb | 16 | 16 MiB | 256 MiB | 9.8 |"), std::string::npos) << r;
}

TEST(ReportMarkdown, NullsCarryTheirReasonAndValuesTheirUnit) {
  const std::string r = render_report(topology());
  EXPECT_NE(r.find("Latency: not determined — no classic shared-memory P-chase"), std::string::npos) << r;
  EXPECT_EQ(r.find(") cycles"), std::string::npos) << "a unit after a reason";
  const std::string l1 = screen(r, "l1");
  EXPECT_NE(l1.find("| hit latency | 33 cycles | 0.90 |"), std::string::npos) << l1;
  EXPECT_NE(l1.find("| same physical array as | readonly, texture | 0.90 |"), std::string::npos) << l1;
  EXPECT_NE(l1.find("- Not determined: set index as GF(2) matrix — the congruence tests span"), std::string::npos) << l1;
  EXPECT_EQ(r.find("[\""), std::string::npos) << "a JSON list printed raw";
}

// A run marked contended or throttled says so before anything else, with the evidence; a clean
// run's conditions are lines of the Measurement section only.
TEST(ReportMarkdown, ContendedRunSaysSoFirst) {
  nlohmann::json t = topology();
  t["measurement"]["conditions"] = {{"nvml", "libnvidia-ml.so.1"}, {"contended", true}, {"throttled", false},
                                    {"evidence", "other compute processes during gmem_throughput (1)"},
                                    {"ecc_mode", "enabled"}, {"gpu_uuid", "GPU-1234"}};
  std::string r = render_report(t);
  const auto warn = r.find("> **This run is marked contended**: other compute processes during gmem_throughput (1)");
  ASSERT_NE(warn, std::string::npos) << r.substr(0, 600);
  EXPECT_LT(warn, r.find("## "));
  EXPECT_NE(r.find("- another process shared the GPU (contended): yes"), std::string::npos);
  EXPECT_NE(r.find("- device modes: ecc enabled"), std::string::npos);
  t["measurement"]["conditions"]["contended"] = false;
  r = render_report(t);
  EXPECT_EQ(r.find("This run is marked"), std::string::npos);
  EXPECT_NE(r.find("- another process shared the GPU (contended): no"), std::string::npos);
}
