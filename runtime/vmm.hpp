// CUDA virtual memory management (driver API) for the whole-memory chases of the tlb family:
// memory mapped chunk by chunk at the minimum granularity, so that the largest page the driver can
// use is known (a chunk), and neighbouring chunks are separate physical allocations, optionally
// with an unmapped hole between them. Every CU call is checked (runtime/cu_check.hpp).
#pragma once
#include <cstdint>
#include <string>

namespace memhier {

// Minimum VMM granularity of CUDA device `device` in bytes; 0 (and the reason in *why) when the
// device or driver does not offer VMM.
std::uint64_t vmm_granularity(int device, std::string* why);

// `bytes` of device memory (rounded up to whole chunks) in chunks of `chunk` bytes, chunk c mapped
// at base() + c * (chunk + gap), read-write for the device. Move-only; the destructor unmaps and
// frees the range. The constructor throws std::runtime_error naming the failing call and undoes
// what it had done.
class VmmMapping {
 public:
  VmmMapping(int device, std::uint64_t bytes, std::uint64_t chunk, std::uint64_t gap);
  ~VmmMapping();
  VmmMapping(const VmmMapping&) = delete;
  VmmMapping& operator=(const VmmMapping&) = delete;

  void* base() const { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(base_)); }
  std::uint64_t chunks() const { return mapped_; }
  std::uint64_t extent() const { return extent_; }

 private:
  void release() noexcept;
  unsigned long long base_ = 0;
  std::uint64_t chunk_ = 0, gap_ = 0, extent_ = 0, mapped_ = 0;
};

}  // namespace memhier
