// GPU tests of the whole-memory chases (bench/wide/wide_cuda.cu, kernels/wide_chase.cuh; ctest label
// gpu). Each skips, visibly, without a device. The chain check (the chase must end on the element
// the chain says) runs inside every request: an error string names a wrong chain or a failed call.
#include <gtest/gtest.h>

#include "gpu_backend.hpp"
#include "bench/backends/backend_cuda.hpp"
#include "bench/wide/wide_family.hpp"
#include "runtime/device_info.hpp"

using namespace memhier;

namespace {

using memhier::gputest::gpu;

TlbPoint point(std::uint64_t slots, std::uint64_t stride, WideAlloc a = WideAlloc::malloc, Mode m = Mode::count) {
  TlbPoint p;
  p.alloc = a;
  p.mode = m;
  p.bytes = slots * stride;
  p.stride = stride;
  return p;
}

}  // namespace

TEST(WideChaseGpu, MallocChainsEndWhereTheySayAndHitTheL2) {
  REQUIRE_GPU();
  const auto res = gpu()->run_wide_batch({tlb_chase(point(16, 2ull << 20)), tlb_chase(point(64, 64ull << 10))});
  for (const auto& r : res) {
    ASSERT_EQ(r.error, "");
    RecordProperty("latency_cycles", std::to_string(r.latency_cycles));
    EXPECT_GT(r.latency_cycles, 50);   // an L2 hit, not an L1 hit (ld.global.cg)
    EXPECT_LT(r.latency_cycles, 2000);
    EXPECT_GE(r.block_means.size(), 8u);
    EXPECT_GE(r.accesses, kTlbMinTimed);
    EXPECT_GT(r.seconds, 0);
  }
}

TEST(WideChaseGpu, VmmChunksWithHoles) {
  REQUIRE_GPU();
  const WideLimits lim = gpu()->wide_limits();
  if (!lim.vmm_bytes) GTEST_SKIP() << "the device or driver offers no CUDA VMM";
  const auto res = gpu()->run_wide_batch({tlb_chase(point(8, lim.vmm_granularity, WideAlloc::vmm_gap))});
  ASSERT_EQ(res[0].error, "");
  EXPECT_EQ(res[0].chunk_bytes, lim.vmm_granularity);
  EXPECT_EQ(res[0].gap_bytes, lim.vmm_granularity);
  EXPECT_GT(res[0].latency_cycles, 50);
}

TEST(WideChaseGpu, FineRecordsAndAColdExplicitChain) {
  REQUIRE_GPU();
  WideChaseRequest r = tlb_chase(point(17, 2ull << 20, WideAlloc::malloc, Mode::fine));
  auto res = gpu()->run_wide_batch({r});
  ASSERT_EQ(res[0].error, "");
  EXPECT_EQ(res[0].latency.size(), std::min<std::size_t>(r.iters, r.max_records));
  WideChaseRequest c;  // four far pages, then a line of the last one again: cold, fine
  c.mode = Mode::fine;
  c.positions = {0, 64ull << 20, 128ull << 20, 192ull << 20, (192ull << 20) + 8};
  c.footprint_bytes = 512ull << 20;
  c.iters = c.positions.size();
  c.max_records = 8;
  c.cold = true;
  c.flush_begin = 256ull << 20;
  c.flush_end = 512ull << 20;
  res = gpu()->run_wide_batch({c});
  ASSERT_EQ(res[0].error, "");
  ASSERT_EQ(res[0].latency.size(), 5u);
  EXPECT_GT(res[0].latency[0], res[0].latency[4]);  // a cold far page against a line just loaded
}

TEST(WideChaseGpu, FootprintBeyondTheLimitIsAnErrorNotACrash) {
  REQUIRE_GPU();
  const WideLimits lim = gpu()->wide_limits();
  TlbPoint p = point(2, (lim.malloc_bytes / 2 + (1ull << 30)) / (2ull << 20) * (2ull << 20));
  const auto res = gpu()->run_wide_batch({tlb_chase(p)});
  EXPECT_NE(res[0].error.find("exceeds"), std::string::npos) << res[0].error;
}
