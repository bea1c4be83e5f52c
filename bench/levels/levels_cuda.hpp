// The CUDA side of the level families (bench/levels/levels.hpp): what the device offers, the link
// context keys, and one function per family that runs one LevelRequest on the current device.
// Every function returns LevelResult::error (never throws) for a configuration it refuses; a CUDA
// error may throw memhier::CudaError, which the guard turns into a failed benchmark.
#pragma once
#include <map>
#include <string>

#include "bench/levels/levels.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_info.hpp"

namespace memhier::levels {

// A non-blocking stream of the current device, destroyed with its scope (copies and co-runners).
class Stream {
 public:
  Stream() { MEMHIER_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { MEMHIER_CUDA_NOEXCEPT(cudaStreamDestroy(s_)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  void sync() const { MEMHIER_CUDA(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_{};
};

// dsmem and async_copy (bench/levels/dsmem_cuda.cu, async_copy_cuda.cu)
void offer_sm(const DeviceDescription& d, LevelOffer* o);
LevelResult run_dsmem(const DeviceDescription& d, const LevelRequest& r);
LevelResult run_async_copy(const DeviceDescription& d, const LevelRequest& r);

// host and peer (bench/levels/host_cuda.cu, peer_cuda.cu)
void offer_links(const DeviceDescription& d, LevelOffer* o);
LevelResult run_host(const DeviceDescription& d, const LevelRequest& r);
LevelResult run_peer(const DeviceDescription& d, const LevelRequest& r);
// l2_slices (bench/levels/l2_slices_cuda.cu): per SM and test line, R dependent L2 hits (a trace)
LevelResult run_l2_slices(const DeviceDescription& d, const LevelRequest& r);

// Context keys of the links (docs/formats.md): host_link, host_link_bytes_per_second (the
// theoretical figure per direction), peer_devices, peer_link, peer_link_bytes_per_second, ...
std::map<std::string, std::string> link_context(const DeviceDescription& d);

// l2_persist (bench/levels/l2_persist_cuda.cu): persistingL2CacheMaxSize and accessPolicyMaxWindowSize
// into the offer and the context (l2_persisting_max_bytes, access_policy_max_window_bytes).
void offer_persist(const DeviceDescription& d, LevelOffer* o);
std::map<std::string, std::string> persist_context(const DeviceDescription& d);
LevelResult run_l2_persist(const DeviceDescription& d, const LevelRequest& r);

// l2_evsets (bench/levels/l2_evsets_cuda.cu): whole-L2 eviction sets by group testing with the
// discard-and-read readout (bench/plans/l2_evsets_plan.hpp); a trace per target.
LevelResult run_l2_evsets(const DeviceDescription& d, const LevelRequest& r);

}  // namespace memhier::levels
