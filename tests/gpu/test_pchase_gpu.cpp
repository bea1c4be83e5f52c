// GPU tests of the P-chase backend (ctest label gpu). Each test skips, visibly, without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "bench/backends/backend_cuda.hpp"
#include "common/levels.hpp"
#include "runtime/device_info.hpp"
#include "gpu_backend.hpp"

using namespace memhier;

namespace {

using memhier::gputest::gpu;

ChaseRequest req(Path p, Mode m, std::uint64_t bytes, std::uint64_t stride, std::uint64_t iters, bool warm = true) {
  ChaseRequest r;
  r.path = p;
  r.mode = m;
  r.array_bytes = bytes;
  r.chain = uniform_chain(bytes, stride);
  r.iters = iters;
  r.warm = warm;
  r.carveout = 0;
  return r;
}

}  // namespace

TEST(PchaseGpu, L1HitBelowL2HitBelowDram) {
  REQUIRE_GPU();
  const auto f = gpu()->figures();
  auto l1 = gpu()->run_chase(req(Path::global_ca, Mode::classic, 8 << 10, 32, 4096));
  auto l2 = gpu()->run_chase(req(Path::global_cg, Mode::classic, 1 << 20, 32, 8192));
  // cold, a line per access, over 4x L2: every access goes to DRAM
  auto dram = gpu()->run_chase(req(Path::global_cg, Mode::classic, 4 * f.l2_bytes, 128, 8192, /*warm=*/false));
  ASSERT_EQ(l1.error, "");
  ASSERT_EQ(l2.error, "");
  ASSERT_EQ(dram.error, "");
  RecordProperty("l1_cycles", std::to_string(l1.latency_cycles));
  RecordProperty("l2_cycles", std::to_string(l2.latency_cycles));
  RecordProperty("dram_cycles", std::to_string(dram.latency_cycles));
  EXPECT_GT(l1.latency_cycles, 0);
  EXPECT_LT(l1.latency_cycles, l2.latency_cycles);
  EXPECT_LT(l2.latency_cycles, dram.latency_cycles);
}

TEST(PchaseGpu, EveryPathAnswersAndSharedIsFasterThanL2) {
  REQUIRE_GPU();
  std::map<Path, double> lat;
  for (Path p : {Path::global_ca, Path::global_cg, Path::ldg, Path::texture, Path::constant, Path::shared}) {
    auto r = gpu()->run_chase(req(p, Mode::classic, 4 << 10, 64, 2048));
    ASSERT_EQ(r.error, "") << path_name(p);
    EXPECT_GT(r.latency_cycles, 0) << path_name(p);
    EXPECT_LT(r.latency_cycles, 5000) << path_name(p);
    lat[p] = r.latency_cycles;
  }
  EXPECT_LT(lat[Path::shared], lat[Path::global_cg]);
  EXPECT_LT(lat[Path::global_ca], lat[Path::global_cg]);
}

TEST(PchaseGpu, FineTraceAboveL1MissesAtLineOrSectorPeriod) {
  REQUIRE_GPU();
  const auto f = gpu()->figures();
  const std::uint64_t n = 4 * std::max<std::uint64_t>(f.smem_per_sm_bytes, 64 << 10);
  auto r = gpu()->run_chase(req(Path::global_ca, Mode::fine, n, 4, 4096));
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.latency.size(), 4096u);
  auto split = split_hit_miss(histogram_of(r.latency));
  ASSERT_TRUE(split.separated) << "no misses told apart in a footprint of " << n << " bytes";
  std::map<std::size_t, int> gaps;
  std::size_t last = 0;
  bool have = false;
  for (std::size_t k = 0; k < r.latency.size(); ++k)
    if (r.latency[k] >= split.threshold) {
      if (have) ++gaps[k - last];
      last = k;
      have = true;
    }
  auto mode = std::max_element(gaps.begin(), gaps.end(), [](auto& a, auto& b) { return a.second < b.second; });
  ASSERT_NE(mode, gaps.end());
  RecordProperty("miss_period_elements", std::to_string(mode->first));
  // 4-byte elements: a 32-byte sector is 8 elements, a 128-byte line 32
  EXPECT_TRUE(mode->first == 8 || mode->first == 32) << "miss period " << mode->first << " elements";
}

TEST(PchaseGpu, BatchRunsOneChasePerSm) {
  REQUIRE_GPU();
  const int n = std::min(gpu()->parallel_chases(Path::global_ca), 16);
  ASSERT_GT(n, 1);
  std::vector<ChaseRequest> rs;
  for (int i = 0; i < n; ++i) {
    auto r = req(Path::global_ca, Mode::count, (4 + 4 * i) << 10, 32, 0);
    r.iters = r.chain.size();
    rs.push_back(r);
  }
  auto res = gpu()->run_chase_batch(rs);
  std::set<int> sms;
  for (auto& r : res) {
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.hist.total(), r.accesses);
    sms.insert(r.sm_id);
  }
  EXPECT_EQ(static_cast<int>(sms.size()), n) << "two chases of one batch shared an SM";
}

TEST(PchaseGpu, TooLargeConfigurationIsAnErrorNotACrash) {
  REQUIRE_GPU();
  auto r = gpu()->run_chase(req(Path::constant, Mode::classic, 1 << 20, 64, 16));
  EXPECT_NE(r.error, "");
}
