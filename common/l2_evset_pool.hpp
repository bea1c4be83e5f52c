// The candidate pool of the l2_evsets family (docs/methodology.md, "l2_evsets"): the lines of a
// buffer of `lines` 128-byte lines, visited in a fixed permuted order (position p holds line
// (p * a + b) mod lines, a coprime to lines), so that any range of positions is a spread-out random
// subset of the buffer and a candidate set is a short list of position ranges: the kernels compute
// each line from its position and read no index array (an index array would itself occupy the L2
// whose sets are being counted). Shared by the CUDA kernel, the simulated device and the plan.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define MEMHIER_EVSET_HD __host__ __device__
#else
#define MEMHIER_EVSET_HD
#endif

namespace memhier {

constexpr std::uint64_t kEvsetLineBytes = 128;

struct EvsetPool {
  std::uint64_t lines = 0, a = 1, b = 0;
  MEMHIER_EVSET_HD std::uint64_t line(std::uint64_t position) const { return (position * a + b) % lines; }
};

inline std::uint64_t evset_gcd(std::uint64_t x, std::uint64_t y) {
  while (y) {
    const std::uint64_t t = x % y;
    x = y;
    y = t;
  }
  return x;
}

// The pool over `lines` lines: a = the first number coprime to `lines` from 2^32 x the golden
// ratio's fraction (mod lines) up, b = a seeded offset.
inline EvsetPool make_evset_pool(std::uint64_t lines, std::uint64_t seed = 12345) {
  EvsetPool p;
  p.lines = lines ? lines : 1;
  if (p.lines < 3) return p;  // a = 1, b = 0: the identity
  std::uint64_t a = 2654435761ull % p.lines;
  if (a < 2) a = 2;
  while (evset_gcd(a, p.lines) != 1) a = a + 1 < p.lines ? a + 1 : 2;
  p.a = a;
  p.b = seed % p.lines;
  return p;
}

}  // namespace memhier
