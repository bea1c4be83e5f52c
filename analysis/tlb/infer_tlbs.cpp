#include "analysis/tlb/infer_tlbs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "analysis/tlb/checks.hpp"
#include "analysis/tlb/page.hpp"
#include "analysis/tlb/penalty.hpp"
#include "analysis/tlb/stage2.hpp"

namespace memhier::analysis {

namespace {

constexpr std::size_t kTlbRequestBudget = 96;  // tlb runs per refinement round (a few ms each on a GPU)
constexpr double kCountSe = 0.3;               // stage 2: misses per pass must be known this well
const char* const kTlbNames[] = {"l1_tlb", "l2_tlb"};

double round3(double x) { return std::round(x * 1000) / 1000; }

struct TlbContext {
  InferContext& ctx;
  std::vector<TlbSeries> series;
  TlbSteps steps;
  std::uint64_t lines = 4096;      // the plan's data lines per run (requests keep it)
  std::uint64_t max_slots = 16384; // slots whose lines stay within 1/8 of the L2
  std::size_t budget = kTlbRequestBudget;

  const TlbSeries* find(const std::string& alloc, std::uint64_t stride) const {
    for (const auto& s : series)
      if (s.alloc == alloc && s.stride == stride) return &s;
    return nullptr;
  }
  const TlbFootprint* point(const std::string& alloc, std::uint64_t stride, std::uint64_t bytes) const {
    if (const TlbSeries* s = find(alloc, stride))
      for (const auto& p : s->points)
        if (p.bytes == bytes) return &p;
    return nullptr;
  }
  // Asks for a run unless one of at least `timed` recorded accesses exists (0: the default 4096).
  void request(std::uint64_t bytes, std::uint64_t stride, const std::string& alloc, const std::string& why,
               std::uint64_t timed = 0) {
    if (budget == 0 || bytes < stride || bytes / stride > max_slots) return;
    const TlbFootprint* have = point(alloc, stride, bytes);
    if (have && have->accesses >= 0.9 * static_cast<double>(timed ? timed : 4096)) return;
    if (ctx.requests.add(TlbWish{bytes, stride, why, alloc, lines == 4096 ? 0 : lines, timed})) --budget;
  }
};

TlbContext make_context(InferContext& ctx) {
  TlbContext T{ctx, tlb_series(ctx.data), {}, 4096, 16384, kTlbRequestBudget};
  T.steps = find_tlb_steps(T.series);
  std::map<std::int64_t, int> lines;
  for (const auto& c : ctx.data.chases())
    if (c.family == "tlb" && c.entry) ++lines[c.entry->params.get_int_or("lines", 4096)];
  int best = 0;
  for (auto [l, n] : lines)
    if (n > best) best = n, T.lines = static_cast<std::uint64_t>(l);
  const auto& cx = ctx.data.context();
  if (auto it = cx.find("l2_cache_bytes"); it != cx.end()) {
    try {
      T.max_slots = std::max<std::uint64_t>(64, std::stoull(it->second) / 128 / 8);
    } catch (...) {
    }
  }
  return T;
}


}  // namespace

// Stage 2 (000 §4.4 over the reach unit): at the entry stride E, footprints reach + j*E; the misses
// per pass are the mean shift over the level below divided by the penalty, times the slots.
namespace {

struct Stage2 {
  std::vector<double> counts, se;  // misses per pass at j = 1, 2, ... (every measured step) and their errors
  SetsResult sets;                 // from the resolved steps
  std::uint64_t have = 0;          // steps j = 1..have measured (consecutive)
  std::uint64_t resolved = 0;      // steps j = 1..resolved known to kCountSe misses
  std::uint64_t looks_complete = 0;  // first step whose count, noise allowed, reaches every slot (0: none)
  double worst_se = 0;             // largest standard error of a count up to looks_complete (or have)
  double floor_se = 0;             // the part of it more accesses cannot reduce (scatter between footprints)
  std::vector<std::vector<std::pair<double, double>>> run_counts;  // each run of each step alone: misses, se
  std::size_t unreplicated = 0;    // first resolved step whose runs round to different counts (0: none)
  std::vector<double> unreplicated_counts;  // those runs' calibrated counts
  Evidence ev;
};

Stage2 stage2_of(const TlbContext& T, const TlbLevel& L, std::uint64_t entries) {
  Stage2 s2;
  const TlbRise* r = L.at(L.entry_bytes);
  if (!r) return s2;
  // Baseline: the plateau below the rise, or the run at the reach itself when that is better known
  // (a long stage-2 run). The penalty's own error scales every count alike (it cannot open a set):
  // it is left out here.
  double before = r->before, se_before = r->before_se;
  if (const TlbFootprint* b = T.point(L.alloc, L.entry_bytes, L.reach_lo); b && b->se < se_before)
    before = b->mean, se_before = b->se;
  for (std::uint64_t j = 1;; ++j) {
    const TlbFootprint* p = T.point(L.alloc, L.entry_bytes, L.reach_lo + j * L.entry_bytes);
    if (!p) break;
    const double n = static_cast<double>(entries + j), f = (p->mean - before) / L.penalty;
    s2.se.push_back(n / L.penalty * std::sqrt(p->se * p->se + T.steps.tau * T.steps.tau + se_before * se_before));
    s2.counts.push_back(n * f);
    s2.run_counts.emplace_back();
    for (const auto& [mean, se] : p->runs)
      s2.run_counts.back().emplace_back(n * (mean - before) / L.penalty,
                                        n / L.penalty * std::sqrt(se * se + T.steps.tau * T.steps.tau + se_before * se_before));
    if (!s2.looks_complete && s2.counts.back() + 3 * s2.se.back() >= n) s2.looks_complete = j;
    if (s2.resolved + 1 == j && s2.se.back() <= kCountSe) s2.resolved = j;
    if (!s2.looks_complete || j <= s2.looks_complete) {
      s2.worst_se = std::max(s2.worst_se, s2.se.back());
      s2.floor_se = std::max(s2.floor_se, n / L.penalty * T.steps.tau);
    }
    for (const auto& e : p->evidence) s2.ev.add(e);
    s2.have = j;
  }
  if (s2.resolved == 0) return s2;
  std::vector<double> known(s2.counts.begin(), s2.counts.begin() + static_cast<std::ptrdiff_t>(s2.resolved));
  known = calibrate_tlb_counts(known, s2.counts, s2.se, entries, tlb_height_scatter(L));
  s2.sets = sets_from_counts(known, entries);
  s2.unreplicated = tlb_unreplicated_step(s2.run_counts, s2.counts, s2.se, entries, tlb_height_scatter(L), s2.resolved,
                                          kCountSe, &s2.unreplicated_counts);
  return s2;
}

void write_sets(nlohmann::json& c, const Stage2& s2, std::uint64_t entries, const Evidence& ev) {
  auto null_sets = [&](const std::string& why) {
    for (auto k : {"sets", "ways", "index_bits", "replacement"}) set_null(c, k, why, ev);
  };
  if (s2.have == 0) return null_sets("stage-2 runs (N = reach + j * entry reach) not measured yet (requested)");
  if (!s2.sets.complete && s2.resolved < s2.have)
    return null_sets("stage-2 miss counts per pass resolved up to j=" + std::to_string(s2.resolved) +
                     " only: standard error up to " + std::to_string(round3(s2.worst_se)) +
                     " misses (penalty small for the noise; longer runs requested where they can help)");
  if (!s2.sets.complete)
    return null_sets("stage 2 up to j=" + std::to_string(s2.have) + " has not opened every set (more requested)");
  if (s2.unreplicated) {
    std::string got;
    for (double c : s2.unreplicated_counts) {
      char b[32];
      std::snprintf(b, sizeof b, "%s%.2f", got.empty() ? "" : ", ", c);
      got += b;
    }
    return null_sets("the runs of stage-2 step j=" + std::to_string(s2.unreplicated) + " (" +
                     std::to_string(entries + s2.unreplicated) + " slots) give " + got +
                     " misses per pass once calibrated, each known to " + std::to_string(kCountSe).substr(0, 3) +
                     " on its own, which round to different counts: how the entries split into sets is not "
                     "replicated (the rounds that read them drifted apart)");
  }
  std::uint64_t tw = 0;
  for (int w : s2.sets.ways) tw += static_cast<std::uint64_t>(w);
  const bool ok = tw == entries;
  Evidence e2 = ev;
  e2.add(s2.ev);
  set_value(c, "sets", s2.sets.ways.size(), ok ? 0.9 : 0.5, e2, "miss-count jumps of N = reach + j * entry reach");
  set_value(c, "ways", s2.sets.ways, ok ? 0.9 : 0.5, e2,
            ok ? "per set, in order of opening" : "ways do not add up to the entries: not LRU, or noisy");
  set_value(c, "replacement", ok ? "lru_or_fifo" : "non-lru", ok ? 0.7 : 0.5, e2,
            ok ? "every entry of an overflowed set misses each pass" : "miss counts not explained by LRU sets");
  if (s2.sets.ways.size() == 1) set_value(c, "index_bits", nlohmann::json::array(), 0.8, e2, "fully associative");
  else set_null(c, "index_bits", "TLB set membership is not observable from miss counts", e2);
}

}  // namespace

// Requests that decide what a level still lacks: the entry reach, the reach to one entry, stage 2.
namespace {

// A level whose penalty is only a bound: footprints inside its total reach's bracket at its largest
// own stride (the highest rise), up to 31 a round, until the bracket is one stride wide.
void request_total_reach(TlbContext& T, const TlbLevel& L, const std::string& name) {
  if (!L.onset_hi || !L.s_sat) return;
  const std::uint64_t s = L.s_sat, lo = L.onset_lo / s, hi = (L.onset_hi + s - 1) / s;
  if (hi <= lo + 1) return;
  const std::uint64_t gap = hi - lo;
  for (std::uint64_t k = 1; k < 32 && k < gap; ++k)
    T.request((lo + (gap <= 32 ? k : (gap * k + 16) / 32)) * s, s, L.alloc, name + " total reach");
}

void request_level(TlbContext& T, const TlbLevel& L, const std::string& name, std::uint64_t entries, const Stage2& s2) {
  if (!L.saturated) return request_total_reach(T, L, name);
  if (!L.entry_bytes) {  // full height everywhere: half the stride, around the same bytes
    const TlbRise& r = L.rises.front();
    const std::uint64_t s = r.stride / 2;
    if (s < 128 || L.rises.front().stride != L.s_sat) return;
    for (std::uint64_t b = r.lo / 2 / s * s; b <= 2 * r.hi; b += std::max<std::uint64_t>(s, (2 * r.hi - r.lo / 2) / 12))
      T.request(std::max(b / s * s, s), s, L.alloc, name + " entry reach: half the stride");
    return;
  }
  const std::uint64_t E = L.entry_bytes;
  if (!L.at(E)) {  // no rise at the entry stride yet: sweep it around the bytes of the nearest stride
    const TlbRise& r = L.rises.back();
    for (std::uint64_t m = std::max<std::uint64_t>(2, r.lo / E / 2); m <= 2 * r.hi / E; m += std::max<std::uint64_t>(1, r.hi / E / 8))
      T.request(m * E, E, L.alloc, name + " reach at the entry stride");
    return;
  }
  const std::uint64_t lo = L.reach_lo / E, hi = L.reach_hi / E;
  if (hi > lo + 1) {
    const std::uint64_t gap = hi - lo;
    for (std::uint64_t k = 1; k < 32 && k < gap; ++k)
      T.request((lo + (gap <= 32 ? k : (gap * k + 16) / 32)) * E, E, L.alloc, name + " reach");
    return;
  }
  if (s2.sets.complete) return;
  if (s2.looks_complete && s2.resolved < s2.looks_complete) {
    // The noisy counts already show where every set is open: longer runs up to there (j = 0 is the
    // baseline at the reach), where more accesses can resolve them.
    if (s2.floor_se > 0.8 * kCountSe) return;
    const double f = s2.worst_se / (0.7 * kCountSe);
    std::uint64_t timed = 4096;
    while (timed < 4096 * f * f && timed < (1ull << 20)) timed *= 2;
    for (std::uint64_t j = 0; j <= s2.looks_complete; ++j)
      T.request(L.reach_lo + j * E, E, L.alloc, name + " stage 2: longer runs", timed);
    return;
  }
  std::uint64_t target = 16;
  while (target <= s2.have) target *= 2;
  for (std::uint64_t j = s2.have + 1; j <= std::min(target, std::max<std::uint64_t>(entries, 1)); ++j)
    T.request(L.reach_lo + j * E, E, L.alloc, name + " stage 2");
}

}  // namespace

// The total reach of a level whose penalty is only a bound, where a footprint at the reach itself
// misses only in part: on the H100 the 64 GiB footprint missed 0 to 4.5 % of the full height in
// five back-to-back runs, significant at some strides in four, so the first footprint with misses
// moved between 64 and 76.2 GiB. A first footprint with misses whose pooled share of the full
// height stays below kHeldShare (two standard errors included) is held: the reach is at or just
// below it, and the bracket runs to the next footprint with misses.
namespace {

constexpr double kHeldShare = 0.1;

std::string pct1(double share) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f", 100 * share);
  return b;
}

// Misses at footprint b as a share of each own rise's full height, pooled over the strides (inverse
// variance); false where no own stride measured b.
bool onset_share(const TlbContext& T, const TlbLevel& L, std::uint64_t b, double* share, double* se) {
  double sw = 0, sf = 0;
  for (const auto& r : L.rises) {
    if (r.shared) break;
    if (r.stride > L.s_sat || r.combined || r.height <= 0) continue;
    const TlbFootprint* p = T.point(L.alloc, r.stride, b);
    if (!p) continue;
    const double e = std::max(std::hypot(p->se, r.before_se, T.steps.tau) / r.height, 1e-6);
    sw += 1 / (e * e);
    sf += (p->mean - r.before) / r.height / (e * e);
  }
  if (sw == 0) return false;
  *share = sf / sw;
  *se = std::sqrt(1 / sw);
  return true;
}

void hold_partial_onset(const TlbContext& T, TlbLevel& L) {
  L.onset_held = 0;
  if (!L.onset_hi) return;
  double f = 0, e = 0;
  if (!onset_share(T, L, L.onset_hi, &f, &e) || f + 2 * e >= kHeldShare) return;
  std::uint64_t next = 0;  // the next footprint an own stride measured (inside every own rise's step)
  for (const auto& r : L.rises) {
    if (r.shared) break;
    if (r.stride > L.s_sat) continue;
    if (const TlbSeries* s = T.find(L.alloc, r.stride))
      for (const auto& p : s->points)
        if (p.bytes > L.onset_hi && (!next || p.bytes < next)) next = p.bytes;
  }
  if (!next) return;
  L.onset_held = L.onset_hi;
  L.onset_held_share = f;
  L.onset_hi = next;
}

}  // namespace

