// Per-SM rates from per-CTA stamps (kern::SmemStamp: the SM clock at a CTA's start and end barrier,
// and its SM): an SM's span runs from its first CTA's start to its last CTA's end, its bytes are
// bytes_per_cta times its CTAs. Plain C++ (the stamp type is a template parameter).
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace memhier {

// Bytes per SM clock of each SM that has a span (SMs in ascending order).
template <typename Stamp>
std::vector<double> per_sm_rates(const std::vector<Stamp>& stamps, double bytes_per_cta) {
  std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> span;
  std::map<std::uint32_t, int> ctas;
  for (const auto& s : stamps) {
    auto it = span.find(s.smid);
    if (it == span.end())
      span[s.smid] = {s.clk0, s.clk1};
    else
      it->second = {std::min<std::uint64_t>(it->second.first, s.clk0), std::max<std::uint64_t>(it->second.second, s.clk1)};
    ++ctas[s.smid];
  }
  std::vector<double> v;
  for (const auto& [sm, se] : span)
    if (se.second > se.first) v.push_back(bytes_per_cta * ctas[sm] / static_cast<double>(se.second - se.first));
  return v;
}

}  // namespace memhier
