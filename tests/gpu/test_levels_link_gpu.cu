// Tests of the host and peer level families (bench/levels/link_levels_cuda.cu; ctest label gpu):
// the link figures' arithmetic (no device needed), what device 0 offers, and that each benchmark
// answers with figures that could be wrong: host memory slower than the L2, copies within twice the
// link, a warm peer chase not slower than a cold one, the measured device current again after a
// peer's work. GPU tests skip, visibly, without a device; peer tests without a peer.
#include <gtest/gtest.h>

#include "tests/gpu/gpu_test_util.hpp"
#include "tests/gpu/gpu_backend.hpp"

#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

#include "bench/core/guard.hpp"
#include "bench/levels/levels_cuda.hpp"
#include "common/chase.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_info.hpp"
#include "runtime/nvml.hpp"

using namespace memhier;
using memhier::gputest::gpu;

namespace {

constexpr std::int64_t MiB = 1 << 20;

LevelRequest level(const std::string& family, std::map<std::string, std::string> params) {
  LevelRequest r;
  r.family = family;
  r.params = std::move(params);
  return r;
}

// The context's link figure in bytes per second, 0 when the context has none (no NVML).
double context_figure(const char* key) {
  const auto c = gpu()->context();
  const auto it = c.find(key);
  return it == c.end() ? 0.0 : std::strtod(it->second.c_str(), nullptr);
}

double counter(const LevelResult& r, const char* key) {
  const auto it = r.counters.find(key);
  return it == r.counters.end() ? -1.0 : it->second;
}

int current_device() {
  int d = -1;
  MEMHIER_CUDA(cudaGetDevice(&d));
  return d;
}

}  // namespace

TEST(LevelsLinkFigures, PcieAndNvlinkArithmetic) {
  EXPECT_NEAR(pcie_bytes_per_second(5, 16), 16 * 32e9 * 128 / 130 / 8, 1);  // 63.0 GB/s
  EXPECT_NEAR(pcie_bytes_per_second(4, 16), 16 * 16e9 * 128 / 130 / 8, 1);
  EXPECT_NEAR(pcie_bytes_per_second(2, 16), 8e9, 1);  // 8b/10b below gen 3
  EXPECT_EQ(pcie_bytes_per_second(0, 16), 0);
  EXPECT_EQ(pcie_bytes_per_second(5, 0), 0);
  EXPECT_EQ(pcie_bytes_per_second(9, 16), 0);
  EXPECT_EQ(pcie_link_text(5, 16), "PCIe gen5 x16");
  // nvmlNvlinkVersion_t: 6 is NVLink 4.0 (H100), 5 is 3.1 (A100), 7 is 5.0
  EXPECT_EQ(nvlink_version_text(6), "4");
  EXPECT_EQ(nvlink_version_text(5), "3.1");
  EXPECT_EQ(nvlink_version_text(0), "");
  EXPECT_EQ(nvlink_version_text(42), "");
  EXPECT_EQ(18 * nvlink_bytes_per_second_per_link(6), 450e9);  // H100 NV18: 450 GB/s per direction
  EXPECT_EQ(nvlink_bytes_per_second_per_link(7), 50e9);
  EXPECT_EQ(nvlink_bytes_per_second_per_link(1), 20e9);
  EXPECT_EQ(nvlink_bytes_per_second_per_link(0), 0);
}

TEST(LevelsLinkGpu, OfferAndContext) {
  REQUIRE_GPU();
  const LevelOffer o = gpu()->level_offer();
  int n = 0;
  MEMHIER_CUDA(cudaGetDeviceCount(&n));
  if (n == 1) EXPECT_TRUE(o.peers.empty()) << "one GPU: no peer benchmarks";
  for (int p : o.peers) {
    EXPECT_NE(p, 0);
    int can = 0;
    MEMHIER_CUDA(cudaDeviceCanAccessPeer(&can, 0, p));
    EXPECT_TRUE(can) << "peer " << p;
  }
  EXPECT_GT(o.host_bytes, 0u);
  EXPECT_LE(o.host_bytes, 320u * MiB);
  const auto c = gpu()->context();
  ASSERT_TRUE(c.count("peer_devices"));
  std::string peers;
  for (int p : o.peers) peers += (peers.empty() ? "" : ",") + std::to_string(p);
  EXPECT_EQ(c.at("peer_devices"), peers);
  for (const char* k : {"host_link", "host_link_bytes_per_second", "host_link_current", "peer_link",
                        "peer_link_bytes_per_second"})
    std::cout << "  " << k << " = " << (c.count(k) ? c.at(k) : std::string("(absent)")) << "\n";
  if (c.count("host_link_bytes_per_second")) {
    EXPECT_GT(context_figure("host_link_bytes_per_second"), 1e9);
    EXPECT_EQ(c.at("host_link_source"), "nvml");
  }
}

