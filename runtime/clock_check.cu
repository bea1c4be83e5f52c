#include "kernels/clock.cuh"
#include "runtime/buffers.hpp"
#include "runtime/clock_check.hpp"

namespace memhier {
namespace {
__global__ void clock_rate_kernel(unsigned long long* out, unsigned long long spin_ns) {
  if (threadIdx.x != 0) return;
  const unsigned long long g0 = kern::read_globaltimer_ns();
  const unsigned long long c0 = kern::read_clock();
  unsigned long long g1 = g0;
  while (g1 - g0 < spin_ns) g1 = kern::read_globaltimer_ns();
  const unsigned long long c1 = kern::read_clock();
  out[0] = c1 - c0;
  out[1] = g1 - g0;
}
}  // namespace

double measure_sm_clock_mhz(double spin_ms) {
  DeviceBuffer<unsigned long long> out(2);
  clock_rate_kernel<<<1, 32>>>(out.get(), static_cast<unsigned long long>(spin_ms * 1e6));
  MEMHIER_LAUNCH_CHECK();
  MEMHIER_CUDA(cudaDeviceSynchronize());
  auto v = out.download();
  return v[1] ? static_cast<double>(v[0]) / static_cast<double>(v[1]) * 1e3 : 0.0;
}

}  // namespace memhier
