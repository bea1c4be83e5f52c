// GPU tests of the throughput and bank-conflict kernels (ctest label gpu): bandwidths positive and
// below the theoretical peak; stride-1 and stride-2 bank-conflict latencies ordered as the conflict
// law says. Each test skips, visibly, without a device.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/smem.cuh"
#include "kernels/throughput.cuh"
#include "runtime/buffers.hpp"
#include "runtime/device_info.hpp"
#include "runtime/event_timer.hpp"
#include "tests/gpu/gpu_test_util.hpp"

using namespace memhier;

namespace {

// Latency per access (cycles) of one warp at `stride` elements of V.
template <typename V>
double conflict_latency(std::uint32_t stride) {
  const std::uint32_t n = std::max<std::uint32_t>(32, 31 * stride + 1);
  DeviceBuffer<std::uint64_t> out(3);
  kern::smem_stride_chase<V><<<1, 32, n * sizeof(V)>>>(n, stride, 8, out.get());
  MEMHIER_LAUNCH_CHECK();
  auto o = out.download();
  return (static_cast<double>(o[0]) - static_cast<double>(o[1])) / (8.0 * kern::kConflictChain);
}

}  // namespace

TEST(ThroughputGpu_sm90, DramReadBandwidthPositiveAndBelowPeak) {
  REQUIRE_GPU();
  DeviceDescription d = describe_device(0);
  MEMHIER_CUDA(cudaSetDevice(0));
  const std::uint64_t bytes = std::max<std::uint64_t>(4 * d.l2_bytes, 256ull << 20);
  DeviceBuffer<uint4> src(bytes / 16);
  DeviceBuffer<std::uint32_t> sink(1);
  kern::fill_words<std::uint32_t><<<d.sm_count * 4, 512>>>(reinterpret_cast<std::uint32_t*>(src.get()), bytes / 4, 0x5A5A5A5Au);
  MEMHIER_LAUNCH_CHECK();
  const int grid = 2 * d.sm_count;
  const std::uint64_t chunk = static_cast<std::uint64_t>(grid) * 1024 * 4;
  const std::uint64_t n = src.size() / chunk * chunk;
  EventTimer t;
  kern::gmem_read<uint4, 4><<<grid, 1024>>>(src.get(), n, sink.get());  // warm-up
  MEMHIER_LAUNCH_CHECK();
  t.start();
  kern::gmem_read<uint4, 4><<<grid, 1024>>>(src.get(), n, sink.get());
  MEMHIER_LAUNCH_CHECK();
  t.stop();
  const double bps = static_cast<double>(n) * 16 / t.seconds();
  EXPECT_GT(bps, 0);
  // The footprint exceeds the L2 four times, so DRAM bounds it (2% for timer granularity).
  EXPECT_LT(bps, 1.02 * d.theoretical_dram_bytes_per_second());
}

TEST(ThroughputGpu_sm90, SharedCopyBelowBanksTimesWidth) {
  REQUIRE_GPU();
  DeviceDescription d = describe_device(0);
  DeviceBuffer<kern::SmemStamp> st(d.sm_count);
  const std::size_t smem = 2 * 4 * 256 * 16;
  kern::smem_copy<uint4, 4><<<d.sm_count, 256, smem>>>(256, st.get());
  MEMHIER_LAUNCH_CHECK();
  for (const auto& s : st.download()) {
    ASSERT_GT(s.clk1, s.clk0);
    const double bpc = static_cast<double>(smem) * 256 / static_cast<double>(s.clk1 - s.clk0);
    EXPECT_GT(bpc, 0);
    EXPECT_LE(bpc, 32 * 4 * 1.02);  // one CTA per SM: at most the banks x width per clock
  }
}

TEST(ThroughputGpu_sm90, BankConflictStrideTwoSlowerThanStrideOne) {
  REQUIRE_GPU();
  const double s1 = conflict_latency<std::uint32_t>(1);
  const double s2 = conflict_latency<std::uint32_t>(2);
  const double s32 = conflict_latency<std::uint32_t>(32);
  const double s3 = conflict_latency<std::uint32_t>(3);
  EXPECT_GT(s1, 0);
  EXPECT_GT(s2, s1);           // gcd(2, 32) = 2 ways
  EXPECT_GT(s32, s2);          // 32 ways
  EXPECT_LT(s3, s2);           // gcd(3, 32) = 1: conflict-free again
}

