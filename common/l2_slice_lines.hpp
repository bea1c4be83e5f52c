// The test lines of the l2_slices family (docs/methodology.md, "l2_slices"): in each of `pages`
// 2 MiB pages, `bases` seeded random line offsets and, for each, its 14 single-bit neighbours
// (offset ^ 2^k, k = 7 ... 20), so that every address bit inside a page is flipped from many
// starting lines. Offsets are bytes from the first page; duplicates are dropped. The analyzer does
// not use this list: it reads the offsets from the trace and finds the single-bit pairs itself.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace memhier {

constexpr std::uint64_t kSlicePageBytes = 2ull << 20;
constexpr int kSliceLowBit = 7, kSliceHighBit = 20;  // the line (128 B) up to the page

inline std::vector<std::uint64_t> slice_test_offsets(int pages, int bases, std::uint64_t seed = 29) {
  std::vector<std::uint64_t> out;
  auto next = [&seed] {  // splitmix64
    std::uint64_t z = (seed += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (int p = 0; p < pages; ++p)
    for (int b = 0; b < bases; ++b) {
      const std::uint64_t base = (next() % (kSlicePageBytes >> kSliceLowBit)) << kSliceLowBit;
      std::vector<std::uint64_t> group = {base};
      for (int k = kSliceLowBit; k <= kSliceHighBit; ++k) group.push_back(base ^ (1ull << k));
      for (auto o : group) {
        const std::uint64_t x = p * kSlicePageBytes + o;
        if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
      }
    }
  return out;
}

}  // namespace memhier