TEST(LevelsLinkGpu, HostLatencyAboveL2Latency) {
  REQUIRE_GPU();
  if (!gpu()->level_offer().host_mapped) GTEST_SKIP() << "the device cannot map host memory";
  ChaseRequest l2;
  l2.path = Path::global_cg;
  l2.mode = Mode::classic;
  l2.array_bytes = 256 << 10;
  l2.chain = uniform_chain(l2.array_bytes, 128);
  l2.iters = 2048;
  l2.warm = true;
  const auto l2r = gpu()->run_chase(l2);
  ASSERT_EQ(l2r.error, "");
  std::map<std::string, double> lat;
  for (const char* warm : {"0", "1"}) {
    const auto h = gpu()->run_level(level("host", {{"op", "latency"}, {"bytes", std::to_string(256 << 10)}, {"warm", warm}}));
    ASSERT_EQ(h.error, "") << "warm " << warm;
    lat[warm] = counter(h, "latency_cycles");
    std::cout << "  host latency warm " << warm << ": " << lat[warm] << " cycles, " << counter(h, "latency_ns")
              << " ns (L2 hit " << l2r.latency_cycles << " cycles)\n";
    EXPECT_GT(lat[warm], 0) << "warm " << warm;
    EXPECT_GT(counter(h, "latency_ns"), 0) << "warm " << warm;
    EXPECT_GE(counter(h, "clock_overhead_cycles"), 0);
    EXPECT_EQ(counter(h, "accesses"), min_work() ? 64 : 2048);
    EXPECT_GT(h.seconds, 0);
  }
  // cold: every access crosses the host link, far above an L2 hit; warm may be an L2 hit (if the
  // L2 caches system memory), never slower than cold
  EXPECT_GT(lat["0"], l2r.latency_cycles);
  EXPECT_LE(lat["1"], 1.1 * lat["0"]);
  EXPECT_EQ(current_device(), 0);
}

TEST(LevelsLinkGpu, HostStreamsAndCopiesWithinTheLink) {
  REQUIRE_GPU();
  if (!gpu()->level_offer().host_mapped) GTEST_SKIP() << "the device cannot map host memory";
  const double link = context_figure("host_link_bytes_per_second");
  for (const char* op : {"read", "write"}) {
    const auto r = gpu()->run_level(level("host", {{"op", op}, {"ctas_per_sm", "4"}}));
    ASSERT_EQ(r.error, "") << op;
    std::cout << "  host " << op << ": " << counter(r, "bytes_per_second") / 1e9 << " GB/s\n";
    EXPECT_GT(counter(r, "bytes_per_second"), 0) << op;
    if (link > 0) EXPECT_LT(counter(r, "bytes_per_second"), 2 * link) << op;
  }
  for (const char* dir : {"h2d", "d2h", "bidir"}) {
    const auto r = gpu()->run_level(level("host", {{"op", "copy"}, {"dir", dir}, {"bytes", std::to_string(64 * MiB)}}));
    ASSERT_EQ(r.error, "") << dir;
    const double bps = counter(r, "bytes_per_second");
    std::cout << "  host copy " << dir << ": " << bps / 1e9 << " GB/s, pct " << counter(r, "pct_of_peak") << "\n";
    EXPECT_GT(bps, 0) << dir;
    EXPECT_GT(r.seconds, 0) << dir;
    const int directions = std::string(dir) == "bidir" ? 2 : 1;
    if (link > 0) {
      EXPECT_LT(bps, 2 * directions * link) << dir;
      EXPECT_GT(counter(r, "pct_of_peak"), 0) << dir;
    }
  }
}

