// Cache sharing and caches per SM (003 §4.5-4.6) on synthetic re-read results and disturbance
// curves with known answers.
#include <gtest/gtest.h>

#include "analysis/cache/sharing.hpp"
#include "tests/analysis/bench_entries.hpp"

using namespace memhier;
using namespace memhier::analysis;

namespace {

const ReRead kHit{0.0, 34};
const ReRead kMiss{0.92, 260};

SharingRun run(const std::string& victim, double bytes, std::map<std::string, ReRead> r) {
  return {"cache_sharing/victim:" + victim + "/bytes:" + std::to_string(static_cast<long>(bytes)), victim, bytes, std::move(r)};
}

// A disturbance curve of `warps` warps in which warp w shares warp 0's slice when share(w).
template <typename F>
PerSmRun curve(int warps, F share) {
  PerSmRun r;
  r.benchmark = "caches_per_sm/cache:l1/bytes:65536";
  r.cache = "l1";
  r.bytes = 65536;
  r.warps = warps;
  r.reference = kHit;
  r.control = kMiss;
  for (int w = 1; w < warps; ++w) r.by_warp[w] = share(w) ? kMiss : ReRead{0.001, 34.5};
  return r;
}

}  // namespace

TEST(Eviction, ThresholdsOnMissRateAndLatency) {
  EXPECT_EQ(judge(kHit, kMiss), Eviction::evicted);
  EXPECT_EQ(judge(kHit, {0.01, 35}), Eviction::kept);
  EXPECT_EQ(judge(kHit, {0.2, 40}), Eviction::unclear);
  EXPECT_EQ(judge({1.0, 90}, {1.0, 280}), Eviction::evicted);  // constant L1.5 data pushed to the L2
}

TEST(JudgeSharing, UnifiedL1AndSeparateConstantCache) {
  std::vector<SharingRun> rs = {
      run("l1", 65536, {{"none", kHit}, {"l1", kMiss}, {"texture", kMiss}, {"readonly", kMiss}}),
      run("l1", 32768, {{"none", kHit}, {"l1", kMiss}, {"texture", kMiss}, {"readonly", {0.3, 60}}}),
      run("constant_l1", 1024, {{"none", {0, 28}}, {"constant", {0.97, 90}}, {"l1", {0, 28.4}}, {"texture", {0, 28}}})};
  const auto vs = judge_sharing(rs);
  ASSERT_EQ(vs.size(), 2u);
  const auto& c = vs[0].victim == "constant_l1" ? vs[0] : vs[1];
  const auto& l = vs[0].victim == "l1" ? vs[0] : vs[1];
  EXPECT_EQ(l.benchmark, "cache_sharing/victim:l1/bytes:65536");  // the largest qualifying footprint decides
  EXPECT_EQ(l.evicted_by, (std::vector<std::string>{"readonly", "texture"}));
  EXPECT_TRUE(c.evicted_by.empty());
  EXPECT_EQ(c.kept_by, (std::vector<std::string>{"l1", "texture"}));
}

TEST(JudgeSharing, ConstantL15VictimIsJudgedByLatency) {
  // L1.5 hits lie above the constant L1's miss threshold: every re-read counts as a miss, so only
  // the latency tells whether the stream pushed the data out to the L2
  const auto vs = judge_sharing({run("constant_l15", 16384, {{"none", {1.0, 95}}, {"constant", {1.0, 290}},
                                                             {"l1", {1.0, 96}}, {"texture", {1.0, 300}}})});
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_TRUE(vs[0].reason.empty()) << vs[0].reason;
  EXPECT_EQ(vs[0].kept_by, (std::vector<std::string>{"l1"}));
  EXPECT_EQ(vs[0].evicted_by, (std::vector<std::string>{"texture"}));
}

TEST(JudgeSharing, FailedControlLeavesOnlyEvictionsDecided) {
  // nothing evicts: undetermined
  auto vs = judge_sharing({run("texture", 65536, {{"none", kHit}, {"texture", {0.01, 35}}, {"l1", {0.01, 35}}})});
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_FALSE(vs[0].reason.empty());
  EXPECT_TRUE(vs[0].evicted_by.empty());
  EXPECT_TRUE(vs[0].kept_by.empty());  // a kept result says nothing without a working control
  // another path evicts: that much is known (the data were there and left)
  vs = judge_sharing({run("constant_l15", 16384, {{"none", {1.0, 95}}, {"constant", {1.0, 97}}, {"l1", {1.0, 96}},
                                                  {"texture", {1.0, 300}}})});
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_TRUE(vs[0].control_failed);
  EXPECT_TRUE(vs[0].reason.empty());
  EXPECT_EQ(vs[0].evicted_by, (std::vector<std::string>{"texture"}));
  EXPECT_EQ(vs[0].unclear, (std::vector<std::string>{"l1"}));
}

