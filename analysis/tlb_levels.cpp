#include "analysis/tlb_levels.hpp"

#include <algorithm>
#include <cmath>

namespace memhier::analysis {

namespace {

bool overlap(double a_lo, double a_hi, double b_lo, double b_hi) { return std::max(a_lo, b_lo) <= std::min(a_hi, b_hi); }

// Same level at two strides: the reach overlaps in bytes (entries shared by several slots, or
// spread over the sets) or in slots (one entry per slot in one set).
bool compatible(const TlbRise& a, const TlbRise& b) {
  if (overlap(a.lo, a.hi, b.lo, b.hi)) return true;
  const double sa = static_cast<double>(a.stride), sb = static_cast<double>(b.stride);
  return overlap(a.lo / sa, a.hi / sa, b.lo / sb, b.hi / sb);
}

double mid_log(const TlbRise& r) { return std::log2(0.5 * static_cast<double>(r.lo + r.hi)); }

}  // namespace

const TlbRise* TlbLevel::at(std::uint64_t stride) const {
  for (const auto& r : rises)
    if (r.stride == stride) return &r;
  return nullptr;
}

double TlbLevel::min_slots() const {
  double m = 1e300;
  for (const auto& r : rises) m = std::min(m, static_cast<double>(r.lo) / static_cast<double>(r.stride));
  return m;
}

std::vector<TlbLevel> link_tlb_levels(const TlbSteps& st, const std::string& alloc, std::vector<TlbRise>* single) {
  std::vector<TlbLevel> chains;
  for (const auto& [key, rises] : st.rises) {  // strides ascending (map order)
    if (key.first != alloc) continue;
    std::vector<bool> taken(chains.size(), false);
    for (const auto& r : rises) {
      int best = -1;
      double bd = 1e300;
      for (std::size_t c = 0; c < chains.size(); ++c) {
        const TlbRise& last = chains[c].rises.back();
        if (taken[c] || last.stride * 4 < r.stride || !compatible(last, r)) continue;
        const double d = std::min(std::fabs(mid_log(last) - mid_log(r)),
                                  std::fabs(mid_log(last) - std::log2(static_cast<double>(last.stride)) - mid_log(r) +
                                            std::log2(static_cast<double>(r.stride))));
        if (d < bd) bd = d, best = static_cast<int>(c);
      }
      if (best < 0) {
        chains.push_back(TlbLevel{});
        chains.back().alloc = alloc;
        taken.push_back(false);
        best = static_cast<int>(chains.size()) - 1;
      }
      chains[best].rises.push_back(r);
      taken[best] = true;
    }
  }
  std::vector<TlbLevel> out;
  for (auto& c : chains) {
    if (c.rises.size() >= 2) out.push_back(std::move(c));
    else if (single) single->push_back(c.rises.front());
  }
  std::sort(out.begin(), out.end(), [](const TlbLevel& a, const TlbLevel& b) { return a.min_slots() < b.min_slots(); });
  for (auto& L : out) derive_tlb_level(L);
  return out;
}

void derive_tlb_level(TlbLevel& L) {
  // Saturation: the first stride whose height the next stride of the chain repeats (|difference| <
  // 3 standard errors); the penalty is the mean of the heights that agree from there on. Strides
  // above may show less (a set-indexed level then uses fewer sets, and its rise is partial).
  auto se = [](const TlbRise& r) { return std::max(r.ci95 / 1.96, 1e-3); };
  auto agree = [&](const TlbRise& a, const TlbRise& b) {
    return std::fabs(a.height - b.height) < 3 * std::sqrt(se(a) * se(a) + se(b) * se(b));
  };
  std::size_t k = 0;
  while (k + 1 < L.rises.size() && !agree(L.rises[k], L.rises[k + 1])) ++k;
  L.saturated = k + 1 < L.rises.size();
  if (!L.saturated) k = L.rises.size() - 1;
  double w = 0, m = 0;
  for (std::size_t i = k; i < L.rises.size() && (i == k || agree(L.rises[k], L.rises[i])); ++i) {
    w += 1 / (se(L.rises[i]) * se(L.rises[i]));
    m += L.rises[i].height / (se(L.rises[i]) * se(L.rises[i]));
  }
  L.penalty = m / w;
  L.penalty_ci95 = 1.96 / std::sqrt(w);
  L.s_sat = L.rises[k].stride;
  if (!L.saturated) {
    L.entry_note = "no two strides show the same height (largest stride " + std::to_string(L.rises.back().stride) +
                   " bytes): the miss penalty is at least " + std::to_string(L.penalty) + " cycles";
    return;
  }
  if (k == 0) {
    L.entry_note = "full height at every stride where the level is seen (from " + std::to_string(L.s_sat) +
                   " bytes): one entry reaches at most that far";
    return;
  }
  const TlbRise& u = L.rises[k - 1];  // the largest unsaturated stride: a fraction stride/E misses
  L.entry_estimate = static_cast<double>(u.stride) * L.penalty / std::max(u.height, 1e-9);
  std::uint64_t e = L.s_sat;  // the power of two in (u.stride, s_sat] nearest the estimate
  while (e / 2 > u.stride && std::fabs(std::log2(static_cast<double>(e) / 2 / L.entry_estimate)) <
                                 std::fabs(std::log2(static_cast<double>(e) / L.entry_estimate)))
    e /= 2;
  if (std::fabs(std::log2(static_cast<double>(e) / L.entry_estimate)) > 0.35) {
    L.entry_note = "heights do not fit one entry reach: at stride " + std::to_string(u.stride) + " the height " +
                   std::to_string(u.height) + " of a penalty " + std::to_string(L.penalty) + " implies " +
                   std::to_string(L.entry_estimate) + " bytes, no power of two in (" + std::to_string(u.stride) +
                   ", " + std::to_string(L.s_sat) + "]";
    return;
  }
  L.entry_bytes = e;
  L.entry_note = "full height from stride " + std::to_string(L.s_sat) + "; at stride " + std::to_string(u.stride) +
                 " a fraction " + std::to_string(u.height / L.penalty) + " of the accesses miss (entry reach " +
                 std::to_string(static_cast<long long>(L.entry_estimate)) + " bytes)";
  if (const TlbRise* r = L.at(e)) {
    L.reach_lo = r->lo;
    L.reach_hi = r->hi;
  }
}

}  // namespace memhier::analysis
