// The persisting L2 set-aside (analysis/l2/persisting_l2.hpp; issue 20 item 4) from built
// l2_persist entries: kept bytes per request against the device's maximum, the control, what the
// data cannot decide (null with the reason), the report's table and the gate's headline figure.
#include <gtest/gtest.h>

#include "analysis/gate/headline.hpp"
#include "analysis/l2/persisting_l2.hpp"
#include "analysis/report/persisting.hpp"
#include "tests/analysis/bench_entries.hpp"

using namespace memhier;
using namespace memhier::analysis;
using memhier::test_support::bench_entry;
using json = nlohmann::json;

namespace {

constexpr double MiB = 1024.0 * 1024.0;
constexpr double M = 30 * MiB;  // persistingL2CacheMaxSize of the synthetic device

// One benchmark: S requested, W window, R percent; `kept` bytes (median), +-spread over trials;
// G granted (S where negative); the samples drawn from the whole window; `extra` appended to the name.
BenchEntry point(double S, double W, int R, double kept, double spread = 0, double separated = 1, double G = -1,
                 const std::string& extra = "") {
  const double samples = 65536;
  return bench_entry("l2_persist/request:" + std::to_string(static_cast<long long>(S)) +
                         "/window:" + std::to_string(static_cast<long long>(W)) + "/ratio:" + std::to_string(R) + extra,
                     {{"requested_bytes", S}, {"set_aside_bytes", G < 0 ? S : G}, {"window_bytes", W}, {"hit_ratio", R / 100.0},
                      {"max_persisting_bytes", M}, {"accesses", samples}, {"probe_span_bytes", W}, {"kept_bytes", kept},
                      {"kept_fraction", kept / W}, {"kept_bytes_min", kept - spread}, {"kept_bytes_max", kept + spread},
                      {"hit_latency_cycles", 300}, {"miss_latency_cycles", 640}, {"ref_hit_latency_cycles", 290},
                      {"ref_miss_latency_cycles", 650}, {"threshold_cycles", 510}, {"separated", separated},
                      {"corunner_bytes", 8 * 40 * MiB}, {"trials", 3}});
}

// The window-free control (policy:none, ratio 0): request 0 without an access policy window.
BenchEntry no_window(double W, double kept, double spread = 0) {
  BenchEntry e = point(0, W, 0, kept, spread, 1, 0, "/policy:none");
  e.counters["access_policy_window"] = 0;
  return e;
}

BenchRun run_with(std::vector<BenchEntry> e) {
  return test_support::bench_run(std::move(e), {{"l2_cache_bytes", "41943040"},
                                                {"l2_persisting_max_bytes", std::to_string(static_cast<long long>(M))},
                                                {"access_policy_max_window_bytes", "134213632"}});
}

// The sweep of the plan on a device that keeps what it promises (request 0 with a window keeps what
// the window-free control does); the larger window at hitRatio 1 keeps 70 % of the set-aside
// (thrash), at hitRatio 0.5 all of it.
std::vector<BenchEntry> promised() {
  return {no_window(M, 0.002 * M), point(0, M, 100, 0.002 * M), point(M / 8, M, 100, M / 8, 0.01 * M), point(M / 4, M, 100, M / 4),
          point(M / 2, M, 100, M / 2), point(M, M, 100, 0.98 * M, 0.01 * M), point(M, 2 * M, 100, 0.7 * M),
          point(M, 2 * M, 50, 0.99 * M)};
}

const json* row_of(const json& s, double S, double W, double R) {
  for (const auto& r : s["by_request"])
    if (r["requested_bytes"] == S && r["window_bytes"] == W && std::fabs(r["hit_ratio"].get<double>() - R) < 1e-9) return &r;
  return nullptr;
}

}  // namespace

TEST(PersistingL2, AbsentWithoutTheFamily) {
  EXPECT_TRUE(persisting_l2_section({run_with({})}).is_null());
}

