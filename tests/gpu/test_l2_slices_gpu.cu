// The L2 slice fingerprint on the GPU (bench/levels/l2_slices_cuda.cu; ctest label gpu): every SM
// of the discovery gets a record per pass and line, the records are L2 hits (above the L1's and
// below DRAM's latency: the lines are read with ld.global.cg and were read just before), and a line
// read twice by one SM gives about the same cycles. Skips, visibly, without a device.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_backend.hpp"
#include "tests/gpu/gpu_test_util.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "bench/levels/levels.hpp"
#include "common/l2_slice_lines.hpp"

using namespace memhier;

TEST(L2SlicesGpu, EverySmRecordsL2HitsTwice) {
  REQUIRE_GPU();
  ASSERT_TRUE(gputest::gpu()->level_offer().l2_slices);
  LevelRequest r;
  r.family = "l2_slices";
  r.params = {{"op", "fingerprint"}, {"pages", "1"}, {"bases", "4"}, {"hits", "6"}, {"passes", "2"}};
  const LevelResult res = gputest::gpu()->run_level(r);
  ASSERT_TRUE(res.error.empty()) << res.error;
  ASSERT_TRUE(res.trace.has_value());
  const std::size_t n = slice_test_offsets(1, 4).size();
  const double sms = res.counters.at("sms");
  EXPECT_GT(sms, 0);
  EXPECT_EQ(res.counters.at("sms_failed"), 0);
  EXPECT_EQ(res.trace->index.size(), static_cast<std::size_t>(sms) * n * 2);
  const double hit = res.counters.at("latency_cycles");
  EXPECT_GT(hit, 100) << "an L2 hit seen from an SM takes more than the L1's ~40 cycles";
  EXPECT_LT(hit, 800) << "lines read just before are L2 hits, not DRAM";
  // the two passes of one SM and line agree within 10 % for most records
  std::vector<std::vector<double>> by_pass(2, std::vector<double>(static_cast<std::size_t>(sms) * n, NAN));
  for (std::size_t k = 0; k < res.trace->index.size(); ++k) by_pass[res.trace->label[k]][res.trace->index[k]] = res.trace->latency[k];
  std::size_t close = 0;
  for (std::size_t i = 0; i < by_pass[0].size(); ++i) close += std::fabs(by_pass[0][i] - by_pass[1][i]) <= 0.1 * by_pass[0][i];
  EXPECT_GE(close, by_pass[0].size() * 9 / 10);
}

TEST(L2SlicesGpu, HammeringSlowsTheReferencesSliceOnly) {
  REQUIRE_GPU();
  LevelRequest r;
  r.family = "l2_slices";
  r.params = {{"op", "contention"}, {"pages", "1"}, {"bases", "4"}, {"hits", "6"}, {"copies", "2"}};
  const LevelResult res = gputest::gpu()->run_level(r);
  ASSERT_TRUE(res.error.empty()) << res.error;
  ASSERT_TRUE(res.trace.has_value());
  EXPECT_EQ(res.counters.at("probes_short_of_hammers"), 0) << "every hammer started before the loaded pass";
  EXPECT_GT(res.counters.at("reference_loaded_over_quiet"), 2) << "the hammered line waits behind the hammers' queue";
  EXPECT_LT(res.counters.at("other_loaded_over_quiet"), 1.2) << "most lines live in other slices and barely slow down";
  EXPECT_GE(res.counters.at("refs"), 2);
  EXPECT_EQ(res.counters.at("uncovered_lines"), 0);
}