// Output: caches.l1_tlb / l2_tlb and the address_translation section.
namespace {

void null_all(nlohmann::json& c, const std::string& why, const Evidence& ev = {}) {
  for (auto k : {"present", "size_bytes", "line_bytes", "page_bytes", "reach_per_entry_bytes", "entries", "sets",
                 "ways", "replacement", "index_bits", "hit_latency_cycles", "miss_penalty_cycles"})
    set_null(c, k, why, ev);
}

// Entries from the reach at the entry stride: exact when narrowed to one entry.
std::uint64_t write_reach(nlohmann::json& c, const TlbLevel& L, const Evidence& ev) {
  const std::uint64_t E = L.entry_bytes;
  if (!E && L.onset_hi) {  // penalty a bound: the reach is where the step begins, the same bytes at every stride
    set_null(c, "entries", "needs the reach of one entry (the penalty is only a bound)", ev);
    const std::uint64_t value = L.onset_held ? L.onset_held : L.onset_lo;
    const std::string held =
        L.onset_held ? "; at " + std::to_string(L.onset_held) + " bytes only " +
                           pct1(L.onset_held_share) + " % of the full height misses (pooled over the own strides, below 10 % with two standard "
                           "errors): the level still holds that footprint, its reach is at or just below it"
                     : "";
    set_value(c, "size_bytes", value, L.onset_agree && !L.onset_held ? 0.5 : 0.4, ev,
              "total reach from where the step begins: no own rise shows misses up to " + std::to_string(L.onset_lo) +
                  " bytes, one does at " + std::to_string(L.onset_hi) + " bytes (every stride that shows the level lies "
                  "below one entry's reach, so the reach is the same footprint at each)" + held +
                  (L.onset_agree || L.onset_held ? "" : "; the rises disagree inside that range (a footprint at the "
                                                        "reach itself misses only in part)") +
                  "; the miss penalty there is only a bound (at least " + std::to_string(std::lround(L.penalty)) +
                  " cycles, heights still doubling with the stride)");
    c["size_bracket_bytes"] = {L.onset_lo, L.onset_hi};
    return 0;
  }
  if (!E || !L.reach_hi) {
    const std::string why = E ? "no rise at the entry stride yet (requested)" : "needs the reach of one entry";
    for (auto k : {"entries", "size_bytes"}) set_null(c, k, why, ev);
    return 0;
  }
  c["reach_bracket_bytes"] = {L.reach_lo, L.reach_hi};
  if (L.reach_hi - L.reach_lo != E) {
    const std::string why = "reach at the entry stride is between " + std::to_string(L.reach_lo / E) + " and " +
                            std::to_string(L.reach_hi / E) + " entries (footprints in between requested)";
    for (auto k : {"entries", "size_bytes"}) set_null(c, k, why, ev);
    return 0;
  }
  const std::uint64_t entries = L.reach_lo / E;
  set_value(c, "entries", entries, 0.9, ev, "largest footprint without misses at the entry stride, in entries");
  set_value(c, "size_bytes", entries * E, 0.9, ev, "total reach: entries x reach of one entry");
  return entries;
}

void write_level(TlbContext& T, nlohmann::json& c, const TlbLevel& L, const PageInfo& pg, const std::string& name) {
  const Evidence ev = tlb_level_evidence(L);
  set_value(c, "present", true, L.saturated || !tlb_rests_on_last_footprints(T.series, T.steps, L) ? 0.9 : 0.5, ev,
            "a latency rise that moves with the stride as one translation level");
  write_tlb_penalty(c, L, T.series, T.steps, ev);
  set_null(c, "hit_latency_cycles", "a TLB hit has no latency of its own (part of every access)");
  if (L.entry_bytes) {
    set_value(c, "reach_per_entry_bytes", L.entry_bytes, 0.85, ev, L.entry_note);
    set_value(c, "line_bytes", L.entry_bytes, 0.85, ev, "one entry's reach: the unit of stage 2");
  } else {
    for (auto k : {"reach_per_entry_bytes", "line_bytes"}) set_null(c, k, L.entry_note, ev);
  }
  if (pg.page) set_value(c, "page_bytes", pg.page, 0.85, pg.ev, pg.note);
  else set_null(c, "page_bytes", pg.note, pg.ev);
  if (pg.at_most) c["page_bytes_at_most"] = pg.at_most;
  if (pg.page && L.entry_bytes)
    set_value(c, "pages_per_entry", L.entry_bytes / pg.page, 0.8, ev, "reach of one entry / page");
  const std::uint64_t entries = write_reach(c, L, ev);
  const Stage2 s2 = entries ? stage2_of(T, L, entries) : Stage2{};
  if (entries) write_sets(c, s2, entries, ev);
  else for (auto k : {"sets", "ways", "index_bits", "replacement"}) set_null(c, k, "needs the entries first", ev);
  request_level(T, L, name, entries, s2);
}

nlohmann::json rise_json(const TlbRise& r) {
  nlohmann::json j = {{"alloc", r.alloc}, {"stride", r.stride}, {"reach_bracket_bytes", {r.lo, r.hi}},
                      {"before_cycles", round3(r.before)}, {"height_cycles", round3(r.height)},
                      {"ci95_cycles", round3(r.ci95)}};
  if (r.combined) j["combined"] = true;  // holds another level's misses too
  return j;
}

nlohmann::json level_json(const TlbLevel& L, const std::string& name) {
  nlohmann::json j = {{"name", name}, {"alloc", L.alloc}, {"saturated", L.saturated},
                      {"full_height_from_stride", L.s_sat}, {"entry_note", L.entry_note}};
  if (!L.mixed.empty()) j["mixed"] = L.mixed;
  if (L.mixed_unresolved) {
    j["miss_penalty_cycles"] = nullptr;
  } else if (L.saturated) {
    j["miss_penalty_cycles"] = round3(L.penalty);
    j["miss_penalty_ci95_cycles"] = round3(L.penalty_ci95);
  } else {  // heights still growing at the largest stride: a bound, not a penalty
    j["miss_penalty_cycles"] = nullptr;
    j["miss_penalty_lower_bound_cycles"] = round3(L.penalty);
  }
  j["reach_per_entry_bytes"] = L.entry_bytes ? nlohmann::json(L.entry_bytes) : nlohmann::json();
  j["reach_bracket_bytes"] = L.reach_hi ? nlohmann::json{L.reach_lo, L.reach_hi} : nlohmann::json();
  if (L.onset_hi) {  // penalty a bound: the total reach from where the step begins
    j["total_reach_bytes"] = L.onset_held ? L.onset_held : L.onset_lo;
    j["total_reach_bracket_bytes"] = {L.onset_lo, L.onset_hi};
    j["total_reach_rises_agree"] = L.onset_agree;
    if (L.onset_held) j["total_reach_held_share"] = round3(L.onset_held_share);
  }
  nlohmann::json rs = nlohmann::json::array();
  for (const auto& r : L.rises) rs.push_back(rise_json(r));
  j["rises"] = rs;
  return j;
}

nlohmann::json coverage_json(const TlbContext& T) {
  nlohmann::json cov = nlohmann::json::object();
  for (const auto& s : T.series) {
    auto& a = cov[s.alloc];
    if (a.is_null()) a = {{"strides", nlohmann::json::array()}, {"max_bytes", 0}, {"footprints", 0}};
    a["strides"].push_back(s.stride);
    a["max_bytes"] = std::max<std::uint64_t>(a["max_bytes"].get<std::uint64_t>(), s.points.back().bytes);
    a["footprints"] = a["footprints"].get<std::size_t>() + s.points.size();
  }
  return cov;
}

}  // namespace