TEST(PersistingL2, KeptPerRequestAgainstTheMaximum) {
  const json s = persisting_l2_section({run_with(promised())});
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["max_bytes"], M);
  EXPECT_EQ(s["max_window_bytes"], 134213632);
  ASSERT_EQ(s["by_request"].size(), 8u);
  // sorted by window, then hitRatio (high first), then request
  EXPECT_EQ(s["by_request"][0]["requested_bytes"], 0);
  EXPECT_EQ(s["by_request"][0]["access_policy_window"], true);
  EXPECT_EQ(s["by_request"][4]["requested_bytes"], M);
  EXPECT_EQ(s["by_request"][5]["access_policy_window"], false);  // the window-free control: ratio 0
  EXPECT_EQ(s["by_request"][6]["hit_ratio"], 1.0);
  const json* eighth = row_of(s, M / 8, M, 1);
  ASSERT_TRUE(eighth);
  EXPECT_EQ((*eighth)["kept_bytes"], M / 8);
  EXPECT_DOUBLE_EQ((*eighth)["kept_fraction"].get<double>(), 0.125);
  EXPECT_DOUBLE_EQ((*eighth)["kept_of_expected"].get<double>(), 1.0);
  EXPECT_EQ((*eighth)["kept_bytes_range"], json({std::round(M / 8 - 0.01 * M), std::round(M / 8 + 0.01 * M)}));
  const json* thrash = row_of(s, M, 2 * M, 1);
  ASSERT_TRUE(thrash);
  EXPECT_DOUBLE_EQ((*thrash)["kept_of_expected"].get<double>(), 0.7);  // min(M, 1 x 2M) = M promised
  EXPECT_DOUBLE_EQ((*row_of(s, M, 2 * M, 0.5))["kept_of_expected"].get<double>(), 0.99);
  EXPECT_TRUE((*row_of(s, 0, M, 1))["kept_of_expected"].is_null());  // nothing promised
  EXPECT_EQ(s["control_kept_bytes"], std::round(0.002 * M));
  EXPECT_DOUBLE_EQ(s["control_kept_fraction"].get<double>(), 0.002);
  EXPECT_EQ(s["control_access_policy_window"], false);
  EXPECT_NE(s["control_benchmark"].get<std::string>().find("policy:none"), std::string::npos);
  EXPECT_EQ(s["minimum_set_aside_bytes"], 0);  // request 0 with the window kept what the control did
  EXPECT_NE(s["provenance"]["minimum_set_aside_bytes"]["note"].get<std::string>().find("no more than the control"),
            std::string::npos);
  EXPECT_EQ(s["largest_kept_bytes"], std::round(0.99 * M));
  EXPECT_EQ(s["largest_kept_window_bytes"], 2 * M);
  EXPECT_DOUBLE_EQ(s["kept_of_max"].get<double>(), 0.98);
  EXPECT_GT(s["provenance"]["largest_kept_bytes"]["confidence"].get<double>(), 0.5);
  EXPECT_EQ(s["probe_hit_latency_cycles"], 300);
}

TEST(PersistingL2, ControlThatKeepsTheWindowDecidesNothing) {
  std::vector<BenchEntry> e = promised();
  e[0] = no_window(M, 0.4 * M);  // a scan-resistant L2 kept 40 % without any set-aside or window
  const json s = persisting_l2_section({run_with(e)});
  EXPECT_TRUE(s["largest_kept_bytes"].is_null());
  EXPECT_NE(s["provenance"]["largest_kept_bytes"]["reason"].get<std::string>().find("survived the co-runner without a set-aside"),
            std::string::npos);
  EXPECT_TRUE(s["kept_of_max"].is_null());
  EXPECT_EQ(s["control_kept_bytes"], std::round(0.4 * M));  // the points stay listed
  EXPECT_EQ((*row_of(s, M / 2, M, 1))["kept_bytes"], M / 2);
}

