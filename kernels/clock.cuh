// Clock reads for in-kernel timing. The "memory" clobber keeps the compiler from moving memory
// operations across a clock read; the hardware may still issue the read before an outstanding
// load completes, which is why every timed load is followed by a dependent store (000 §4.2).
#pragma once
#include <cstdint>

namespace memhier::kern {

__device__ __forceinline__ std::uint64_t read_clock() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ std::uint64_t read_globaltimer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

}  // namespace memhier::kern
