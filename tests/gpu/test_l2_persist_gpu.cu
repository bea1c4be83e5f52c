// GPU tests of the l2_persist family (issue 20 item 4; ctest label gpu): the offer carries the
// device's persistingL2CacheMaxSize; a set-aside as large as the window keeps clearly more of it
// than the control without one; the window-free control (policy:none) runs without an access policy
// window and says what the limit was around it; the limit and the persisting lines are restored afterwards; a
// request outside the device's limits is LevelResult::error, not a crash, and leaves the limit as
// it was. The limit a process starts with is not assumed to be 0: CUDA documents no default, the
// driver may adjust what it is set to (cudaDeviceSetLimit: "clamping ... rounding up"), and the
// first H100 run's test process found 9830400 (9.375 MiB) before any set-aside of its own. Each test
// skips, visibly, without a device and where the device offers no persisting set-aside (before
// compute capability 8.0).
#include <gtest/gtest.h>

#include "tests/gpu/gpu_test_util.hpp"

#include <cuda_runtime.h>

#include <iostream>
#include <map>
#include <string>

#include "bench/levels/levels.hpp"
#include "runtime/cuda_check.hpp"
#include "tests/gpu/gpu_backend.hpp"

using namespace memhier;

namespace {

LevelResult persist(std::uint64_t S, std::uint64_t W, int R = 100, const std::string& policy = "") {
  LevelRequest r;
  r.family = "l2_persist";
  r.params = {{"request", std::to_string(S)}, {"window", std::to_string(W)}, {"ratio", std::to_string(R)}};
  if (!policy.empty()) r.params["policy"] = policy;
  return gputest::gpu()->run_level(r);
}

double counter(const LevelResult& r, const std::string& k) {
  auto it = r.counters.find(k);
  return it == r.counters.end() ? -1 : it->second;
}

std::uint64_t max_persisting() { return gputest::gpu()->level_offer().persisting_l2_max_bytes; }

std::size_t limit_now() {
  std::size_t v = 0;
  MEMHIER_CUDA(cudaDeviceGetLimit(&v, cudaLimitPersistingL2CacheSize));
  return v;
}

// Sets the limit to `bytes` for a test (what the driver granted: granted()) and puts back what the
// process had when it is left.
class LimitForTest {
 public:
  explicit LimitForTest(std::size_t bytes) : before_(limit_now()) {
    MEMHIER_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, bytes));
    granted_ = limit_now();
  }
  ~LimitForTest() { MEMHIER_CUDA_NOEXCEPT(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, before_)); }
  LimitForTest(const LimitForTest&) = delete;
  LimitForTest& operator=(const LimitForTest&) = delete;
  std::size_t granted() const { return granted_; }
  std::size_t before() const { return before_; }

 private:
  std::size_t before_ = 0, granted_ = 0;
};

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
  const std::uint64_t M = max_persisting() / 4096 * 4096;
  // a limit of our own first (a small one), unlike what the benchmark's request (M / 2) is granted:
  // had the benchmark left its own set-aside or 0 behind, `after` would tell
  const LimitForTest mine(M / 8);
  std::cout << "persisting limit: " << mine.before() << " bytes before this test, " << mine.granted()
            << " granted for " << M / 8 << std::endl;
  const LevelResult r = persist(M / 2, M / 2);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_NE(counter(r, "set_aside_bytes"), static_cast<double>(mine.granted()))
      << "the request M / 2 was granted what M / 8 was: this test cannot tell a restored limit from a kept one";
  EXPECT_EQ(limit_now(), mine.granted()) << "the benchmark did not put back the limit it found";
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(L2PersistGpu, RequestsOutsideTheLimitsAreErrors) {
  REQUIRE_GPU();
  REQUIRE_PERSISTING();
  const LevelOffer o = gputest::gpu()->level_offer();
  // a non-zero limit of our own: a refused request must leave it as it is (neither 0 nor its own)
  const LimitForTest mine(o.persisting_l2_max_bytes / 4);
  ASSERT_GT(mine.granted(), 0u);
  EXPECT_NE(persist(o.persisting_l2_max_bytes + 4096, 1 << 20).error.find("persistingL2CacheMaxSize"), std::string::npos);
  EXPECT_EQ(limit_now(), mine.granted()) << "a request above persistingL2CacheMaxSize changed the limit";
  EXPECT_NE(persist(0, o.access_policy_max_window_bytes + 4096).error.find("accessPolicyMaxWindowSize"), std::string::npos);
  EXPECT_FALSE(persist(0, 1 << 20, 101).error.empty());
  EXPECT_EQ(limit_now(), mine.granted()) << "a refused request changed the persisting limit";
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST(L2PersistGpu, SamplesSpanTheWholeWindow) {
  REQUIRE_GPU();
  REQUIRE_PERSISTING();
  const std::uint64_t M = max_persisting() / 4096 * 4096;
  const LevelResult r = persist(0, M);
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(counter(r, "probe_span_bytes"), static_cast<double>(M / 128 * 128));
}

TEST(L2PersistGpu, WindowFreeControlBesideRequestZeroWithTheWindow) {
  REQUIRE_GPU();
  REQUIRE_PERSISTING();
  const std::uint64_t M = max_persisting() / 4096 * 4096;
  const LimitForTest mine(M / 8);  // a non-zero limit of our own: the benchmarks must set 0 and put it back
  const LevelResult none = persist(0, M, 0, "none"), window = persist(0, M);
  ASSERT_TRUE(none.error.empty()) << none.error;
  ASSERT_TRUE(window.error.empty()) << window.error;
  EXPECT_EQ(counter(none, "access_policy_window"), 0);
  EXPECT_EQ(counter(window, "access_policy_window"), 1);
  EXPECT_EQ(counter(none, "hit_ratio"), 0);
  for (const LevelResult* r : {&none, &window}) {
    EXPECT_EQ(counter(*r, "separated"), 1);
    EXPECT_EQ(counter(*r, "set_aside_bytes"), 0);
    EXPECT_EQ(counter(*r, "limit_before_bytes"), static_cast<double>(mine.granted()));
    EXPECT_GE(counter(*r, "set_aside_after_bytes"), 0);
  }
  EXPECT_EQ(limit_now(), mine.granted()) << "the controls did not put back the limit they found";
  // what the H100 showed (request 0 under a window keeping about one grant step) is for the analyzer
  // to decide; printed here for the log
  std::cout << "request 0 kept " << counter(window, "kept_bytes") << " B under a window (limit after the trials "
            << counter(window, "set_aside_after_bytes") << " B), " << counter(none, "kept_bytes") << " B without one"
            << std::endl;
  EXPECT_NE(persist(0, M, 100, "none").error.find("ratio must be 0"), std::string::npos);
  EXPECT_NE(persist(0, M, 0, "sometimes").error.find("policy must be"), std::string::npos);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}
