// Faults on the device (ctest label gpu; each test skips without a GPU): out of memory, a launch
// the device refuses, and a sticky error mid-run each fail one benchmark with the reason; after
// the first two the device is still usable and later benchmarks run, after a sticky one they are
// marked "not run" (bench/core/guard.hpp). The watchdog stops a runaway chase; every chase reports the
// SM clock of its sample. FaultsGpu.StickyError* makes an illegal access on purpose: keep it out of
// compute-sanitizer runs (dev/device/part_sanitize.sh filters on "Sticky").
#include <gtest/gtest.h>

#include <cstdlib>

#include "bench/backends/backend_cuda.hpp"
#include "bench/core/guard.hpp"
#include "runtime/buffers.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_info.hpp"
#include "tests/bench/run_recorder.hpp"
#include "tests/gpu/gpu_test_util.hpp"

using namespace memhier;

namespace {

void install_cuda_backend() {
  if (!has_backend()) set_backend(make_cuda_backend(0));
  reset_fault_log();
  set_benchmark_budget_seconds(60);
}

ChaseRequest chase(std::uint64_t bytes, std::uint64_t stride, std::uint64_t iters) {
  ChaseRequest r;
  r.path = Path::global_cg;
  r.mode = Mode::count;
  r.array_bytes = bytes;
  r.chain = uniform_chain(bytes, stride);
  r.iters = iters;
  return r;
}

// A body that runs a small chase and reports failure the way the families do.
void small_chase(benchmark::State& st) {
  for (auto _ : st) {
    ChaseResult res = backend().run_chase(chase(1 << 16, 128, 256));
    if (!res.error.empty()) {
      st.SkipWithError(res.error.c_str());
      break;
    }
    st.SetIterationTime(res.seconds);
  }
}

__global__ void big_block_kernel(int* out) { out[threadIdx.x] = 1; }
__global__ void illegal_store_kernel(int* p) { p[threadIdx.x] = 1; }

}  // namespace

TEST(FaultsGpu, OutOfMemoryFailsOneBenchmarkAndTheDeviceStaysUsable) {
  REQUIRE_GPU();
  install_cuda_backend();
  std::size_t free_b = 0, total = 0;
  MEMHIER_CUDA(cudaMemGetInfo(&free_b, &total));
  std::uint64_t want = 0;
  register_guarded("faultgpu_oom/a_chase_without_memory", [&want](benchmark::State& st) {
    // take all but 256 MiB of what is free, then ask for a 1 GiB chase: the pool allocation fails
    std::size_t f = 0, t = 0;
    MEMHIER_CUDA(cudaMemGetInfo(&f, &t));
    DeviceBuffer<std::uint8_t> hog(f > (512ull << 20) ? f - (256ull << 20) : f / 2);
    want = 1ull << 30;
    for (auto _ : st) {
      ChaseResult res = backend().run_chase(chase(want, 1 << 20, 256));
      if (!res.error.empty()) throw std::runtime_error(res.error);
    }
  })->UseManualTime()->Iterations(1);
  register_guarded("faultgpu_oom/b_later", small_chase)->UseManualTime()->Iterations(1);
  auto seen = test::run_benchmarks("faultgpu_oom");
  const auto& a = seen["faultgpu_oom/a_chase_without_memory/iterations:1/manual_time"];
  EXPECT_TRUE(a.failed);
  EXPECT_NE(a.message.find("cudaErrorMemoryAllocation"), std::string::npos) << a.message;
  EXPECT_EQ(a.message.find("unusable"), std::string::npos) << a.message;
  const auto& b = seen["faultgpu_oom/b_later/iterations:1/manual_time"];
  EXPECT_FALSE(b.failed) << b.message;
  EXPECT_EQ(fault_log().device_fault, "");
}