TEST(PersistingL2, OverlappingReferencesLeaveThePointNull) {
  std::vector<BenchEntry> e = promised();
  e[4] = point(M / 2, M, 100, M / 2, 0, 0);
  const json s = persisting_l2_section({run_with(e)});
  const json* half = row_of(s, M / 2, M, 1);
  ASSERT_TRUE(half);
  EXPECT_TRUE((*half)["kept_bytes"].is_null());
  EXPECT_NE((*half)["kept_reason"].get<std::string>().find("hits are not told from misses"), std::string::npos);
  EXPECT_TRUE(s["largest_kept_bytes"].is_number());  // the other points decide

  std::vector<BenchEntry> none;
  for (const auto& p : promised()) {
    BenchEntry q = p;
    q.counters["separated"] = 0;
    none.push_back(q);
  }
  const json n = persisting_l2_section({run_with(none)});
  EXPECT_TRUE(n["largest_kept_bytes"].is_null());
  EXPECT_TRUE(n["control_kept_bytes"].is_null());
  EXPECT_NE(n["provenance"]["largest_kept_bytes"]["reason"].get<std::string>().find("no benchmark told hits from misses"),
            std::string::npos);
}

TEST(PersistingL2, WithoutAControlSurvivalIsNotPersistence) {
  std::vector<BenchEntry> e = promised();
  e.erase(e.begin(), e.begin() + 2);  // neither control
  const json s = persisting_l2_section({run_with(e)});
  EXPECT_TRUE(s["control_kept_bytes"].is_null());
  EXPECT_TRUE(s["largest_kept_bytes"].is_null());
  EXPECT_TRUE(s["minimum_set_aside_bytes"].is_null());
}

TEST(PersistingL2, RunsWithoutTheWindowFreeControlFallBackToRequestZeroWithTheWindow) {
  std::vector<BenchEntry> e = promised();
  e.erase(e.begin());  // a run before policy:none
  const json s = persisting_l2_section({run_with(e)});
  EXPECT_EQ(s["control_kept_bytes"], std::round(0.002 * M));
  EXPECT_EQ(s["control_access_policy_window"], true);
  EXPECT_DOUBLE_EQ(s["provenance"]["control_kept_bytes"]["confidence"].get<double>(), 0.5);
  EXPECT_TRUE(s["largest_kept_bytes"].is_number());
  EXPECT_TRUE(s["minimum_set_aside_bytes"].is_null());
  EXPECT_NE(s["provenance"]["minimum_set_aside_bytes"]["reason"].get<std::string>().find("no window-free control"),
            std::string::npos);
  // that control keeping a tenth of the window: null, and the reason says which control it was
  e[0] = point(0, M, 100, 0.1 * M);
  const json t = persisting_l2_section({run_with(e)});
  EXPECT_TRUE(t["largest_kept_bytes"].is_null());
  EXPECT_NE(t["provenance"]["largest_kept_bytes"]["reason"].get<std::string>().find("without the window-free control"),
            std::string::npos);
}

