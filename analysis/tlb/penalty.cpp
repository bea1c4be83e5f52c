#include "analysis/tlb/penalty.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace memhier::analysis {

namespace {

const TlbSeries* find(const std::vector<TlbSeries>& series, const TlbRise& r) {
  for (const auto& s : series)
    if (s.alloc == r.alloc && s.stride == r.stride) return &s;
  return nullptr;
}

double round1(double x) { return std::round(x * 10) / 10; }
double round3(double x) { return std::round(x * 1000) / 1000; }

}  // namespace

// A rise with no plateau above it: the last footprint of its curve alone above the bracket, or the
// last two disagreeing (still rising). Such a footprint may lie at the reach itself and miss only in
// part, by a share that changes from run to run (the H100's 64 GiB footprints: 4.8-24 cycles at
// 32 MiB in three runs, 94 at 76 GiB in two).
bool tlb_rise_at_curve_end(const std::vector<TlbSeries>& series, const TlbSteps& st, const TlbRise& r) {
  const TlbSeries* c = find(series, r);
  if (!c || c->points.size() < 2 || r.i_hi + 1 > c->points.size()) return true;
  if (r.i_hi + 1 == c->points.size()) return true;
  const TlbFootprint &a = c->points[c->points.size() - 2], &b = c->points.back();
  return std::fabs(b.mean - a.mean) > 3 * std::sqrt(a.se * a.se + b.se * b.se + 2 * st.tau * st.tau);
}

bool tlb_rests_on_last_footprints(const std::vector<TlbSeries>& series, const TlbSteps& st, const TlbLevel& L) {
  for (const auto& r : L.rises)
    if (!r.shared && !tlb_rise_at_curve_end(series, st, r)) return false;
  return true;
}

namespace {

std::string fixed(double x, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << x;
  return o.str();
}

std::string bytes_text(std::uint64_t b) {
  const char* unit[] = {"bytes", "KiB", "MiB", "GiB"};
  int u = 0;
  while (u < 3 && b >= 1024 && b % 1024 == 0) b /= 1024, ++u;
  return std::to_string(b) + " " + unit[u];
}

// An unsaturated level: its heights still grow with the stride at the largest stride that shows
// it, so its penalty is only bounded below.
std::string unsaturated_reason(const std::vector<TlbSeries>& series, const TlbSteps& st, const TlbLevel& L) {
  std::string h, s;
  std::uint64_t top = 0;
  for (const auto& r : L.rises) {
    if (r.shared) continue;
    h += (h.empty() ? "" : ", ") + fixed(r.height, 1);
    s += (s.empty() ? "" : ", ") + bytes_text(r.stride);
    if (const TlbSeries* c = find(series, r)) top = std::max(top, c->points.back().bytes);
  }
  std::string why = "not saturated: heights " + h + " cycles at strides " + s +
                    " grow with the stride up to the largest one that shows the level (a fraction stride / entry reach "
                    "of the accesses miss), so the penalty is at least " + fixed(L.penalty, 1) +
                    " cycles (miss_penalty_lower_bound_cycles), not a value";
  if (tlb_rests_on_last_footprints(series, st, L))
    why += "; no rise has a plateau above it (the largest footprint of its curve alone, up to " +
           bytes_text(top) + "): a footprint at the reach itself misses only in part, by a share that "
           "varies between runs (larger footprints requested where the device holds them)";
  return why;
}

}  // namespace

void write_tlb_penalty(nlohmann::json& c, const TlbLevel& L, const std::vector<TlbSeries>& series, const TlbSteps& st,
                       const Evidence& ev) {
  if (L.mixed_unresolved) {  // no lower bound: the heights below may hold the other level's share
    set_null(c, "miss_penalty_cycles", L.mixed, ev);
    return;
  }
  if (!L.saturated) {
    set_null(c, "miss_penalty_cycles", unsaturated_reason(series, st, L), ev);
    c["miss_penalty_lower_bound_cycles"] = round1(L.penalty);
    return;
  }
  set_value(c, "miss_penalty_cycles", round1(L.penalty), 0.85, ev,
            "height of the rise where every access misses (+-" + std::to_string(round3(L.penalty_ci95)) + ", 95 %)" +
                (L.mixed.empty() ? "" : "; " + L.mixed));
  c["miss_penalty_ci95_cycles"] = round3(L.penalty_ci95);
}

}  // namespace memhier::analysis
