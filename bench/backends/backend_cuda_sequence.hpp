// Access sequences on a CUDA device (kernels/sequence.cuh), for the CUDA backend. Kept in its own
// translation unit: the kernel's run list takes the constant bank that the P-chase's c_chase takes
// in backend_cuda.cu. Plain C++ header: the CUDA state hides behind a pointer.
#pragma once
#include <cstdint>
#include <memory>

#include "bench/backends/backend.hpp"
#include "bench/backends/cuda_runner_device.hpp"

namespace memhier {
namespace kern {
struct SeqLaunch;
}

class CudaSequenceRunner {
 public:
  using Device = CudaRunnerDevice;
  explicit CudaSequenceRunner(Device d);
  ~CudaSequenceRunner();
  CudaSequenceRunner(const CudaSequenceRunner&) = delete;
  CudaSequenceRunner& operator=(const CudaSequenceRunner&) = delete;

  // overhead_cycles: subtracted from every timed sample (the fine chase's clock overhead).
  SequenceResult run(const SequenceRequest& r, std::uint32_t overhead_cycles);
  static std::size_t max_runs_per_launch();
  // Accesses one launch may make (a bound on its duration: ~2^26 L2-latency accesses ≈ 10 s).
  static std::uint64_t max_accesses_per_launch();

 private:
  struct State;
  int launch(void (*fn)(kern::SeqLaunch), kern::SeqLaunch L, std::uint64_t dyn, int* claim, int* smid,
             double* seconds);
  std::unique_ptr<State> st_;
};

}  // namespace memhier