TEST(FaultsGpu, ARefusedLaunchFailsOneBenchmarkAndTheDeviceStaysUsable) {
  REQUIRE_GPU();
  install_cuda_backend();
  register_guarded("faultgpu_launch/a_4096_threads", [](benchmark::State& st) {
    DeviceBuffer<int> out(4096);
    for (auto _ : st) {
      big_block_kernel<<<1, 4096>>>(out.get());  // more threads than a block may have
      MEMHIER_LAUNCH_CHECK();
    }
  })->UseManualTime()->Iterations(1);
  register_guarded("faultgpu_launch/b_carveout_150", [](benchmark::State& st) {
    for (auto _ : st) {
      ChaseRequest r = chase(1 << 16, 128, 256);
      r.path = Path::global_ca;
      r.carveout = 150;  // cudaFuncSetAttribute refuses it
      ChaseResult res = backend().run_chase(r);
      if (!res.error.empty()) throw std::runtime_error(res.error);
    }
  })->UseManualTime()->Iterations(1);
  register_guarded("faultgpu_launch/c_later", small_chase)->UseManualTime()->Iterations(1);
  auto seen = test::run_benchmarks("faultgpu_launch");
  const auto& a = seen["faultgpu_launch/a_4096_threads/iterations:1/manual_time"];
  EXPECT_TRUE(a.failed);
  // the launch is refused with the runtime's word for it: cudaErrorInvalidConfiguration before CUDA
  // 13, cudaErrorInvalidValue from the 13.0 runtime with driver 580 (the H100's run of 2026-11-23)
  EXPECT_TRUE(a.message.find("cudaErrorInvalidConfiguration") != std::string::npos ||
              a.message.find("cudaErrorInvalidValue") != std::string::npos)
      << a.message;
  const auto& b = seen["faultgpu_launch/b_carveout_150/iterations:1/manual_time"];
  EXPECT_TRUE(b.failed);
  EXPECT_NE(b.message.find("cudaFuncSetAttribute"), std::string::npos) << b.message;
  EXPECT_FALSE(seen["faultgpu_launch/c_later/iterations:1/manual_time"].failed);
  EXPECT_EQ(fault_log().device_fault, "");
}

// In a process of its own (a death test re-runs the binary), since the context is lost for good.
TEST(FaultsGpu, StickyErrorMidRunStopsLaterBenchmarksWithTheReason) {
  REQUIRE_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        install_cuda_backend();
        register_guarded("faultgpu_sticky/a_illegal_address", [](benchmark::State& st) {
          for (auto _ : st) {
            illegal_store_kernel<<<1, 32>>>(reinterpret_cast<int*>(0x10));
            MEMHIER_LAUNCH_CHECK();
            MEMHIER_CUDA(cudaDeviceSynchronize());
          }
        })->UseManualTime()->Iterations(1);
        register_guarded("faultgpu_sticky/b_later", small_chase)->UseManualTime()->Iterations(1);
        auto seen = test::run_benchmarks("faultgpu_sticky");
        const auto& a = seen["faultgpu_sticky/a_illegal_address/iterations:1/manual_time"];
        const auto& b = seen["faultgpu_sticky/b_later/iterations:1/manual_time"];
        const bool ok = a.failed && a.message.find("cudaErrorIllegalAddress") != std::string::npos &&
                        a.message.find("unusable") != std::string::npos && b.failed &&
                        b.message.find("not run: the device has been unusable since faultgpu_sticky/a_illegal_address") !=
                            std::string::npos &&
                        fault_log().not_run == 1;
        std::fprintf(stderr, "a: %s\nb: %s\n", a.message.c_str(), b.message.c_str());
        std::exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(FaultsGpu, TheWatchdogStopsARunawayChase) {
  REQUIRE_GPU();
  install_cuda_backend();
  // 2^20 dependent L2/DRAM accesses (>= 0.1 s) against a budget of 1 ms
  set_benchmark_budget_seconds(1e-3);
  ChaseResult res = backend().run_chase(chase(64ull << 20, 128, 1 << 20));
  set_benchmark_budget_seconds(60);
  EXPECT_EQ(res.error.rfind("watchdog: stopped after ", 0), 0u) << res.error;
  ChaseResult again = backend().run_chase(chase(1 << 16, 128, 256));
  EXPECT_EQ(again.error, "");
}

TEST(FaultsGpu, EveryChaseReportsTheClockOfItsSample) {
  REQUIRE_GPU();
  install_cuda_backend();
  ChaseResult res = backend().run_chase(chase(8ull << 20, 128, 1 << 14));  // ~5 ms
  ASSERT_EQ(res.error, "");
  const double nominal = backend().figures().sm_clock_khz / 1e3;
  EXPECT_GT(res.sm_clock_mhz, 0.3 * nominal);
  EXPECT_LT(res.sm_clock_mhz, 1.2 * nominal);
  EXPECT_EQ(res.clock_throttled, res.sm_clock_mhz < 0.9 * nominal);
}
