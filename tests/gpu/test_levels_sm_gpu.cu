// GPU tests of the dsmem and async_copy families (issue 21; ctest label gpu): what the device
// offers follows its compute capability; a remote rank's shared memory is slower than the own
// through the cluster window; every copy method moves bytes at a rate above zero and below what
// shared memory (or DRAM) can take; a multicast delivers more bytes than it reads; a refused
// configuration is LevelResult::error, not a crash. Each test skips, visibly, without a device
// and below compute capability 9.0 (clusters, bulk copies).
#include <gtest/gtest.h>

#include "tests/gpu/gpu_test_util.hpp"

#include <map>
#include <string>

#include "bench/levels/levels.hpp"
#include "runtime/device_info.hpp"
#include "tests/gpu/gpu_backend.hpp"

using namespace memhier;

namespace {

LevelRequest req(const std::string& family, std::map<std::string, std::string> params) {
  LevelRequest r;
  r.family = family;
  r.params = std::move(params);
  return r;
}

LevelResult run(const LevelRequest& r) { return gputest::gpu()->run_level(r); }

double counter(const LevelResult& r, const std::string& k) {
  auto it = r.counters.find(k);
  return it == r.counters.end() ? -1 : it->second;
}

// Skips below compute capability 9.0 (a test body's first statement, after REQUIRE_GPU()).
#define REQUIRE_SM90()                                                                       \
  do {                                                                                       \
    if (describe_device(0).cc_major < 9)                                                     \
      GTEST_SKIP() << "dsmem and bulk copies need compute capability 9.0 (clusters, TMA)"; \
  } while (0)

// Shared memory cannot take more than its banks per clock (32 x 4 bytes), with a margin for the
// clock-rate read.
constexpr double kBankBytesPerClock = 128 * 1.05;

}  // namespace

TEST(LevelsSmGpu, OfferFollowsComputeCapability) {
  REQUIRE_GPU();
  const DeviceDescription d = describe_device(0);
  const LevelOffer o = gputest::gpu()->level_offer();
  EXPECT_EQ(o.cp_async, d.cc_major >= 8);
  EXPECT_EQ(o.bulk_copies, d.cc_major >= 9);
  if (d.cc_major >= 9) {
    EXPECT_GE(o.max_cluster, 8) << "a Hopper GPU runs portable clusters of 8";
  } else {
    EXPECT_EQ(o.max_cluster, 0);
    EXPECT_FALSE(o.tensor_copies);
    EXPECT_FALSE(o.multicast);
  }
}

TEST(LevelsSmGpu, RemoteSharedMemorySlowerThanOwn) {
  REQUIRE_GPU();
  REQUIRE_SM90();
  const LevelResult own = run(req("dsmem", {{"op", "latency"}, {"cluster", "2"}, {"rank", "0"}}));
  const LevelResult remote = run(req("dsmem", {{"op", "latency"}, {"cluster", "2"}, {"rank", "1"}}));
  ASSERT_EQ(own.error, "");
  ASSERT_EQ(remote.error, "");
  const double l0 = counter(own, "latency_cycles"), l1 = counter(remote, "latency_cycles");
  EXPECT_GT(l0, 5);
  EXPECT_LT(l0, 200) << "own shared memory through the cluster window";
  EXPECT_GT(l1, l0 + 20) << "another SM's shared memory";
  EXPECT_LT(l1, 5000);
  EXPECT_GE(counter(remote, "clusters"), 1);
  EXPECT_GT(counter(remote, "accesses"), 0);
  EXPECT_LE(counter(remote, "latency_min_cycles"), l1);
  EXPECT_GE(counter(remote, "latency_max_cycles"), l1);
  EXPECT_GT(remote.seconds, 0);
  EXPECT_TRUE(remote.counters.count("latency_same_tpc_cycles") || remote.counters.count("latency_other_tpc_cycles"));
  EXPECT_EQ(own.counters.count("latency_same_tpc_cycles"), 0u) << "rank 0 is the chasing SM itself";
}

TEST(LevelsSmGpu, SharedMemoryStreamsBelowTheBanks) {
  REQUIRE_GPU();
  REQUIRE_SM90();
  const DeviceDescription d = describe_device(0);
  double local_bpc = 0;
  for (const char* op : {"read", "write"})
    for (const char* remote : {"0", "1"}) {
      const LevelResult r = run(req("dsmem", {{"op", op}, {"cluster", "2"}, {"remote", remote}, {"cta_size", "1024"}}));
      ASSERT_EQ(r.error, "") << op << " remote " << remote;
      const double bpc = counter(r, "bytes_per_clock_per_sm");
      EXPECT_GT(bpc, 0) << op << " remote " << remote;
      EXPECT_LT(bpc, kBankBytesPerClock) << op << " remote " << remote;
      EXPECT_GT(counter(r, "bytes_per_second"), 0);
      EXPECT_LT(counter(r, "bytes_per_second"), kBankBytesPerClock * d.sm_count * d.sm_clock_khz * 1e3);
      EXPECT_EQ(counter(r, "warps_per_sm"), 32);
      if (std::string(op) == "read" && std::string(remote) == "0") local_bpc = bpc;
      if (std::string(op) == "read" && std::string(remote) == "1")
        EXPECT_LT(bpc, local_bpc) << "the SM-to-SM network carries less than the own banks";
    }
}