TEST(PersistingL2, RequestZeroUnderAWindowKeepsAStepTheWindowFreeControlDoesNot) {
  // the H100 (driver 580.159.04): L2 50 MiB, steps of 1/16 of it, M = 10 steps, requests rounded
  // up; request 0 with the window kept 3.084 MiB (one step, 98.7 %), the window-free control ~0
  const double L2 = 50 * MiB, g = L2 / 16, Mx = 10 * g;
  std::vector<BenchEntry> e = {no_window(Mx, 0.01 * MiB, 0.005 * MiB), point(0, Mx, 100, 3.084 * MiB, 0.01 * MiB, 1, 0),
                               point(Mx / 8, Mx, 100, 6.15 * MiB, 0, 1, 2 * g), point(Mx / 4, Mx, 100, 9.28 * MiB, 0, 1, 3 * g),
                               point(Mx / 2, Mx, 100, 15.56 * MiB, 0, 1, 5 * g), point(Mx, Mx, 100, 30.47 * MiB, 0, 1, Mx)};
  const json s = persisting_l2_section({test_support::bench_run(
      std::move(e), {{"l2_cache_bytes", std::to_string(static_cast<long long>(L2))},
                     {"l2_persisting_max_bytes", std::to_string(static_cast<long long>(Mx))},
                     {"access_policy_max_window_bytes", "134217728"}})});
  EXPECT_EQ(s["control_kept_bytes"], std::round(0.01 * MiB));
  EXPECT_EQ(s["largest_kept_bytes"], std::round(30.47 * MiB));  // survival is told from persistence now
  EXPECT_EQ(s["minimum_set_aside_bytes"], std::round(3.074 * MiB));
  EXPECT_NEAR(s["minimum_set_aside_of_step"].get<double>(), 3.074 / 3.125, 1e-3);
  EXPECT_EQ(s["window_control_kept_bytes"], std::round(3.084 * MiB));
  const std::string why = s["provenance"]["minimum_set_aside_bytes"]["note"].get<std::string>();
  EXPECT_NE(why.find("although the limit reads 0 MiB"), std::string::npos) << why;
  EXPECT_NE(why.find("grant step(s) of 3.125 MiB"), std::string::npos) << why;
  const std::string md = render_persisting_markdown(json{{"l2_persisting", s}});
  EXPECT_NE(md.find("minimum set-aside"), std::string::npos);
  EXPECT_NE(md.find("no access policy window"), std::string::npos);
  EXPECT_NE(md.find("| no window |"), std::string::npos);
}

TEST(PersistingL2, RepetitionsTakeTheMedian) {
  std::vector<BenchEntry> e = promised();
  e.push_back(point(M / 4, M, 100, 0.2 * M));
  e.push_back(point(M / 4, M, 100, 0.26 * M));
  const json s = persisting_l2_section({run_with(e)});
  EXPECT_EQ(s["by_request"].size(), 8u);
  EXPECT_EQ((*row_of(s, M / 4, M, 1))["kept_bytes"], M / 4);
}

TEST(PersistingL2, ReportTableAndHeadlineFigure) {
  json t;
  t["l2_persisting"] = persisting_l2_section({run_with(promised())});
  const std::string md = render_persisting_markdown(t);
  EXPECT_NE(md.find("## L2 persisting"), std::string::npos);
  EXPECT_NE(md.find("| requested | granted | window |"), std::string::npos);
  EXPECT_NE(md.find("12.5 %"), std::string::npos);  // M/8 of a window of M
  EXPECT_EQ(render_persisting_markdown(json::object()), "");

  const Headline h = extract_headline(t, run_with(promised()));
  auto it = h.figures.find("l2_persisting.largest_kept_bytes");
  ASSERT_NE(it, h.figures.end());
  EXPECT_EQ(it->second.kind, Figure::Kind::bandwidth);  // more is better, a relative threshold
  EXPECT_EQ(it->second.value, std::round(0.99 * M));
  EXPECT_EQ(figure_label(it->first), "persisting L2 bytes kept");
  EXPECT_EQ(h.figures.count("l2_persisting.control_kept_bytes"), 0u);
}

