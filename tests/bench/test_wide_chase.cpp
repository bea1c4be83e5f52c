// Whole-memory chases through the Backend interface on the simulated device: the statistics of a
// result, the limits, what a request that cannot run says, and the tlb family's names.
#include <gtest/gtest.h>

#include "bench/backends/backend_sim.hpp"
#include "bench/wide/wide_family.hpp"

using namespace memhier;

namespace {
std::unique_ptr<Backend> sim(const std::string& name) {
  return make_sim_backend(std::string(MEMHIER_SOURCE_DIR) + "/sim/configs/" + name + ".json");
}
TlbPoint point(std::uint64_t slots, std::uint64_t stride, WideAlloc a = WideAlloc::malloc) {
  TlbPoint p;
  p.alloc = a;
  p.bytes = slots * stride;
  p.stride = stride;
  p.lines = 1024;
  return p;
}
}  // namespace

TEST(WideChaseSim, L1TlbStepOfTheConfigIsTheMeanShift) {
  auto be = sim("tlb_000");  // L1 TLB 16 entries of 2 MiB, 100 cycles; L2 hit 200
  const auto res = be->run_wide_batch({tlb_chase(point(16, 2ull << 20)), tlb_chase(point(17, 2ull << 20))});
  ASSERT_EQ(res.size(), 2u);
  ASSERT_EQ(res[0].error, "");
  EXPECT_DOUBLE_EQ(res[0].latency_cycles, 200);
  EXPECT_DOUBLE_EQ(res[1].latency_cycles, 300);  // 17 pages cycle through 16 LRU entries: every access misses
  EXPECT_GE(res[0].accesses, kTlbMinTimed);
  EXPECT_GE(res[0].block_means.size(), 8u);
  EXPECT_EQ(block_ci95(res[0].block_means), 0);  // noise-free device: every block alike
  EXPECT_EQ(res[0].mapped_bytes, 17ull * (2ull << 20));
}

TEST(WideChaseSim, VmmChunksAndLimits) {
  auto be = sim("tlb_coalesced");
  const WideLimits lim = be->wide_limits();
  EXPECT_EQ(lim.vmm_granularity, 2ull << 20);
  EXPECT_GT(lim.malloc_bytes, 64ull << 30);
  auto r = be->run_wide_batch({tlb_chase(point(8, 2ull << 20, WideAlloc::vmm_gap))});
  ASSERT_EQ(r[0].error, "");
  EXPECT_EQ(r[0].chunk_bytes, 2ull << 20);
  EXPECT_EQ(r[0].gap_bytes, 2ull << 20);
  TlbPoint too_big = point(1, lim.malloc_bytes + (1ull << 30));
  too_big.stride = too_big.bytes;
  r = be->run_wide_batch({tlb_chase(too_big)});
  EXPECT_NE(r[0].error.find("exceeds"), std::string::npos) << r[0].error;
}

TEST(WideChaseSim, FineModeRecordsEveryAccessWithItsElement) {
  auto be = sim("tlb_000");
  TlbPoint p = point(17, 2ull << 20);
  p.mode = Mode::fine;
  const auto r = be->run_wide_batch({tlb_chase(p)});
  ASSERT_EQ(r[0].error, "");
  ASSERT_FALSE(r[0].latency.empty());
  EXPECT_EQ(r[0].index.size(), r[0].latency.size());
  EXPECT_EQ(r[0].latency[0], 300u);
}

TEST(WideChaseSim, TlbNamesCarryOnlyNonDefaults) {
  TlbPoint p = point(4, 1 << 16);
  p.lines = kTlbDefaultLines;
  EXPECT_EQ(tlb_bench_name(p), "tlb/alloc:malloc/bytes:262144/stride:65536");
  p.alloc = WideAlloc::vmm_gap;
  p.timed = 1 << 16;
  EXPECT_EQ(tlb_bench_name(p), "tlb/alloc:vmm_gap/bytes:262144/stride:65536/timed:65536");
}