TEST(LevelsLinkGpu, HostManagedWithinFreeMemory) {
  REQUIRE_GPU();
  if (!gpu()->level_offer().managed) GTEST_SKIP() << "no concurrent managed access on this device";
  const auto r = gpu()->run_level(level("host", {{"op", "managed"}, {"bytes", std::to_string(64 * MiB)}}));
  ASSERT_EQ(r.error, "");
  std::cout << "  managed: fault " << counter(r, "fault_latency_cycles") << " cycles, faults "
            << counter(r, "bytes_per_second") / 1e9 << " GB/s, prefetch "
            << counter(r, "prefetch_bytes_per_second") / 1e9 << " GB/s\n";
  EXPECT_GT(counter(r, "fault_latency_cycles"), 0);
  EXPECT_GT(counter(r, "bytes_per_second"), 0);
  EXPECT_GT(counter(r, "prefetch_bytes_per_second"), 0);
  EXPECT_LE(counter(r, "bytes"), 64.0 * MiB);
}

TEST(LevelsLinkGpu, RefusesWhatItCannotRun) {
  REQUIRE_GPU();
  EXPECT_NE(gpu()->run_level(level("host", {{"op", "nonsense"}})).error, "");
  EXPECT_NE(gpu()->run_level(level("host", {{"op", "copy"}, {"dir", "sideways"}, {"bytes", "1024"}})).error, "");
  EXPECT_NE(gpu()->run_level(level("host", {{"op", "latency"}, {"bytes", "100"}, {"warm", "0"}})).error, "");
  // device 0 is not its own peer
  EXPECT_NE(gpu()->run_level(level("peer", {{"dst", "0"}, {"op", "latency"}, {"bytes", "1048576"}, {"state", "cold"}})).error, "");
  EXPECT_EQ(current_device(), 0);
}

TEST(LevelsLinkGpu, PeerWarmNotAboveColdAndCopiesWithinTheLink) {
  REQUIRE_GPU();
  const LevelOffer o = gpu()->level_offer();
  if (o.peers.empty()) GTEST_SKIP() << "no peer device (one GPU, or no peer access): the peer family is absent";
  const std::string dst = std::to_string(o.peers[0]);
  std::map<std::string, double> lat;
  for (const char* state : {"cold", "warm", "owner"}) {
    const auto r = gpu()->run_level(
        level("peer", {{"dst", dst}, {"op", "latency"}, {"bytes", std::to_string(1 * MiB)}, {"state", state}}));
    ASSERT_EQ(r.error, "") << state;
    EXPECT_EQ(current_device(), 0) << "after " << state;
    lat[state] = counter(r, "latency_cycles");
    std::cout << "  peer " << dst << " latency " << state << ": " << lat[state] << " cycles, "
              << counter(r, "latency_ns") << " ns\n";
    EXPECT_GT(lat[state], 0) << state;
  }
  EXPECT_LE(lat["warm"], 1.1 * lat["cold"]);
  EXPECT_LE(lat["owner"], 1.1 * lat["cold"]);
  const double link = context_figure("peer_link_bytes_per_second");
  for (const char* op : {"read", "write"}) {
    const auto r = gpu()->run_level(level("peer", {{"dst", dst}, {"op", op}, {"ctas_per_sm", "4"}}));
    ASSERT_EQ(r.error, "") << op;
    std::cout << "  peer " << op << ": " << counter(r, "bytes_per_second") / 1e9 << " GB/s\n";
    EXPECT_GT(counter(r, "bytes_per_second"), 0) << op;
    if (link > 0) EXPECT_LT(counter(r, "bytes_per_second"), 2 * link) << op;
  }
  for (const char* dir : {"uni", "bidir"}) {
    const auto r = gpu()->run_level(
        level("peer", {{"dst", dst}, {"op", "copy"}, {"dir", dir}, {"bytes", std::to_string(64 * MiB)}}));
    ASSERT_EQ(r.error, "") << dir;
    const double bps = counter(r, "bytes_per_second");
    std::cout << "  peer copy " << dir << ": " << bps / 1e9 << " GB/s, pct " << counter(r, "pct_of_peak") << "\n";
    EXPECT_GT(bps, 0) << dir;
    const int directions = std::string(dir) == "bidir" ? 2 : 1;
    if (link > 0) EXPECT_LT(bps, 2 * directions * link) << dir;
  }
  EXPECT_EQ(current_device(), 0);
}
