#include "analysis/tlb/levels.hpp"

#include <algorithm>
#include <cmath>

namespace memhier::analysis {

namespace {

// Reach brackets are half-open: [lo, hi).
bool overlap(double a_lo, double a_hi, double b_lo, double b_hi) { return std::max(a_lo, b_lo) < std::min(a_hi, b_hi); }

// Same level at two strides: the reach overlaps in bytes (entries shared by several slots, or
// spread over the sets) or in slots (one entry per slot in one set).
bool compatible(const TlbRise& a, const TlbRise& b) {
  if (overlap(a.lo, a.hi, b.lo, b.hi)) return true;
  const double sa = static_cast<double>(a.stride), sb = static_cast<double>(b.stride);
  return overlap(a.lo / sa, a.hi / sa, b.lo / sb, b.hi / sb);
}

double mid_log(const TlbRise& r) { return std::log2(0.5 * static_cast<double>(r.lo + r.hi)); }

// Loosely the same level: reach within a factor 2 in bytes (a set-indexed level's reach wanders a
// little with the stride) and a height that stays or doubles, as one level's does.
// The height of b continues a's level: it stays (saturated) or grows with the stride (not yet).
bool height_continues(const TlbRise& a, const TlbRise& b) {
  const double f = static_cast<double>(b.stride) / static_cast<double>(a.stride);
  const double tol = 3 * std::sqrt(a.ci95 * a.ci95 + b.ci95 * b.ci95) / 1.96 + 0.05 * b.height;
  return std::fabs(b.height - a.height) < tol || std::fabs(b.height - f * a.height) < tol + f * 0.05 * a.height;
}

bool loosely_compatible(const TlbRise& a, const TlbRise& b) {
  return std::fabs(mid_log(a) - mid_log(b)) <= 1 && height_continues(a, b);
}

// A rise one chain took that another chain, with no rise of its own at that stride, would also
// have taken: both levels' reaches coincide there. It joins the other chain, marked in both.
void mark_shared(std::vector<TlbLevel>& chains) {
  for (std::size_t x = 0; x < chains.size(); ++x)
    for (std::size_t i = 0; i < chains[x].rises.size(); ++i) {
      TlbRise& r = chains[x].rises[i];
      // a rise whose height its own level's explains alone is not shared
      if (i > 0 && !chains[x].rises[i - 1].shared && height_continues(chains[x].rises[i - 1], r)) continue;
      for (std::size_t y = 0; y < chains.size(); ++y) {
        if (y == x || chains[y].at(r.stride)) continue;
        const TlbRise* prev = nullptr;  // the other chain's own rise below (shared copies do not chain on)
        for (const auto& p : chains[y].rises)
          if (p.stride < r.stride && !p.shared) prev = &p;
        if (!prev || prev->stride * 4 < r.stride || !compatible(*prev, r)) continue;
        r.shared = true;
        TlbRise copy = r;
        auto& ys = chains[y].rises;
        ys.insert(std::upper_bound(ys.begin(), ys.end(), copy,
                                   [](const TlbRise& a, const TlbRise& b) { return a.stride < b.stride; }),
                  copy);
      }
    }
}

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

namespace {

// A chain seen only at strides above a level's saturation, at that level's full height, is that
// level again: at large strides a set-indexed level spreads the slots over fewer sets and its reach
// in slots wanders, so the rises no longer link (e.g. 000's 65-entry L2 TLB at 8 and 32 MiB).
void fold_set_limited(std::vector<TlbLevel>& levels) {
  for (std::size_t c = 1; c < levels.size();) {
    const TlbLevel& C = levels[c];
    bool folded = false;
    for (std::size_t l = 0; l < c && !folded && C.saturated && C.rises.front().stride > 0; ++l) {
      TlbLevel& L = levels[l];
      const double tol = 3 * std::sqrt(L.penalty_ci95 * L.penalty_ci95 + C.penalty_ci95 * C.penalty_ci95) / 1.96 +
                         0.02 * L.penalty;
      if (!L.saturated || C.rises.front().stride <= L.s_sat || std::fabs(C.penalty - L.penalty) > tol) continue;
      for (const auto& r : C.rises)
        if (!L.at(r.stride)) L.rises.push_back(r);
      std::sort(L.rises.begin(), L.rises.end(), [](const TlbRise& a, const TlbRise& b) { return a.stride < b.stride; });
      folded = true;
    }
    if (folded) levels.erase(levels.begin() + static_cast<std::ptrdiff_t>(c));
    else ++c;
  }
}

}  // namespace

std::vector<TlbLevel> link_tlb_levels(const TlbSteps& st, const std::string& alloc, std::vector<TlbRise>* single) {
  std::vector<TlbLevel> chains;
  for (const auto& [key, rises] : st.rises) {  // strides ascending (map order)
    if (key.first != alloc) continue;
    std::vector<bool> taken(chains.size(), false);
    for (const auto& r : rises) {
      int best = -1;
      double bd = 1e300;
      for (int pass = 0; pass < 2 && best < 0; ++pass)  // exact reach overlap first, then loose
        for (std::size_t c = 0; c < chains.size(); ++c) {
          const TlbRise& last = chains[c].rises.back();
          if (taken[c] || last.stride * 4 < r.stride || !(pass ? loosely_compatible(last, r) : compatible(last, r)))
            continue;
          const double d = std::min(std::fabs(mid_log(last) - mid_log(r)),
                                    std::fabs(mid_log(last) - std::log2(static_cast<double>(last.stride)) -
                                              mid_log(r) + std::log2(static_cast<double>(r.stride)))) +
                           (height_continues(last, r) ? 0 : 100);  // a chain whose height it continues first
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
  mark_shared(chains);
  std::vector<TlbLevel> out;
  for (auto& c : chains) {
    std::vector<const TlbRise*> own;
    for (const auto& r : c.rises)
      if (!r.shared) own.push_back(&r);
    if (own.size() >= 2) out.push_back(std::move(c));
    else if (single && !own.empty()) single->push_back(*own.front());
  }
  std::sort(out.begin(), out.end(), [](const TlbLevel& a, const TlbLevel& b) { return a.min_slots() < b.min_slots(); });
  for (auto& L : out) derive_tlb_level(L);
  resolve_shared_rises(out);
  fold_set_limited(out);
  return out;
}

namespace {

double se_of(const TlbRise& r) { return std::max(r.ci95 / 1.96, 1e-3); }
bool agree(const TlbRise& a, const TlbRise& b) {
  return std::fabs(a.height - b.height) < 3 * std::sqrt(se_of(a) * se_of(a) + se_of(b) * se_of(b));
}

// The reach of one entry from the largest unsaturated stride u below the saturation: a fraction
// u / E of the accesses miss there.
void entry_from(TlbLevel& L, const TlbRise& u) {
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

// Saturation at own rise k (index into `own`): penalty = mean of the heights that agree from k on.
void saturate_at(TlbLevel& L, const std::vector<const TlbRise*>& own, std::size_t k) {
  double w = 0, m = 0;
  for (std::size_t i = k; i < own.size() && (i == k || agree(*own[k], *own[i])); ++i) {
    w += 1 / (se_of(*own[i]) * se_of(*own[i]));
    m += own[i]->height / (se_of(*own[i]) * se_of(*own[i]));
  }
  L.penalty = m / w;
  // Heights that scatter between strides beyond their own intervals (Birge ratio > 1: placement,
  // clocks) widen the interval by that ratio: on the H100 the heights 9.5-10.8 of one run gave
  // +-0.14-0.27 from their own intervals alone, while five runs' penalties spread over 9.7-10.3.
  double chi2 = 0;
  std::size_t n = 0;
  for (std::size_t i = k; i < own.size() && (i == k || agree(*own[k], *own[i])); ++i, ++n)
    chi2 += (own[i]->height - L.penalty) * (own[i]->height - L.penalty) / (se_of(*own[i]) * se_of(*own[i]));
  const double birge = n > 1 ? std::sqrt(chi2 / static_cast<double>(n - 1)) : 1;
  L.penalty_ci95 = 1.96 / std::sqrt(w) * std::max(1.0, birge);
  L.s_sat = own[k]->stride;
  L.saturated = true;
  L.onset_lo = L.onset_hi = 0;
  L.onset_agree = false;
  L.entry_bytes = L.reach_lo = L.reach_hi = 0;
  if (k == 0) {
    L.entry_note = "full height at every stride where the level is seen (from " + std::to_string(L.s_sat) +
                   " bytes): one entry reaches at most that far";
    return;
  }
  entry_from(L, *own[k - 1]);
}

// The chain's own rises up to its first shared one: past a rise of two levels at once, the
// chain's later rises may hold both levels too (their reaches coincide again), so saturation is
// judged below it (and the shared rise itself by resolve_shared_rises).
std::vector<const TlbRise*> own_rises(const TlbLevel& L) {
  std::vector<const TlbRise*> v;
  for (const auto& r : L.rises) {
    if (r.shared) break;
    v.push_back(&r);
  }
  return v;
}

}  // namespace

namespace {

// How one level's height can change from rise a to rise b at f = b.stride / a.stride times the
// stride: it stays (saturated), grows by a power of two up to f (the share stride / entry reach),
// or falls (a set-indexed level's fewer sets at large strides, a footprint at the reach itself).
// A height between those (above a, below 2a at f = 2) or above f * a is no single level's.
enum class Step { one_level, partial, super };
Step step_kind(const TlbRise& a, const TlbRise& b) {
  const double f = static_cast<double>(b.stride) / static_cast<double>(a.stride);
  for (double g = 1; g <= f; g *= 2) {
    const double se = std::sqrt(se_of(b) * se_of(b) + g * g * se_of(a) * se_of(a));
    if (std::fabs(b.height - g * a.height) < 3 * se + 0.05 * std::max(b.height, g * a.height)) return Step::one_level;
  }
  if (b.height < a.height) return Step::one_level;
  return b.height > f * a.height ? Step::super : Step::partial;
}

// Two neighbouring own rises at one height that no growth by the stride explains: the level saturated.
bool plateau_pair(const TlbRise& a, const TlbRise& b) {
  if (!agree(a, b) && std::fabs(a.height - b.height) >= 0.05 * std::max(a.height, b.height)) return false;
  const double f = static_cast<double>(b.stride) / static_cast<double>(a.stride);
  for (double g = 2; g <= f; g *= 2) {
    const double se = std::sqrt(se_of(b) * se_of(b) + g * g * se_of(a) * se_of(a));
    if (std::fabs(b.height - g * a.height) < 3 * se + 0.05 * g * a.height) return false;
  }
  return true;
}

std::string height_text(const TlbRise& r) {
  return std::to_string(r.height).substr(0, std::to_string(r.height).find('.') + 2) + " cycles at stride " +
         std::to_string(r.stride);
}

// Rises whose heights hold another level's misses too (two levels overflow at one footprint): past
// a plateau of the level's own (it saturated there), a significantly larger height; before any
// plateau, a height that neither stays nor grows by a power of two of the stride ratio (e.g.
// 213 -> 226 cycles from 32 to 64 MiB: a saturated level of 200 plus one of 210 whose share
// doubles). They are marked combined (and shared: the penalty is judged below them).
void mark_combined(TlbLevel& L) {
  std::vector<TlbRise*> own;
  for (auto& r : L.rises) {
    if (r.shared) break;
    own.push_back(&r);
  }
  std::size_t cut = own.size();
  double P = 0, Pse = 0;
  for (std::size_t j = 1; j < own.size() && cut == own.size(); ++j) {
    const TlbRise &a = *own[j - 1], &b = *own[j];
    if (Pse > 0) {
      if (b.height - P > 3 * std::sqrt(se_of(b) * se_of(b) + Pse * Pse) + 0.05 * P) {
        cut = j;
        L.mixed = "the rise of " + height_text(b) + " exceeds the level's own full height " + std::to_string(P) +
                  " (the same at strides " + std::to_string(own[0]->stride) + "-" + std::to_string(a.stride) +
                  " bytes): another level's misses at the same footprint (" + std::to_string(b.height - P) +
                  " cycles), not this level's";
      }
    } else if (plateau_pair(a, b)) {
      const double wa = 1 / (se_of(a) * se_of(a)), wb = 1 / (se_of(b) * se_of(b));
      P = (a.height * wa + b.height * wb) / (wa + wb);
      Pse = 1 / std::sqrt(wa + wb);
    } else if (step_kind(a, b) == Step::partial) {
      cut = j;
      L.mixed_unresolved = true;
      L.mixed = "heights " + height_text(a) + " and " + height_text(b) +
                " neither stay nor grow with the stride as one level's do: two levels overflow at the same "
                "footprints (their reaches coincide), and no plateau of this level's own below separates their "
                "penalties";
    }
  }
  for (std::size_t i = cut; i < own.size(); ++i) own[i]->combined = own[i]->shared = true;
}

}  // namespace

// Saturation: the full height is the highest own rise; the level saturates at the first stride
// whose height agrees with it (3 standard errors and 5 %), unless that is the last stride alone
// (then the height may still double). Judged from the top, not by walking up from the smallest
// stride: partial heights need not double exactly (on the H100 the near/far L2 mix adds a few
// tenths of a cycle to the 1/32 and 1/16 shares), and a set-indexed level's heights fall again at
// large strides (fewer sets used), which leaves the highest one where it saturated.
void derive_tlb_level(TlbLevel& L) {
  mark_combined(L);
  const auto own = own_rises(L);
  if (own.empty()) return;
  std::size_t km = 0;
  for (std::size_t i = 1; i < own.size(); ++i)
    if (own[i]->height > own[km]->height) km = i;
  // The same height within 3 standard errors and 5 %, and nearer the same height than the grown one
  // (stride ratio x a): small heights with wide intervals fit both, and the one that fits better
  // decides (the H100's level beyond 32 GiB, one run: 1.16 +-0.37 at 16 MiB, 2.51 +-0.73 at 32 MiB
  // was "saturated" at 1.2 cycles, while four runs saw it double on to 97 cycles).
  auto close = [](const TlbRise& a, const TlbRise& b) {
    const double f = static_cast<double>(b.stride) / static_cast<double>(a.stride);
    const bool grows = f > 1 && std::fabs(b.height - f * a.height) < std::fabs(b.height - a.height);
    return !grows && std::fabs(a.height - b.height) <
                         3 * std::sqrt(se_of(a) * se_of(a) + se_of(b) * se_of(b)) + 0.05 * std::max(a.height, b.height);
  };
  std::size_t k = 0;
  while (k < km && !close(*own[k], *own[km])) ++k;
  // saturated: a lower rise agrees with the highest, or the next one does (a lone highest rise
  // followed by lower ones alone is no plateau: the H200's 94.6 cycles at 32 MiB, then 23 at
  // 64 MiB on the last footprint, still doubled from 16 MiB)
  if (!L.mixed_unresolved && (k < km || (km + 1 < own.size() && close(*own[km], *own[km + 1]))))
    return saturate_at(L, own, k);
  L.saturated = false;  // heights only grow up to the saturation: the highest one bounds the penalty
  L.penalty = own[km]->height;
  L.penalty_ci95 = own[km]->ci95;
  L.s_sat = own[km]->stride;
  L.entry_note = "no two strides show the same height (largest own stride " + std::to_string(L.s_sat) +
                 " bytes): the miss penalty is at least " + std::to_string(L.penalty) + " cycles";
  tlb_onset(L);
}

void tlb_onset(TlbLevel& L) {
  L.onset_lo = L.onset_hi = 0;
  L.onset_agree = false;
  if (L.saturated || L.mixed_unresolved || !L.mixed.empty()) return;
  std::vector<const TlbRise*> own;  // up to the highest rise: past it the heights fall (a stride beyond one entry)
  for (const auto* r : own_rises(L))
    if (r->stride <= L.s_sat) own.push_back(r);
  if (own.empty()) return;
  std::uint64_t hi = own.front()->hi, lo = 0;
  for (const auto* r : own) hi = std::min(hi, r->hi);
  for (const auto* r : own)
    if (r->lo < hi) lo = std::max(lo, r->lo);
  if (lo == 0 || lo >= hi) return;
  L.onset_lo = lo;
  L.onset_hi = hi;
  L.onset_agree = std::all_of(own.begin(), own.end(), [&](const TlbRise* r) { return r->lo <= lo && r->hi >= hi; });
}

void resolve_shared_rises(std::vector<TlbLevel>& levels) {
  for (std::size_t a = 0; a < levels.size(); ++a)
    for (std::size_t b = a + 1; b < levels.size(); ++b) {
      TlbLevel &A = levels[a], &B = levels[b];
      if (A.saturated && B.saturated) continue;
      const auto oa = own_rises(A), ob = own_rises(B);
      for (const auto& r : A.rises) {
        if (!r.shared || !B.at(r.stride) || oa.empty() || ob.empty()) continue;
        const TlbRise *ha = oa.back(), *hb = ob.back();  // own heights just below the shared stride
        if (ha->stride >= r.stride || hb->stride != ha->stride) continue;
        const double f = static_cast<double>(r.stride) / static_cast<double>(ha->stride);
        const double se = std::sqrt(se_of(r) * se_of(r) + f * f * (se_of(*ha) * se_of(*ha) + se_of(*hb) * se_of(*hb)));
        int fits = 0, ka = 0, kb = 0;
        for (int i = 0; i < 4; ++i) {  // each level saturated (x1) or still doubling (x f)
          const double pa = (i & 1) ? f : 1, pb = (i & 2) ? f : 1;
          if (std::fabs(r.height - pa * ha->height - pb * hb->height) < 3 * se) ++fits, ka = i & 1, kb = i & 2;
        }
        if (fits != 1) continue;
        if (!ka && !A.saturated) saturate_at(A, oa, oa.size() - 1);
        if (!kb && !B.saturated) saturate_at(B, ob, ob.size() - 1);
        break;
      }
    }
}

}  // namespace memhier::analysis
