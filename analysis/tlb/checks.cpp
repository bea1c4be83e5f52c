#include "analysis/tlb/checks.hpp"

#include <cmath>

namespace memhier::analysis {

namespace {

double se_of(const TlbRise& r) { return std::max(r.ci95 / 1.96, 1e-3); }

// Why level L is not translation, or empty. Only a level at its full height from its first stride
// is judged: heights that double with the stride below the saturation (the share stride / entry
// reach of the accesses missing) are a translation signature placement does not mimic, and a
// set-indexed level's reach may move either way at larger strides (000's unequal sets). Its top
// rise (largest own stride) predicts, at the next larger stride s whose curve starts below and ends
// beyond where it must show, a rise of at least top's height with its reach in
// [top.lo / 2, top.hi * s / top.stride) bytes (the same entries in slots, or fewer sets used).
std::string vanishing(const TlbLevel& L, const TlbSteps& st) {
  const TlbRise* top = nullptr;
  for (const auto& r : L.rises)
    if (!r.shared) top = &r;
  if (!top || !L.saturated || L.entry_bytes || L.rises.front().stride != L.s_sat) return {};
  for (const auto& [key, ext] : st.extent) {
    if (key.first != L.alloc || key.second <= top->stride) continue;
    if (L.at(key.second)) return {};
    const double f = static_cast<double>(key.second) / static_cast<double>(top->stride);
    const double lo = static_cast<double>(top->lo) / 2, hi = static_cast<double>(top->hi) * f;
    if (static_cast<double>(ext.first) >= hi || static_cast<double>(ext.second) < hi) continue;
    double sum = 0, var = se_of(*top) * se_of(*top);
    auto it = st.rises.find(key);
    if (it != st.rises.end())
      for (const auto& r : it->second)
        if (static_cast<double>(r.hi) > lo && static_cast<double>(r.lo) < hi) {
          sum += r.height;
          var += se_of(r) * se_of(r);
        }
    if (top->height - sum > 3 * std::sqrt(var) && sum < 0.5 * top->height)
      return "not a translation level: at its full height from its first stride, and its rise of +" +
             std::to_string(top->height) + " cycles at stride " + std::to_string(top->stride) + " (reach [" +
             std::to_string(top->lo) + ", " + std::to_string(top->hi) + ") bytes) is missing at stride " +
             std::to_string(key.second) + ", whose footprints " + std::to_string(ext.first) + "-" +
             std::to_string(ext.second) + " bytes would show it below " + std::to_string(static_cast<std::uint64_t>(hi)) +
             " bytes (+" + std::to_string(sum) + " there): a translation miss does not vanish at a larger stride; " +
             "data placement does";
    return {};  // the first stride that can show it decides
  }
  return {};
}

}  // namespace

std::vector<TlbLevel> keep_translation_levels(std::vector<TlbLevel> levels, const TlbSteps& st,
                                              std::vector<RejectedLevel>* rejected) {
  std::vector<std::string> why;
  for (const auto& L : levels) why.push_back(vanishing(L, st));
  std::vector<TlbLevel> out;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (why[i].empty()) out.push_back(std::move(levels[i]));
    else if (rejected) rejected->push_back({std::move(levels[i]), why[i]});
  }
  return out;
}

}  // namespace memhier::analysis
