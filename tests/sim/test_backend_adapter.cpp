// The Backend adapter (bench/backends/backend_sim.cpp) answers chase requests as the families expect.
// The sim test suite links only memhier_sim, so the adapter's two plain C++ sources are compiled
// into this test directly (they include no CUDA header).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "bench/backends/backend.cpp"
#include "bench/backends/backend_sim.cpp"
#include "bench/plans/l2_evsets_plan.cpp"
#include "bench/plans/l2_slices_plan.cpp"
#include "bench/wide/wide_common.cpp"
#include "bench/wide/wide_sim.cpp"
#include "common/chase.hpp"
#include "sim_test_util.hpp"

namespace memhier {
namespace {

using sim::testing::config_path;

TEST(SimBackend, IdentityAndFigures) {
  auto be = make_sim_backend(config_path("plain_lru"));
  EXPECT_EQ(be->name(), "sim:plain_lru");
  auto ctx = be->context();
  EXPECT_EQ(ctx["device_backend"], "sim:plain_lru");
  EXPECT_EQ(ctx["compute_capability"], "7.0");
  EXPECT_EQ(ctx["l2_cache_bytes"], "1048576");
  DeviceFigures f = be->figures();
  EXPECT_EQ(f.l2_bytes, 1048576u);
  EXPECT_EQ(f.sm_count, 4);
  EXPECT_EQ(f.smem_per_sm_bytes, 65536u);
  EXPECT_TRUE(be->supports(Path::constant));
  EXPECT_EQ(be->max_array_bytes(Path::constant), 65536u);
  EXPECT_EQ(be->max_array_bytes(Path::shared), 65536u);
  ClockOverhead o = be->clock_overhead();
  EXPECT_EQ(o.clock_pair_cycles, 2);
  EXPECT_EQ(o.fine_cycles, 10);

  auto tlb = make_sim_backend(config_path("tlb_000"));
  EXPECT_FALSE(tlb->supports(Path::texture));
  EXPECT_FALSE(tlb->supports(Path::shared));
  EXPECT_TRUE(tlb->supports(Path::global_cg));
}

TEST(SimBackend, MissingOrBadConfigThrowsOneLine) {
  EXPECT_THROW(make_sim_backend("/nonexistent.json"), std::runtime_error);
  const auto p = std::filesystem::temp_directory_path() / "memhier_sim_bad.json";
  { std::ofstream(p) << "{\"format\": \"memhier-sim-config/1\", \"name\": \"x\"}"; }
  try {
    make_sim_backend(p.string());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find(p.string()), std::string::npos) << m;
    EXPECT_NE(m.find("missing 'device'"), std::string::npos) << m;
  }
  std::filesystem::remove(p);
}

TEST(SimBackend, FineRecordsIndexAndLatency) {
  auto be = make_sim_backend(config_path("plain_lru"));
  ChaseRequest r;
  r.path = Path::global_ca;
  r.mode = Mode::fine;
  r.array_bytes = 65536;  // twice the L1
  r.chain = uniform_chain(r.array_bytes, 4);
  r.iters = 5000;
  r.max_records = 4096;
  ChaseResult res = be->run_chase(r);
  ASSERT_TRUE(res.error.empty()) << res.error;
  ASSERT_EQ(res.index.size(), 4096u);
  ASSERT_EQ(res.latency.size(), 4096u);
  for (std::size_t k = 0; k < res.index.size(); ++k) {
    EXPECT_EQ(res.index[k], r.chain[k]);
    // L1 sectors of 32 bytes: the first element of each sector misses to L2 (200 cycles).
    EXPECT_EQ(res.latency[k], k % 8 == 0 ? 200u : 30u) << k;
  }
  EXPECT_EQ(res.accesses, 5000u);
  EXPECT_NEAR(res.latency_cycles, (625 * 200.0 + 4375 * 30.0) / 5000, 1e-9);
  EXPECT_EQ(res.clock_overhead_cycles, 10);
  EXPECT_GT(res.seconds, 0);
  EXPECT_EQ(res.carveout, 0);
}

TEST(SimBackend, CountHistogramAndClassic) {
  auto be = make_sim_backend(config_path("plain_lru"));
  ChaseRequest r;
  r.path = Path::global_cg;
  r.mode = Mode::count;
  r.array_bytes = 4096;
  r.chain = uniform_chain(r.array_bytes, 128);
  r.iters = 100;
  r.hist_bin_width = 4;
  ChaseResult res = be->run_chase(r);
  ASSERT_TRUE(res.error.empty()) << res.error;
  ASSERT_EQ(res.hist.counts.size(), 1024u);
  EXPECT_EQ(res.hist.bin_width, 4u);
  EXPECT_EQ(res.hist.counts[200 / 4], 100u);  // every access an L2 hit
  EXPECT_EQ(res.hist.total(), 100u);
  EXPECT_EQ(res.latency_cycles, 200);

  r.mode = Mode::classic;
  res = be->run_chase(r);
  EXPECT_EQ(res.latency_cycles, 200);
  EXPECT_EQ(res.clock_overhead_cycles, 2.0 / 100);
  EXPECT_TRUE(res.hist.counts.empty());
  EXPECT_TRUE(res.latency.empty());
}

TEST(SimBackend, LastHistogramBinCollectsTheRest) {
  // plain_lru with a 5000-cycle DRAM: cold accesses land above 1023 bins of width 1.
  std::ifstream in(config_path("plain_lru"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "\"dram_latency_cycles\": 450";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "\"dram_latency_cycles\": 5000");
  const auto p = std::filesystem::temp_directory_path() / "memhier_sim_slow_dram.json";
  { std::ofstream(p) << text; }
  auto be = make_sim_backend(p.string());
  std::filesystem::remove(p);
  ChaseRequest r;
  r.path = Path::global_cg;
  r.mode = Mode::count;
  r.array_bytes = 4096;
  r.chain = uniform_chain(r.array_bytes, 128);
  r.iters = 64;
  r.warm = false;
  r.hist_bin_width = 1;
  ChaseResult res = be->run_chase(r);
  ASSERT_TRUE(res.error.empty()) << res.error;
  EXPECT_EQ(res.hist.counts[1023], 32u);   // first pass: DRAM (one page: TLB misses once)
  EXPECT_EQ(res.hist.counts[200], 32u);    // second pass: L2 hits
  EXPECT_NEAR(res.latency_cycles, (5000.0 * 32 + 80 + 220 + 200.0 * 32) / 64, 1e-9);
}

TEST(SimBackend, Errors) {
  auto be = make_sim_backend(config_path("tlb_000"));
  ChaseRequest r;
  r.path = Path::texture;
  r.chain = {0};
  r.array_bytes = 4;
  r.iters = 1;
  EXPECT_NE(be->run_chase(r).error.find("does not map the texture path"), std::string::npos);
  r.path = Path::global_cg;
  r.array_bytes = be->max_array_bytes(Path::global_cg) + 4;
  EXPECT_NE(be->run_chase(r).error.find("exceeds the global_cg limit"), std::string::npos);
  r.array_bytes = 4;
  r.chain = {1};
  EXPECT_NE(be->run_chase(r).error.find("outside the array"), std::string::npos);
  r.chain.clear();
  EXPECT_FALSE(be->run_chase(r).error.empty());
}

}  // namespace
}  // namespace memhier
