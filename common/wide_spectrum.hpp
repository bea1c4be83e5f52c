// The latency spectrum over the whole memory (000 §5.2, Fig. 13/14; docs/methodology.md,
// latency_spectrum): one cold non-uniform chase whose accesses are built to expose the patterns
// P1-P6 of 000 Table 3 (001): far pages spread over the memory touched first, new lines of the page
// just used, those lines again, revisits of the last g far pages for growing g (cache hits behind
// more and more translations), new lines of every far page after all that, the rest of one line.
// The positions are logical byte offsets of a whole-memory chain (common/wide_chain.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace memhier {

enum class WidePattern : std::uint8_t {
  first_far = 0,     // first touch of a far page in this chase: TLB miss at every level, DRAM
  cold_near = 1,     // new line of the page just used: TLB hit, DRAM
  near_hit = 2,      // same sector as a cold_near access: cache hit, TLB hit (P1)
  far_new_line = 3,  // new line of a far page touched long ago: TLB miss, DRAM, page visited before (P5)
  same_line = 4,     // next element of the line just loaded
  setup = 5,         // first cycle of a revisit group (puts the group's translations in order)
  revisit = 6,       // labels 6, 7, ...: revisit group i (last g_i far pages, cache hits), second cycle
};

struct WideSpectrumParams {
  std::uint64_t footprint_bytes = 0;        // far pages lie in [0, footprint)
  std::uint64_t min_far_stride = 64ull << 20;
  std::uint32_t max_far_pages = 512;
  std::uint64_t near_stride_bytes = 16ull << 10;
  std::uint32_t near_count = 32;
  std::uint32_t same_line_count = 6;
};

struct WideSpectrum {
  std::uint64_t far_stride = 0;
  std::uint32_t far_pages = 0;
  std::vector<std::uint32_t> groups;        // g_i: far pages per revisit group
  std::vector<std::uint64_t> positions;     // logical byte offsets, in visiting order
  std::vector<std::uint8_t> label;          // WidePattern, or revisit + i
};

WideSpectrum wide_spectrum(const WideSpectrumParams& p);
// "first_far", ..., "revisit_<g>" for label revisit + i.
std::string wide_pattern_name(const WideSpectrum& s, std::uint8_t label);

}  // namespace memhier
