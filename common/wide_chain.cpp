#include "common/wide_chain.hpp"

#include <algorithm>

namespace memhier {

namespace {
std::uint64_t pow2_floor(std::uint64_t x) {
  std::uint64_t p = 1;
  while (p <= x / 2) p <<= 1;
  return x ? p : 0;
}
bool pow2(std::uint64_t x) { return x && !(x & (x - 1)); }
}  // namespace

WideChain make_wide_chain(std::uint64_t bytes, std::uint64_t stride, std::uint64_t lines, std::uint64_t span_bytes,
                          std::uint64_t seed) {
  WideChain c;
  c.stride = stride;
  c.slots = stride ? std::max<std::uint64_t>(1, bytes / stride) : 0;
  c.span = std::max(kWideLineBytes, pow2_floor(std::min(span_bytes, stride)));
  const std::uint64_t q = c.span / kWideLineBytes;
  c.passes = std::clamp<std::uint64_t>(c.slots ? lines / c.slots : 1, 1, q);
  c.seed = seed;
  return c;
}

std::string check_wide_chain(const WideChain& c) {
  if (c.stride < kWideLineBytes || c.stride % kWideLineBytes)
    return "stride must be a multiple of " + std::to_string(kWideLineBytes) + " bytes";
  if (c.slots == 0) return "a chain needs at least one slot";
  if (!pow2(c.span) || c.span < kWideLineBytes || c.span > c.stride)
    return "span must be a power of two between 128 bytes and the stride";
  if (c.passes == 0 || c.passes > wide_lines_per_slot(c))
    return "passes must be 1.." + std::to_string(wide_lines_per_slot(c)) + " (lines per slot)";
  if (c.slots > (1ull << 40) / c.passes) return "chain too long";
  if (c.gap && (!c.chunk || c.chunk % kWideLineBytes || c.gap % kWideLineBytes))
    return "an address map with gaps needs chunk and gap multiples of 128 bytes";
  return {};
}

}  // namespace memhier
