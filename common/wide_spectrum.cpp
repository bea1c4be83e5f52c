#include "common/wide_spectrum.hpp"

#include <algorithm>
#include <stdexcept>

namespace memhier {

namespace {
constexpr std::uint64_t kLine = 128;
constexpr std::uint64_t kPageAlign = 2ull << 20;  // far pages start on 2 MiB boundaries
}  // namespace

WideSpectrum wide_spectrum(const WideSpectrumParams& p) {
  WideSpectrum s;
  const std::uint64_t pages = std::min<std::uint64_t>(p.max_far_pages, p.footprint_bytes / p.min_far_stride);
  if (pages < 2 || p.min_far_stride < (2ull << 20))
    throw std::invalid_argument("the spectrum footprint must hold two far strides of at least 2 MiB");
  if ((64ull << 10) + (p.near_count + 1) * p.near_stride_bytes > (1ull << 20) || (p.same_line_count + 1) * 8 > kLine)
    throw std::invalid_argument("near lines must fit below 1 MiB of the page, same-line elements inside one line");
  s.far_pages = static_cast<std::uint32_t>(pages);
  s.far_stride = p.footprint_bytes / pages / kPageAlign * kPageAlign;
  for (std::uint32_t g = 4; g < s.far_pages; g *= 4) s.groups.push_back(g);
  s.groups.push_back(s.far_pages);
  auto push = [&](std::uint64_t pos, std::uint8_t label) {
    s.positions.push_back(pos);
    s.label.push_back(label);
  };
  // far page k: a line among the first 64 KiB (varied, so the far lines spread over L2 sets)
  auto far = [&](std::uint64_t k) { return k * s.far_stride + ((k * 0x9E3779B97F4A7C15ull) >> 55) * kLine; };
  const auto L = [](WidePattern w) { return static_cast<std::uint8_t>(w); };
  for (std::uint64_t k = 0; k < pages; ++k) push(far(k), L(WidePattern::first_far));
  // near lines lie past the far line's 64 KiB, new lines of far pages at 1 MiB: no element repeats
  const std::uint64_t last = (pages - 1) * s.far_stride, near0 = last + (64ull << 10), fresh = 1ull << 20;
  for (std::uint32_t j = 1; j <= p.near_count; ++j) push(near0 + j * p.near_stride_bytes, L(WidePattern::cold_near));
  for (std::uint32_t j = 1; j <= p.near_count; ++j) push(near0 + j * p.near_stride_bytes + 8, L(WidePattern::near_hit));
  // revisit group i: the far lines of the last g pages (their sector + 8 bytes), two cycles; the
  // second cycle is labelled. Each group's offset within the line differs, so no element repeats.
  for (std::size_t i = 0; i < s.groups.size(); ++i) {
    const std::uint64_t g = s.groups[i], off = 16 + 8 * (2 * i);
    for (int cycle = 0; cycle < 2; ++cycle)
      for (std::uint64_t k = pages - g; k < pages; ++k)
        push(far(k) + off + 8 * cycle, cycle ? static_cast<std::uint8_t>(L(WidePattern::revisit) + i) : L(WidePattern::setup));
  }
  for (std::uint64_t k = 0; k < pages; ++k) push(k * s.far_stride + fresh, L(WidePattern::far_new_line));
  for (std::uint32_t j = 0; j < p.same_line_count; ++j) push(last + fresh + 8 * (j + 1), L(WidePattern::same_line));
  return s;
}

std::string wide_pattern_name(const WideSpectrum& s, std::uint8_t label) {
  static const char* names[] = {"first_far", "cold_near", "near_hit", "far_new_line", "same_line", "setup"};
  if (label < static_cast<std::uint8_t>(WidePattern::revisit)) return names[label];
  const std::size_t i = label - static_cast<std::uint8_t>(WidePattern::revisit);
  return i < s.groups.size() ? "revisit_" + std::to_string(s.groups[i]) : "unknown";
}

}  // namespace memhier
