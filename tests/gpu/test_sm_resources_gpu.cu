// GPU tests of the issue-13 kernels (ctest label gpu; each skips, visibly, without a device):
// outstanding-request samples are valid in one and in two pinned CTAs, a victim's own path evicts
// it (the control of cache_sharing and caches_per_sm) while no evictor leaves it in the L1, and the
// partition-map kernel runs on the SM it is pinned to.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_test_util.hpp"

#include <string>
#include <vector>

#include "kernels/cache_sharing.cuh"
#include "kernels/l2_partitions.cuh"
#include "kernels/l2_stream.cuh"
#include "kernels/outstanding.cuh"
#include "kernels/sm_ids.cuh"
#include "kernels/throughput.cuh"
#include "runtime/buffers.hpp"
#include "runtime/device_info.hpp"

using namespace memhier;

namespace {

unsigned first_sm_id(int sms) {
  DeviceBuffer<unsigned> seen(kern::kMaxSmIds);
  seen.zero();
  kern::record_sm_ids<><<<4 * sms, 64>>>(seen.get());
  MEMHIER_LAUNCH_CHECK();
  const auto f = seen.download();
  for (unsigned s = 0; s < f.size(); ++s)
    if (f[s]) return s;
  return 0;
}

kern::OutstandingSample one_sample(std::uint32_t threads, unsigned target, int sms) {
  DeviceBuffer<std::uint32_t> words(16u << 18);  // 16 MiB
  words.zero();
  DeviceBuffer<std::uint32_t> sink(4096);
  DeviceBuffer<kern::OutstandingSample> s(1);
  s.zero();
  kern::OutstandingArgs a{};
  a.base = words.get();
  a.threads = threads;
  a.ctas = threads > 1024 ? 2 : 1;
  a.unit_bytes = 128;
  a.merge = 1;
  a.load_stride = (threads * 128) / 4;
  a.target_sm = target;
  a.start_margin = a.ctas == 1 ? 500 : 4000;
  a.sample = s.get();
  a.sink = sink.get();
  if (a.ctas == 1)
    kern::outstanding_kernel<2><<<1, threads>>>(a);
  else
    kern::outstanding_kernel<2><<<2 * sms, 1024>>>(a);
  MEMHIER_LAUNCH_CHECK();
  return s.download()[0];
}

}  // namespace

TEST(SmResourcesGpu_sm90, OutstandingSamplesAreValidInOneAndTwoCtas) {
  REQUIRE_GPU();
  DeviceDescription d = describe_device(0);
  MEMHIER_CUDA(cudaSetDevice(0));
  // as the family runs it: carveout 0 (the largest L1), under which two 1024-thread CTAs must still
  // fit one SM (the H100's first run got 1 from this query and stopped its series at 1024 threads)
  MEMHIER_CUDA(cudaFuncSetAttribute(kern::outstanding_kernel<2>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  int per_sm = 0, threads_per_sm = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
  MEMHIER_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern::outstanding_kernel<2>, 1024, 0));
  if (threads_per_sm >= 2048) EXPECT_GE(per_sm, 2) << "two 1024-thread CTAs per SM under carveout 0";
  const unsigned target = first_sm_id(d.sm_count);
  for (std::uint32_t t : {64u, 1536u}) {
    const auto s = one_sample(t, target, d.sm_count);
    EXPECT_NE(s.go, 0u) << t << " threads";
    EXPECT_GT(s.end, s.go) << t << " threads";
    EXPECT_EQ(s.flags & (kern::kOutLate | kern::kOutTimeout), 0u) << t << " threads";
    EXPECT_LT(s.end - s.go, 1000000u) << t << " threads";
    if (t > 1024) EXPECT_EQ(s.smid, target);
  }
}

