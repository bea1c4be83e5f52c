// GPU tests of the l2_persist family (issue 20 item 4; ctest label gpu): the offer carries the
// device's persistingL2CacheMaxSize; a set-aside as large as the window keeps clearly more of it
// than the control without one; the limit and the persisting lines are restored afterwards; a
// request outside the device's limits is LevelResult::error, not a crash. Each test skips, visibly,
// without a device and where the device offers no persisting set-aside (before compute capability 8.0).
#include <gtest/gtest.h>

#include "tests/gpu/gpu_test_util.hpp"

#include <cuda_runtime.h>

#include <map>
#include <string>

#include "bench/levels.hpp"
#include "runtime/cuda_check.hpp"
#include "tests/gpu/gpu_backend.hpp"

using namespace memhier;

namespace {

LevelResult persist(std::uint64_t S, std::uint64_t W, int R = 100) {
  LevelRequest r;
  r.family = "l2_persist";
  r.params = {{"request", std::to_string(S)}, {"window", std::to_string(W)}, {"ratio", std::to_string(R)}};
  return gputest::gpu()->run_level(r);
}

double counter(const LevelResult& r, const std::string& k) {
  auto it = r.counters.find(k);
  return it == r.counters.end() ? -1 : it->second;
}

std::uint64_t max_persisting() { return gputest::gpu()->level_offer().persisting_l2_max_bytes; }

#define REQUIRE_PERSISTING()                                                                           \
  do {                                                                                                 \
    if (max_persisting() == 0) GTEST_SKIP() << "this device offers no persisting L2 set-aside (cc < 8.0)"; \
  } while (0)

}  // namespace

TEST(L2PersistGpu, OfferAndContextCarryTheMaximum) {
  REQUIRE_GPU();
  const DeviceDescription d = describe_device(0);
  const LevelOffer o = gputest::gpu()->level_offer();
  if (d.cc_major < 8) {
    EXPECT_EQ(o.persisting_l2_max_bytes, 0u);
    return;
  }
  EXPECT_GT(o.persisting_l2_max_bytes, 0u);
  EXPECT_LE(o.persisting_l2_max_bytes, d.l2_bytes);
  EXPECT_GE(o.access_policy_max_window_bytes, o.persisting_l2_max_bytes);
  const auto ctx = gputest::gpu()->context();
  EXPECT_EQ(ctx.at("l2_persisting_max_bytes"), std::to_string(o.persisting_l2_max_bytes));
}

TEST(L2PersistGpu, SetAsideKeepsMoreThanTheControl) {
  REQUIRE_GPU();
  REQUIRE_PERSISTING();
  const std::uint64_t M = max_persisting() / 4096 * 4096, W = M / 4 / 4096 * 4096;
  const LevelResult control = persist(0, W), kept = persist(M, W);
  ASSERT_TRUE(control.error.empty()) << control.error;
  ASSERT_TRUE(kept.error.empty()) << kept.error;
  for (const LevelResult* r : {&control, &kept}) {
    EXPECT_EQ(counter(*r, "separated"), 1) << "hit references " << counter(*r, "ref_hit_latency_cycles")
                                           << " cycles, miss references " << counter(*r, "ref_miss_latency_cycles");
    EXPECT_GT(counter(*r, "ref_miss_latency_cycles"), counter(*r, "ref_hit_latency_cycles"));
    EXPECT_GE(counter(*r, "kept_fraction"), 0);
    EXPECT_LE(counter(*r, "kept_fraction"), 1);
    EXPECT_GT(counter(*r, "accesses"), 0);
    EXPECT_GT(r->seconds, 0);
  }
  EXPECT_EQ(counter(control, "set_aside_bytes"), 0);
  EXPECT_GT(counter(kept, "set_aside_bytes"), 0);
  EXPECT_LE(counter(kept, "set_aside_bytes"), static_cast<double>(max_persisting()));
  // a window a quarter of the set-aside: the persisting lines should all stay, the control's go
  EXPECT_GT(counter(kept, "kept_fraction"), counter(control, "kept_fraction") + 0.25)
      << "kept " << counter(kept, "kept_bytes") << " of " << W << " bytes with a set-aside of "
      << counter(kept, "set_aside_bytes") << ", " << counter(control, "kept_bytes") << " without";
}

TEST(L2PersistGpu, LimitAndLinesRestoredAfterwards) {
  REQUIRE_GPU();
  REQUIRE_PERSISTING();
  std::size_t before = 0, after = 1;
  MEMHIER_CUDA(cudaDeviceGetLimit(&before, cudaLimitPersistingL2CacheSize));
  const std::uint64_t M = max_persisting() / 4096 * 4096;
  const LevelResult r = persist(M / 2, M / 2);
  ASSERT_TRUE(r.error.empty()) << r.error;
  MEMHIER_CUDA(cudaDeviceGetLimit(&after, cudaLimitPersistingL2CacheSize));
  EXPECT_EQ(after, before);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(L2PersistGpu, RequestsOutsideTheLimitsAreErrors) {
  REQUIRE_GPU();
  REQUIRE_PERSISTING();
  const LevelOffer o = gputest::gpu()->level_offer();
  EXPECT_NE(persist(o.persisting_l2_max_bytes + 4096, 1 << 20).error.find("persistingL2CacheMaxSize"), std::string::npos);
  EXPECT_NE(persist(0, o.access_policy_max_window_bytes + 4096).error.find("accessPolicyMaxWindowSize"), std::string::npos);
  EXPECT_FALSE(persist(0, 1 << 20, 101).error.empty());
  std::size_t limit = 1;
  MEMHIER_CUDA(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
  EXPECT_EQ(limit, 0u) << "a refused request leaves no set-aside";
}
