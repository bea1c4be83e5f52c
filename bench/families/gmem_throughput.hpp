// Host helpers shared by the throughput, bank-conflict and warp-access families (issue 4):
// the device figures they derive sweeps from, the L2 flush, clock-rate estimates from in-kernel
// stamps, and registration of one manual-time benchmark that turns exceptions into
// SkipWithError. CUDA host code: include from .cu files only.
#pragma once
#include <benchmark/benchmark.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "bench/core/guard.hpp"
#include "common/bench_name.hpp"
#include "kernels/throughput.cuh"
#include "runtime/buffers.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_info.hpp"

namespace memhier::tput {

struct Device {
  DeviceDescription d;
  int max_threads_per_sm = 2048;
  int max_blocks_per_sm = 32;
  double theoretical_dram = 0;  // bytes per second
  // Shared-memory banks x bank width per clock: 32 banks of 4 bytes for compute capability >= 5.0
  // (CUDA C++ Programming Guide, "Shared Memory" of each compute capability). The bank-conflict
  // family measures both; the analyzer recomputes percentages with the measured figures.
  double smem_bytes_per_clock_per_sm() const { return d.cc_major >= 5 ? 128.0 : 0.0; }
};

inline const Device& device() {
  static const Device dev = [] {
    Device x;
    int idx = 0;
    MEMHIER_CUDA(cudaGetDevice(&idx));
    x.d = describe_device(idx);
    MEMHIER_CUDA(cudaDeviceGetAttribute(&x.max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, idx));
    MEMHIER_CUDA(cudaDeviceGetAttribute(&x.max_blocks_per_sm, cudaDevAttrMaxBlocksPerMultiprocessor, idx));
    x.theoretical_dram = x.d.theoretical_dram_bytes_per_second();
    return x;
  }();
  return dev;
}

// Writes 2 x L2 bytes (at least 64 MiB) so that no line of the measured data stays in the L2.
// Writing (not reading) also leaves the L2 full of dirty lines before a sample, as a write sample
// leaves it after: the write-back of one balances the other.
// flush_clean() reads a second buffer of the same size instead: the dirty lines are written back
// before the timed region and the L2 is left full of clean lines, as a long read-only stream leaves
// it (a read sample that starts from dirty lines pays for a write-back it did not cause).
class L2Flusher {
 public:
  L2Flusher() : buf_(std::max<std::uint64_t>(2 * device().d.l2_bytes, 64ull << 20) / 4) {}
  void flush(cudaStream_t s = nullptr) {
    kern::fill_words<std::uint32_t><<<device().d.sm_count * 4, 512, 0, s>>>(buf_.get(), buf_.size(), ++value_);
    MEMHIER_LAUNCH_CHECK();
  }
  void flush_clean(cudaStream_t s = nullptr) {
    if (!clean_.get()) {
      clean_ = DeviceBuffer<uint4>(buf_.size() / 4);
      sink_ = DeviceBuffer<std::uint32_t>(1);
      kern::fill_words<std::uint32_t><<<device().d.sm_count * 4, 512, 0, s>>>(
          reinterpret_cast<std::uint32_t*>(clean_.get()), clean_.size() * 4, 0x3C3C3C3Cu);
      MEMHIER_LAUNCH_CHECK();
    }
    kern::read_words<uint4><<<device().d.sm_count * 4, 512, 0, s>>>(clean_.get(), clean_.size(), sink_.get());
    MEMHIER_LAUNCH_CHECK();
  }

 private:
  DeviceBuffer<std::uint32_t> buf_;
  DeviceBuffer<uint4> clean_;
  DeviceBuffer<std::uint32_t> sink_;
  std::uint32_t value_ = 0;
};

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

// SM clock in Hz over the timed region: clock cycles over global-timer nanoseconds, summed over
// the CTAs (each CTA's clock is its own SM's). 0 when the stamps say nothing.
inline double clock_hz_from_stamps(const std::vector<kern::CtaStamp>& st) {
  double cyc = 0, ns = 0;
  for (const auto& s : st) {
    if (s.clk1 <= s.clk0 || s.ns1 <= s.ns0) continue;
    cyc += static_cast<double>(s.clk1 - s.clk0);
    ns += static_cast<double>(s.ns1 - s.ns0);
  }
  return ns > 0 ? cyc / ns * 1e9 : 0;
}

// Registers one benchmark with manual time and `iters` iterations; `body` runs the whole timed
// loop. Any exception (a CUDA error, a configuration the device refuses) becomes SkipWithError
// (bench/core/guard.hpp: with the device's state checked afterwards and the time budget applied).
inline void register_manual(const std::string& name, int iters, std::function<void(benchmark::State&)> body) {
  register_guarded(name, std::move(body))->UseManualTime()->Iterations(iters);
}

// The vector type of a width in bytes.
template <int W>
struct VecOf;
template <>
struct VecOf<4> {
  using type = std::uint32_t;
};
template <>
struct VecOf<8> {
  using type = uint2;
};
template <>
struct VecOf<16> {
  using type = uint4;
};

// Template dispatch over ILP in {1,2,4,8}.
template <template <int> class F, typename... A>
auto with_ilp(int ilp, A&&... a) {
  switch (ilp) {
    case 1: return F<1>::run(std::forward<A>(a)...);
    case 2: return F<2>::run(std::forward<A>(a)...);
    case 4: return F<4>::run(std::forward<A>(a)...);
    case 8: return F<8>::run(std::forward<A>(a)...);
  }
  throw std::invalid_argument("ilp must be 1, 2, 4 or 8");
}

}  // namespace memhier::tput