TEST(JudgeSlices, OneSlicePerSm) {
  const SliceVerdict v = judge_slices({curve(32, [](int) { return true; })});
  EXPECT_EQ(v.slices, 1);
  EXPECT_EQ(v.sharing_warps.size(), 32u);
}

TEST(JudgeSlices, FourSlicesByScheduler) {
  const SliceVerdict v = judge_slices({curve(32, [](int w) { return w % 4 == 0; })});
  EXPECT_EQ(v.slices, 4);
  EXPECT_TRUE(v.periodic);
  EXPECT_EQ(v.sharing_warps, (std::vector<int>{0, 4, 8, 12, 16, 20, 24, 28}));
}

TEST(JudgeSlices, TwoHalvesAsMaxwellsTexture) {
  EXPECT_EQ(judge_slices({curve(32, [](int w) { return w % 2 == 0; })}).slices, 2);
}

TEST(JudgeSlices, IrregularSharingIsListedNotCounted) {
  const SliceVerdict v = judge_slices({curve(32, [](int w) { return w < 8; })});
  EXPECT_EQ(v.slices, 0);
  EXPECT_FALSE(v.reason.empty());
  EXPECT_EQ(v.sharing_warps.size(), 8u);
}

// Warp 0 alone sharing its data: no period is seen (32 slices of 32 warps would be a guess).
TEST(JudgeSlices, WarpZeroAloneDecidesNothing) {
  const SliceVerdict v = judge_slices({curve(32, [](int w) { return w == 0; })});
  EXPECT_EQ(v.slices, 0);
  EXPECT_NE(v.reason.find("no other warp's stream evicted warp 0's data"), std::string::npos) << v.reason;
  EXPECT_EQ(v.sharing_warps, (std::vector<int>{0}));
}

TEST(JudgeSlices, NeedsAFootprintWhoseControlEvicts) {
  PerSmRun r = curve(32, [](int) { return true; });
  r.control = kHit;
  EXPECT_EQ(judge_slices({r}).slices, 0);
}

TEST(AddSharing, FillsSharedWithSymmetricallyAndSlices) {
  BenchRun run;
  run.path = "synthetic.json";
  run.context = {{"memhier_version", "test"}};
  auto m = [](const ReRead& r, const std::string& p, std::map<std::string, double>& c) {
    c[p + "_miss_rate"] = r.miss_rate;
    c[p + "_latency_cycles"] = r.latency_cycles;
  };
  std::map<std::string, double> l1c, tc, cc, ps;
  m(kHit, "none", l1c), m(kMiss, "l1", l1c), m(kMiss, "texture", l1c), m(kMiss, "readonly", l1c);
  m(kHit, "none", tc), m(kMiss, "texture", tc), m(kMiss, "l1", tc), m(kMiss, "readonly", tc);
  m({0, 28}, "none", cc), m({0.95, 90}, "constant", cc), m({0, 28}, "l1", cc), m({0, 28}, "texture", cc);
  m(kHit, "reference", ps), m(kMiss, "control", ps);
  for (int w = 1; w < 32; ++w) m(kMiss, "w" + std::to_string(w), ps);
  ps["warps"] = 32;
  run.entries = {test_support::bench_entry("cache_sharing/victim:l1/bytes:65536", l1c), test_support::bench_entry("cache_sharing/victim:texture/bytes:65536", tc),
                 test_support::bench_entry("cache_sharing/victim:constant_l1/bytes:1024", cc), test_support::bench_entry("caches_per_sm/cache:l1/bytes:65536", ps)};
  Dataset d = Dataset::from_runs({run});
  nlohmann::json caches = {{"l1", nlohmann::json::object()}, {"texture", nlohmann::json::object()},
                           {"readonly", nlohmann::json::object()}, {"constant_l1", nlohmann::json::object()}};
  add_sharing(d, caches);
  EXPECT_EQ(caches["l1"]["shared_with"], nlohmann::json({"readonly", "texture"}));
  EXPECT_EQ(caches["texture"]["shared_with"], nlohmann::json({"l1", "readonly"}));
  EXPECT_EQ(caches["constant_l1"]["shared_with"], nlohmann::json::array());
  EXPECT_EQ(caches["l1"]["slices_per_sm"], 1);
  EXPECT_FALSE(caches["l1"]["provenance"]["shared_with"]["evidence"].empty());
  EXPECT_FALSE(caches["readonly"].contains("shared_with"));  // not a victim here: left to the caller
}