// The tuning variants of the streams (cache hints, chunk / oneshot / grid layouts) must still
// touch every vector exactly as the baseline does: a poisoned destination is fully overwritten.
TEST(ThroughputGpu_sm90, StreamVariantsWriteEveryVector) {
  REQUIRE_GPU();
  const std::uint64_t n = 1ull << 22;  // 64 MiB of 16-byte vectors
  DeviceBuffer<uint4> src(n), dst(n);
  DeviceBuffer<std::uint32_t> sink(1);
  auto fill = [&](DeviceBuffer<uint4>& b, std::uint32_t v) {
    kern::fill_words<std::uint32_t><<<512, 256>>>(reinterpret_cast<std::uint32_t*>(b.get()), n * 4, v);
    MEMHIER_LAUNCH_CHECK();
  };
  auto all_equal = [&](std::uint32_t v) {
    std::vector<uint4> h = dst.download();
    std::uint64_t bad = 0;
    for (const auto& x : h) bad += (x.x != v) + (x.y != v) + (x.z != v) + (x.w != v);
    return bad;
  };
  fill(src, 0x5A5A5A5Au);
  // copy, streaming hints, oneshot (chunk kernel, one step per CTA)
  fill(dst, 0xDEADBEEFu);
  kern::gmem_copy_v<uint4, 4, kern::Access::cs, kern::Layout::chunk><<<n / (256 * 4), 256>>>(src.get(), dst.get(), n);
  MEMHIER_LAUNCH_CHECK();
  EXPECT_EQ(all_equal(0x5A5A5A5Au), 0u);
  // copy, ILP 1, L2 evict-first policy, grid stride
  fill(dst, 0xDEADBEEFu);
  kern::gmem_copy_v<uint4, 1, kern::Access::ef, kern::Layout::grid><<<256, 256>>>(src.get(), dst.get(), n);
  MEMHIER_LAUNCH_CHECK();
  EXPECT_EQ(all_equal(0x5A5A5A5Au), 0u);
  // write, evict-first, contiguous chunk per CTA
  fill(dst, 0xDEADBEEFu);
  kern::gmem_write_v<uint4, 8, kern::Access::ef, kern::Layout::chunk><<<128, 256>>>(dst.get(), n, 0x0F0F0F0Fu);
  MEMHIER_LAUNCH_CHECK();
  EXPECT_EQ(all_equal(0x0F0F0F0Fu), 0u);
  // read, no-allocate path: runs, and leaves the sink alone for the host's data
  std::vector<std::uint32_t> s0{7u};
  sink.upload(s0);
  kern::gmem_read_v<uint4, 16, kern::Access::na, kern::Layout::grid><<<64, 256>>>(src.get(), n, sink.get());
  MEMHIER_LAUNCH_CHECK();
  kern::read_words<uint4><<<64, 256>>>(src.get(), n, sink.get());
  MEMHIER_LAUNCH_CHECK();
  EXPECT_EQ(sink.download()[0], 7u);
}

// cached_read with CTAs sharing a window (group > 1): every CTA records a positive interval.
TEST(ThroughputGpu_sm90, CachedReadSharedWindowsStampEveryCta) {
  REQUIRE_GPU();
  const std::uint32_t n = 1u << 16;  // 1 MiB
  DeviceBuffer<uint4> buf(n);
  DeviceBuffer<std::uint32_t> sink(1);
  kern::fill_words<std::uint32_t><<<64, 256>>>(reinterpret_cast<std::uint32_t*>(buf.get()), n * 4, 0x5A5A5A5Au);
  MEMHIER_LAUNCH_CHECK();
  const std::uint32_t grid = 64, group = 2, window = n / (grid / group);
  DeviceBuffer<kern::CtaStamp> st(grid);
  kern::cached_read<kern::CacheOp::cg, 4, true><<<grid, 256>>>(buf.get(), n, window, window, 2, st.get(), sink.get(), group);
  MEMHIER_LAUNCH_CHECK();
  for (const auto& s : st.download()) {
    EXPECT_GT(s.clk1, s.clk0);
    EXPECT_GT(s.ns1, s.ns0);
  }
}
