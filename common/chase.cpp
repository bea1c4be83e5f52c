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

}  // namespace memhier
