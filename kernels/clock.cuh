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

// The dependent store of 000 Listing 3 as inline PTX: a plain C++ store to one shared word inside
// the loop may be sunk out of it by the compiler (only the last value is observable), and then the
// clock read no longer waits for the load.
__device__ __forceinline__ void store_shared(std::uint32_t* p, std::uint32_t v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(static_cast<std::uint32_t>(__cvta_generic_to_shared(p))), "r"(v)
               : "memory");
}

// One timed load at `at` through `load` (a callable taking the address): the address is pinned in a
// register by an empty volatile asm before the first clock read, so no address arithmetic falls
// inside the window, and the loaded value is stored to `sink` in shared memory, so the second clock
// read waits for the load. The value goes to `value`; returns the cycles less `overhead` (0 below it).
template <class Load>
__device__ __forceinline__ std::uint32_t timed_load(std::uint64_t at, Load load, std::uint32_t* sink,
                                                    std::uint32_t overhead, std::uint32_t& value) {
  asm volatile("" : "+l"(at));
  const std::uint64_t t0 = read_clock();
  const std::uint32_t v = load(at);
  store_shared(sink, v);  // dependent store: the clock read below waits for the load
  const std::uint64_t t1 = read_clock();
  value = v;
  const std::uint32_t raw = static_cast<std::uint32_t>(t1 - t0);
  return raw > overhead ? raw - overhead : 0u;
}

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// Per-CTA record of a kernel timed per SM (smem_copy, dsmem_stream): the SM clock at its start
// and end barriers, and the SM. The host takes each SM's span from its first start to its last end
// (bench/core/sm_span.hpp).
struct SmemStamp {
  std::uint64_t clk0, clk1;
  std::uint32_t smid;
  std::uint32_t pad;
};

// Thread 0's record of its CTA, after the end barrier: started at `c0`, ending now.
__device__ __forceinline__ void write_stamp(SmemStamp* stamps, std::uint64_t c0) {
  SmemStamp s;
  s.clk1 = read_clock();
  s.clk0 = c0;
  s.smid = smid();
  s.pad = 0;
  stamps[blockIdx.x] = s;
}

}  // namespace memhier::kern
