// P-chase chains. A chain is the cyclic visiting order of 4-byte elements (element indices into the
// array); the array initialised from it holds, at each visited element, the index of the next one
// (000 Listing 1; the non-uniform chains of the latency spectrum are common/wide_spectrum.hpp). Every element of a chain
// is visited exactly once per cycle.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace memhier {

constexpr std::uint64_t kChaseElementBytes = 4;

// Uniform stride: elements 0, s, 2s, ... below `bytes` (stride and bytes in bytes, stride a multiple
// of 4). At least one element.
std::vector<std::uint32_t> uniform_chain(std::uint64_t bytes, std::uint64_t stride_bytes);

// The next-index array of `array_elements` elements that a chain defines: a[c[k]] = c[(k+1) % n].
// Elements not on the chain hold 0xFFFFFFFF. Throws std::invalid_argument if an index is out of
// range or repeated.
std::vector<std::uint32_t> chain_to_array(const std::vector<std::uint32_t>& chain,
                                          std::uint64_t array_elements);

// Checks that every element is in range and appears once; returns an empty string or the reason.
std::string check_chain(const std::vector<std::uint32_t>& chain, std::uint64_t array_elements);

}  // namespace memhier