TEST(SmResourcesGpu_sm90, OwnPathEvictsTheVictimNoEvictorKeepsIt) {
  REQUIRE_GPU();
  MEMHIER_CUDA(cudaSetDevice(0));
  const std::uint32_t n = 16384 / 4;  // a 16 KiB victim (fits every L1 of sm_70 and later)
  std::vector<std::uint32_t> h(n, 0);
  for (std::uint32_t e = 0; e < n; e += 8) h[e] = (e + 8) % n;
  DeviceBuffer<std::uint32_t> victim(n), evictor(1u << 20);  // evictor: 4 MiB
  victim.upload(h);
  evictor.zero();
  DeviceBuffer<unsigned long long> out(4);
  kern::ShareArgs a{};
  a.victim.global = victim.get();
  a.victim_accesses = n / 8;
  a.evictor.global = evictor.get();
  a.evictor_elems = static_cast<std::uint32_t>(evictor.size());
  a.evictor_stride = 8;
  a.evictor_thread = 1;
  a.evictor_threads = 31;
  a.miss_threshold = 100;  // between an L1 hit and an L2 hit on every such GPU
  a.out = out.get();
  auto miss_rate = [&](bool evict) {
    if (evict)
      kern::sharing_kernel<kern::LoadPath::global_ca, kern::LoadPath::global_ca, true><<<1, 32>>>(a);
    else
      kern::sharing_kernel<kern::LoadPath::global_ca, kern::LoadPath::global_ca, false><<<1, 32>>>(a);
    MEMHIER_LAUNCH_CHECK();
    const auto o = out.download();
    EXPECT_EQ(o[2], n / 8);
    return static_cast<double>(o[1]) / static_cast<double>(o[2]);
  };
  EXPECT_LT(miss_rate(false), 0.05);
  EXPECT_GT(miss_rate(true), 0.5);
}

TEST(SmResourcesGpu_sm90, PartitionMapRunsOnItsSm) {
  REQUIRE_GPU();
  DeviceDescription d = describe_device(0);
  MEMHIER_CUDA(cudaSetDevice(0));
  const unsigned target = first_sm_id(d.sm_count);
  const std::uint32_t n = 16;
  std::vector<std::uint32_t> order(n), img(n * 64, 0);
  for (std::uint32_t k = 0; k < n; ++k) order[k] = k * 64;  // lines 256 bytes apart
  for (std::uint32_t k = 0; k < n; ++k)
    for (int w = 0; w < 8; ++w) img[order[k] + w] = order[(k + 1) % n];
  DeviceBuffer<std::uint32_t> pages(img.size()), ord(n), out(kern::kMapPasses * n), ran(2);
  DeviceBuffer<int> claim(1);
  DeviceBuffer<uint4> pressure(1u << 16);  // 1 MiB
  pages.upload(img);
  ord.upload(order);
  pressure.zero();
  // A (cold, slot 0), the rest (slots 1-3), E (slot kMapSlotPrimed: the primer is the target itself here)
  for (auto [passes, slot] : {std::pair<std::uint32_t, std::uint32_t>{kern::kMapCold, 0}, {kern::kMapRest, 0},
                              {kern::kMapCold, kern::kMapSlotPrimed}}) {
    claim.zero();
    ran.zero();
    kern::MapArgs a{};
    a.base = pages.get();
    a.order = ord.get();
    a.start = order[0];
    a.n = n;
    a.target_sm = target;
    a.passes = passes;
    a.slot = slot;
    a.claim = claim.get();
    a.pressure = pressure.get();
    a.pressure_vecs = pressure.size();
    a.out = out.get();
    a.ran = ran.get();
    kern::partition_map_kernel<><<<2 * d.sm_count, 1024>>>(a);
    MEMHIER_LAUNCH_CHECK();
    EXPECT_EQ(ran.download(1)[0], target + 1);
  }
  const auto lat = out.download();
  for (std::uint32_t k = 0; k < kern::kMapPasses * n; ++k) EXPECT_GT(lat[k], 0u) << "sample " << k;
}

TEST(SmResourcesGpu_sm90, BulkCopiesCompleteOnHopper) {
  REQUIRE_GPU();
  DeviceDescription d = describe_device(0);
  if (d.cc_major < 9) GTEST_SKIP() << "cp.async.bulk needs compute capability 9.0";
  MEMHIER_CUDA(cudaSetDevice(0));
  const std::uint32_t chunk = 16384, stages = 4;
  const std::uint64_t tile = 512 * 1024;
  DeviceBuffer<unsigned char> src(8 * tile);
  src.zero();
  DeviceBuffer<std::uint32_t> err(1);
  err.zero();
  const auto fn = kern::l2_bulk_read<>;
  MEMHIER_CUDA(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(stages * chunk)));
  fn<<<8, 32, stages * chunk>>>(src.get(), tile, chunk, stages, 2, err.get());
  MEMHIER_LAUNCH_CHECK();
  MEMHIER_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(err.download(1)[0], 0u);
}