namespace {

// Why a level is missing: what the sweep covered and how small a step it would have seen; after a
// level of entry reach E, how many translations of E a further level must hold (the most slots of
// one footprint at a stride of at least E: each slot in an entry of its own) and how far it reaches.
std::string missing_reason(const TlbContext& T, const std::vector<TlbLevel>& found, const std::string& name) {
  std::uint64_t reach = 0, smin = 0, smax = 0, slots = 0, at = 0;
  const std::uint64_t E = found.empty() ? 0 : found.back().entry_bytes;
  for (const auto& s : T.series)
    if (s.alloc == "malloc") {
      reach = std::max(reach, s.points.back().bytes);
      smin = smin ? std::min(smin, s.stride) : s.stride;
      smax = std::max(smax, s.stride);
      if (E && s.stride >= E && s.points.back().slots > slots) slots = s.points.back().slots, at = s.stride;
    }
  std::string r = "no " + std::string(found.empty() ? "" : "further ") + "translation level within the measured reach of " +
                  std::to_string(reach) + " bytes (" + std::to_string(reach >> 20) + " MiB, strides " + std::to_string(smin) +
                  "-" + std::to_string(smax) + " bytes): " + std::to_string(found.size()) + " level" +
                  (found.size() == 1 ? "" : "s") + " found before " + name + "; a step of " +
                  std::to_string(round3(T.steps.resolution)) + " cycles between two footprints would have been seen";
  if (slots)
    r += "; a further level holds at least " + std::to_string(slots) + " translations of " + std::to_string(E) +
         " bytes (" + std::to_string(slots) + " slots at stride " + std::to_string(at) + ", each in an entry of its own)";
  // The footprints stop at the memory the run found free (measurement.memory): say so where other
  // processes held much of it, so that a short reach is not read as the TLB's.
  const BenchRun& plan = T.ctx.data.runs().front();
  const double total = std::strtod(plan.context_or("global_mem_bytes", "0").c_str(), nullptr);
  const double free = std::strtod(plan.context_or("memory_free_bytes_at_start", "-1").c_str(), nullptr);
  if (total > 0 && free >= 0 && free < 0.9 * total)
    r += "; the reach was limited by the device memory free at the start (" + std::to_string(static_cast<long long>(free) >> 20) +
         " of " + std::to_string(static_cast<long long>(total) >> 20) + " MiB: another process held the rest)";
  return r;
}

// Fewer levels than two: each stride's largest footprint within the device's limit, where the
// plan's footprint grid stopped short of it.
void request_largest(TlbContext& T) {
  if (T.ctx.requests.tlb_limit == 0) return;
  for (const auto& s : T.series)
    if (s.alloc == "malloc") {
      const std::uint64_t top = T.ctx.requests.tlb_limit / s.stride * s.stride;
      if (top > s.points.back().bytes + s.stride) T.request(top, s.stride, s.alloc, "largest footprint");
    }
}

// The smallest rise of a translation level (placement and rejected chains left out).
nlohmann::json smallest_step(const std::vector<const std::vector<TlbLevel>*>& all) {
  const TlbRise* best = nullptr;
  for (const auto* levels : all)
    for (const auto& L : *levels)
      for (const auto& r : L.rises)
        if (!best || r.height < best->height) best = &r;
  return best ? rise_json(*best) : nlohmann::json();
}

}  // namespace

