#include "common/chase.hpp"

#include <stdexcept>

namespace memhier {

std::vector<std::uint32_t> uniform_chain(std::uint64_t bytes, std::uint64_t stride_bytes) {
  if (stride_bytes == 0 || stride_bytes % kChaseElementBytes != 0)
    throw std::invalid_argument("stride must be a positive multiple of 4 bytes");
  if (bytes < kChaseElementBytes) throw std::invalid_argument("array must hold one element");
  std::uint64_t stride = stride_bytes / kChaseElementBytes;
  std::uint64_t elements = bytes / kChaseElementBytes;
  std::uint64_t n = (elements + stride - 1) / stride;
  if (elements > 0xFFFFFFFFull) throw std::invalid_argument("array larger than 16 GiB");
  std::vector<std::uint32_t> chain(n);
  for (std::uint64_t k = 0; k < n; ++k) chain[k] = static_cast<std::uint32_t>(k * stride);
  return chain;
}

std::string check_chain(const std::vector<std::uint32_t>& chain, std::uint64_t array_elements) {
  if (chain.empty()) return "empty chain";
  std::vector<bool> seen(array_elements, false);
  for (std::size_t k = 0; k < chain.size(); ++k) {
    if (chain[k] >= array_elements)
      return "element " + std::to_string(chain[k]) + " outside array of " +
             std::to_string(array_elements);
    if (seen[chain[k]]) return "element " + std::to_string(chain[k]) + " visited twice";
    seen[chain[k]] = true;
  }
  return {};
}

std::vector<std::uint32_t> chain_to_array(const std::vector<std::uint32_t>& chain,
                                          std::uint64_t array_elements) {
  std::string why = check_chain(chain, array_elements);
  if (!why.empty()) throw std::invalid_argument(why);
  std::vector<std::uint32_t> a(array_elements, 0xFFFFFFFFu);
  for (std::size_t k = 0; k < chain.size(); ++k) a[chain[k]] = chain[(k + 1) % chain.size()];
  return a;
}

const char* spectrum_pattern_name(SpectrumPattern p) {
  switch (p) {
    case SpectrumPattern::cold_far: return "cold_far";
    case SpectrumPattern::cold_near: return "cold_near";
    case SpectrumPattern::near_hit: return "near_hit";
    case SpectrumPattern::far_revisit: return "far_revisit";
    case SpectrumPattern::same_line: return "same_line";
  }
  return "unknown";
}

SpectrumChain spectrum_chain(const SpectrumParams& p) {
  const std::uint64_t e = kChaseElementBytes;
  if (p.far_stride_bytes == 0 || p.near_stride_bytes == 0 || p.far_stride_bytes % e ||
      p.near_stride_bytes % e)
    throw std::invalid_argument("spectrum strides must be positive multiples of 4 bytes");
  if (p.footprint_bytes / e > 0xFFFFFFFFull) throw std::invalid_argument("array larger than 16 GiB");
  std::uint64_t far_pages = p.footprint_bytes / p.far_stride_bytes;
  if (far_pages < 2) throw std::invalid_argument("footprint must hold two far strides");
  if ((p.near_count + 1) * p.near_stride_bytes > p.far_stride_bytes)
    throw std::invalid_argument("near accesses must fit inside one far stride");
  if ((p.same_line_count + 2) * e > p.near_stride_bytes)
    throw std::invalid_argument("same-line accesses must fit inside one near stride");
  SpectrumChain out;
  auto push = [&](std::uint64_t byte, SpectrumPattern pat) {
    out.chain.push_back(static_cast<std::uint32_t>(byte / e));
    out.pattern.push_back(pat);
  };
  // 1. cold far pages, 2. cold lines of the last page, 3. those lines again (same sector, next
  // element), 4. the far pages again (next element), 5. the elements of the last line.
  for (std::uint64_t k = 0; k < far_pages; ++k) push(k * p.far_stride_bytes, SpectrumPattern::cold_far);
  const std::uint64_t last = (far_pages - 1) * p.far_stride_bytes;
  for (std::uint32_t j = 1; j <= p.near_count; ++j)
    push(last + j * p.near_stride_bytes, SpectrumPattern::cold_near);
  for (std::uint32_t j = 1; j <= p.near_count; ++j)
    push(last + j * p.near_stride_bytes + e, SpectrumPattern::near_hit);
  for (std::uint64_t k = 0; k + 1 < far_pages; ++k)
    push(k * p.far_stride_bytes + e, SpectrumPattern::far_revisit);
  const std::uint64_t line = last + (p.near_count > 0 ? p.near_count * p.near_stride_bytes : 0);
  for (std::uint32_t j = 0; j < p.same_line_count; ++j)
    push(line + (2 + j) * e, SpectrumPattern::same_line);
  return out;
}

}  // namespace memhier
