// P-chase chains. A chain is the cyclic visiting order of 4-byte elements (element indices into the
// array); the array initialised from it holds, at each visited element, the index of the next one
// (000 Listing 1 for the uniform case, 000 Fig. 13 for non-uniform strides). Every element of a chain
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

// Non-uniform-stride chain for the latency spectrum (000 §5.2, Fig. 13). Each access carries the
// pattern it is built to expose; the measured latencies per pattern are the spectrum.
enum class SpectrumPattern : std::uint8_t {
  cold_far = 0,     // first touch of a far page: TLB miss at every level, cache miss (DRAM)
  cold_near = 1,    // first touch of a line in a page just used: TLB hit, cache miss (DRAM)
  near_hit = 2,     // same sector as a cold_near access: cache hit, TLB hit
  far_revisit = 3,  // same sector as a cold_far access, many pages later: cache hit, TLB miss
  same_line = 4,    // the next element of the line just loaded: L1 hit (L2 hit when L1 is bypassed)
};
const char* spectrum_pattern_name(SpectrumPattern p);
constexpr int kSpectrumPatterns = 5;

struct SpectrumParams {
  std::uint64_t footprint_bytes;  // array size; far pages are spread over it
  std::uint64_t far_stride_bytes; // s1: distance between far pages (≥ page size)
  std::uint64_t near_stride_bytes;// s2: distance between lines inside one page
  std::uint32_t near_count;       // lines touched inside the last far page
  std::uint32_t same_line_count;  // elements read inside the last line
};

struct SpectrumChain {
  std::vector<std::uint32_t> chain;
  std::vector<SpectrumPattern> pattern;  // pattern[k] is what access k (chain[k]) exposes
};

SpectrumChain spectrum_chain(const SpectrumParams& p);

}  // namespace memhier