nlohmann::json infer_tlbs(InferContext& ctx, nlohmann::json& caches) {
  TlbContext T = make_context(ctx);
  nlohmann::json at = nlohmann::json::object();
  if (T.series.empty()) {
    for (auto n : kTlbNames) null_all(caches[n], "tlb family not measured (or its entries are missing)");
    at["reason"] = "tlb family not measured";
    return at;
  }
  std::vector<TlbRise> single;
  std::vector<RejectedLevel> rejected;
  const auto levels = keep_translation_levels(link_tlb_levels(T.steps, "malloc", &single), T.steps, &rejected);
  const auto gap_levels = keep_translation_levels(link_tlb_levels(T.steps, "vmm_gap", nullptr), T.steps, &rejected);
  const auto vmm_levels = keep_translation_levels(link_tlb_levels(T.steps, "vmm", nullptr), T.steps, &rejected);
  const PageInfo pg = tlb_page_of(T.ctx.data, levels, gap_levels);
  nlohmann::json lv = nlohmann::json::array(), gl = nlohmann::json::array(), vl = nlohmann::json::array();
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const std::string name = i < 2 ? kTlbNames[i] : "l" + std::to_string(i + 1) + "_tlb";
    nlohmann::json& c = caches[name];
    TlbLevel L = levels[i];
    hold_partial_onset(T, L);
    write_level(T, c, L, pg, name);
    nlohmann::json j = level_json(L, name);
    for (auto k : {"entries", "sets", "ways", "replacement"}) j[k] = c.value(k, nlohmann::json());
    lv.push_back(j);
  }
  for (std::size_t i = levels.size(); i < 2; ++i) null_all(caches[kTlbNames[i]], missing_reason(T, levels, kTlbNames[i]));
  if (levels.size() < 2 || std::any_of(levels.begin(), levels.end(), [&](const TlbLevel& L) {
        return !L.saturated && tlb_rests_on_last_footprints(T.series, T.steps, L);
      }))
    request_largest(T);
  for (std::size_t i = 0; i < gap_levels.size(); ++i) gl.push_back(level_json(gap_levels[i], "level " + std::to_string(i + 1)));
  for (std::size_t i = 0; i < vmm_levels.size(); ++i) vl.push_back(level_json(vmm_levels[i], "level " + std::to_string(i + 1)));
  at["levels"] = lv;
  at["levels_vmm_gap"] = gl;
  if (!vl.empty()) at["levels_vmm"] = vl;
  at["page_bytes"] = pg.page ? nlohmann::json(pg.page) : nlohmann::json();
  at["page_note"] = pg.note;
  at["page_bytes_at_most"] = pg.at_most ? nlohmann::json(pg.at_most) : nlohmann::json();
  at["entry_region_bytes_vmm_gap"] = pg.region_bytes ? nlohmann::json(pg.region_bytes) : nlohmann::json();
  at["vmm_granularity_bytes"] = pg.granularity ? nlohmann::json(pg.granularity) : nlohmann::json();
  at["resolution_cycles"] = round3(T.steps.resolution);
  at["noise_between_footprints_cycles"] = round3(T.steps.tau);
  at["placement_scatter_per_slot_cycles"] = round3(T.steps.placement);
  at["z_crit"] = round3(T.steps.z_crit);
  at["smallest_step"] = smallest_step({&levels, &gap_levels, &vmm_levels});
  nlohmann::json un = nlohmann::json::array();
  for (const auto& r : single) un.push_back(rise_json(r));
  at["unconfirmed_rises"] = un;
  nlohmann::json nt = nlohmann::json::array();
  for (const auto& r : rejected) {
    nlohmann::json j = level_json(r.level, "rejected");
    j["reason"] = r.reason;
    nt.push_back(j);
  }
  at["not_translation"] = nt;
  at["notes"] = T.steps.notes;
  at["coverage"] = coverage_json(T);
  at["lines_per_run"] = T.lines;
  return at;
}

}  // namespace memhier::analysis