TEST(PersistingL2, GrantStepFromRequestsRoundedUp) {
  // the H100's pattern: steps of M / 10 (a sixteenth of an L2 of 16 M / 10), requests rounded up
  const double L2 = 48 * MiB, g = L2 / 16, Mx = 10 * g;
  auto run = [&](std::vector<BenchEntry> e) {
    return test_support::bench_run(std::move(e), {{"l2_cache_bytes", std::to_string(static_cast<long long>(L2))},
                                                  {"l2_persisting_max_bytes", std::to_string(static_cast<long long>(Mx))},
                                                  {"access_policy_max_window_bytes", "134213632"}});
  };
  std::vector<BenchEntry> e = {point(0, Mx, 100, 0.01 * Mx, 0, 1, 0), point(Mx / 8, Mx, 100, 2 * g, 0, 1, 2 * g),
                               point(Mx / 4, Mx, 100, 3 * g, 0, 1, 3 * g), point(Mx / 2, Mx, 100, 5 * g, 0, 1, 5 * g),
                               point(Mx, Mx, 100, Mx, 0, 1, Mx)};
  const json s = persisting_l2_section({run(e)});
  EXPECT_EQ(s["grant_rounding"], "up");
  EXPECT_EQ(s["grant_step_bytes"], g);
  EXPECT_DOUBLE_EQ(s["grant_step_of_l2"].get<double>(), 0.0625);
  EXPECT_DOUBLE_EQ(s["grant_steps_in_max"].get<double>(), 10);
  EXPECT_EQ(s["grants"].size(), 4u);
  EXPECT_DOUBLE_EQ((*row_of(s, Mx / 8, Mx, 1))["kept_of_granted"].get<double>(), 1.0);
  EXPECT_NE(render_persisting_markdown(json{{"l2_persisting", s}}).find("rounded up to a multiple of"), std::string::npos);

  // only requests that are multiples of the step: granted as asked, no step shows
  const json x = persisting_l2_section({run_with(promised())});
  EXPECT_EQ(x["grant_rounding"], "exact");
  EXPECT_TRUE(x["grant_step_bytes"].is_null());
  EXPECT_NE(x["provenance"]["grant_step_bytes"]["reason"].get<std::string>().find("granted as asked"), std::string::npos);

  // one request rounded up by a step that a finer step explains as well: not decided
  // (5 g + 4 KiB -> 6 g and 10 g -> 10 g: steps of 2 g and of g both give them)
  std::vector<BenchEntry> one = {point(0, Mx, 100, 0.01 * Mx, 0, 1, 0), point(Mx, Mx, 100, Mx, 0, 1, Mx),
                                 point(5 * g + 4096, Mx, 100, 5 * g, 0, 1, 6 * g)};
  const json y = persisting_l2_section({run(one)});
  EXPECT_EQ(y["grant_rounding"], "up");
  EXPECT_TRUE(y["grant_step_bytes"].is_null());
  EXPECT_NE(y["provenance"]["grant_step_bytes"]["reason"].get<std::string>().find("both give the grants"), std::string::npos);
}

TEST(PersistingL2, AProbeThatSampledTheWindowsHeadOnlyIsSaidAndLowersTheConfidence) {
  // a run before the samples spanned the window (no probe_span_bytes): 65 536 samples from blocks of
  // floor(lines / samples) = 3 lines of a window of 256 000 lines: its first 76.8 %
  const double W = 256000 * 128.0;
  std::vector<BenchEntry> e;
  for (BenchEntry p : {point(0, W, 100, 0.01 * W), point(W / 5, W, 100, 0.046 * W), point(W, W, 100, 0.966 * W)}) {
    p.counters.erase("probe_span_bytes");
    e.push_back(p);
  }
  const json s = persisting_l2_section({run_with(e)});
  const json* r = row_of(s, W / 5, W, 1);
  ASSERT_TRUE(r);
  EXPECT_EQ((*r)["probe_span_bytes"], 65536 * 3 * 128);
  EXPECT_NE((*r)["probe_span_reason"].get<std::string>().find("first 76.8 %"), std::string::npos);
  EXPECT_EQ(s["largest_kept_bytes"], std::round(0.966 * W));
  EXPECT_DOUBLE_EQ(s["provenance"]["largest_kept_bytes"]["confidence"].get<double>(), 0.5);
  EXPECT_NE(render_persisting_markdown(json{{"l2_persisting", s}}).find("sampled only the first part"), std::string::npos);
  // with the span counter (the whole window): no reason, the usual confidence
  const json full = persisting_l2_section({run_with(promised())});
  EXPECT_FALSE((*row_of(full, M / 2, M, 1)).contains("probe_span_reason"));
  EXPECT_DOUBLE_EQ(full["provenance"]["largest_kept_bytes"]["confidence"].get<double>(), 0.8);
}