TEST(LevelsSmGpu, EveryCopyMethodMovesBytesBelowTheBound) {
  REQUIRE_GPU();
  REQUIRE_SM90();
  const DeviceDescription d = describe_device(0);
  const LevelOffer o = gputest::gpu()->level_offer();
  std::vector<std::string> methods = {"plain", "cp_async", "bulk"};
  if (o.tensor_copies) methods.push_back("tensor");
  for (const auto& m : methods)
    for (const char* src : {"l2", "dram"}) {
      const LevelResult r = run(req("async_copy", {{"op", "bandwidth"}, {"method", m}, {"source", src}, {"chunk", "4096"},
                                                   {"ctas_per_sm", "1"}, {"stages", "2"}}));
      ASSERT_EQ(r.error, "") << m << " from " << src;
      const double bps = counter(r, "bytes_per_second");
      EXPECT_GT(bps, 0) << m << " from " << src;
      EXPECT_LT(counter(r, "bytes_per_clock_per_sm"), kBankBytesPerClock) << m << " from " << src;
      if (std::string(src) == "dram") {
        EXPECT_LT(bps, 1.02 * d.theoretical_dram_bytes_per_second()) << m;
        EXPECT_GT(counter(r, "pct_of_peak"), 0) << m;
      }
    }
}

TEST(LevelsSmGpu, CopyLatencyFromTheL2) {
  REQUIRE_GPU();
  REQUIRE_SM90();
  for (const char* m : {"plain", "cp_async", "bulk"}) {
    const LevelResult r = run(req("async_copy", {{"op", "latency"}, {"method", m}, {"chunk", "1024"}}));
    ASSERT_EQ(r.error, "") << m;
    EXPECT_GT(counter(r, "latency_cycles"), 100) << m << ": at least an L2 hit";
    EXPECT_LT(counter(r, "latency_cycles"), 20000) << m;
    EXPECT_GE(counter(r, "clock_overhead_cycles"), 0) << m;
    EXPECT_EQ(counter(r, "accesses"), 256) << m;
  }
}

TEST(LevelsSmGpu, MulticastDeliversMoreThanItReads) {
  REQUIRE_GPU();
  REQUIRE_SM90();
  if (!gputest::gpu()->level_offer().multicast)
    GTEST_SKIP() << "multicast is built only for an architecture-specific target (CMAKE_CUDA_ARCHITECTURES=90a)";
  const LevelResult r = run(req("async_copy", {{"op", "multicast"}, {"source", "l2"}, {"chunk", "4096"}, {"cluster", "2"}}));
  ASSERT_EQ(r.error, "");
  EXPECT_GT(counter(r, "source_bytes_per_second"), 0);
  EXPECT_GT(counter(r, "bytes_per_second"), 1.5 * counter(r, "source_bytes_per_second"));
}

TEST(LevelsSmGpu, RefusedConfigurationsAreErrorsNotCrashes) {
  REQUIRE_GPU();
  REQUIRE_SM90();
  const std::map<std::string, LevelRequest> refused = {
      {"rank outside the cluster", req("dsmem", {{"op", "latency"}, {"cluster", "2"}, {"rank", "5"}})},
      {"cluster of 32", req("dsmem", {{"op", "read"}, {"cluster", "32"}, {"remote", "1"}, {"cta_size", "256"}})},
      {"cta_size 1000", req("dsmem", {{"op", "read"}, {"cluster", "2"}, {"remote", "1"}, {"cta_size", "1000"}})},
      {"unknown op", req("dsmem", {{"op", "swap"}, {"cluster", "2"}})},
      {"non-numeric cluster", req("dsmem", {{"op", "latency"}, {"cluster", "two"}, {"rank", "0"}})},
      {"nine stages", req("async_copy", {{"op", "bandwidth"}, {"method", "bulk"}, {"source", "l2"}, {"chunk", "4096"},
                                         {"ctas_per_sm", "1"}, {"stages", "9"}})},
      {"chunk of 17 bytes", req("async_copy", {{"op", "bandwidth"}, {"method", "cp_async"}, {"source", "l2"},
                                               {"chunk", "17"}, {"ctas_per_sm", "1"}, {"stages", "2"}})},
      {"64 CTAs per SM", req("async_copy", {{"op", "bandwidth"}, {"method", "plain"}, {"source", "l2"},
                                            {"chunk", "16384"}, {"ctas_per_sm", "64"}, {"stages", "4"}})},
      {"tensor chunk not whole rows", req("async_copy", {{"op", "latency"}, {"method", "tensor"}, {"chunk", "1040"}})},
      {"unknown method", req("async_copy", {{"op", "latency"}, {"method", "dma"}, {"chunk", "1024"}})},
      {"multicast from dram", req("async_copy", {{"op", "multicast"}, {"source", "dram"}, {"chunk", "4096"}, {"cluster", "2"}})},
  };
  for (const auto& [why, r] : refused) {
    LevelResult res;
    EXPECT_NO_THROW(res = run(r)) << why;
    EXPECT_NE(res.error, "") << why;
  }
  // the device is still usable after the refusals
  const LevelResult ok = run(req("dsmem", {{"op", "latency"}, {"cluster", "2"}, {"rank", "1"}}));
  EXPECT_EQ(ok.error, "");
}
