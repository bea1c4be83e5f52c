// l2_persisting: per benchmark of the l2_persist family (l2_persist/request:S/window:W/ratio:R) the
// bytes of the window that still hit after the co-runner (median over repetitions), against the
// set-aside granted and the window; the window-free control (.../policy:none: no access policy
// window, the lines warmed with normal loads) says whether survival means persistence, and request 0
// with a persisting window against it what the device keeps for persisting lines at a limit of 0.
#include "analysis/l2/persisting_l2.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <tuple>

#include "analysis/core/field.hpp"
#include "analysis/memory/levels_common.hpp"

namespace memhier::analysis {

using json = nlohmann::json;
using namespace levels;

namespace {

std::string mib(double b) { return significant(b / (1024.0 * 1024.0), 4) + " MiB"; }

constexpr double kLine = 128;

// The part of the window the probe's samples came from (bytes from its start). The counter
// probe_span_bytes says it; runs without it (before the samples spanned the whole window) drew
// sample k from block k of floor(lines / samples) lines, so only the first samples x floor(lines /
// samples) lines — the rest of the window was never probed (NaN when accesses/window are absent).
double probe_span(const Point& p, bool* legacy) {
  *legacy = false;
  const double span = p.med("probe_span_bytes");
  if (std::isfinite(span)) return span;
  const double W = p.med("window_bytes"), samples = p.med("accesses");
  if (!std::isfinite(W) || !std::isfinite(samples) || samples <= 0) return NAN;
  *legacy = true;
  const double lines = std::floor(W / kLine);
  return samples * std::floor(lines / samples) * kLine;
}

// The window-free control: no access policy window (policy:none), the window warmed with normal loads.
bool no_window(const Point& p) { return p.text("policy") == "none"; }

// One benchmark's row of by_request; *kept the kept bytes (NaN when not decided).
json request_row(const Point& p, double* kept) {
  const double S = p.med("requested_bytes"), G = p.med("set_aside_bytes"), W = p.med("window_bytes");
  const double R = std::isfinite(p.med("hit_ratio")) ? p.med("hit_ratio") : p.num("ratio") / 100.0;
  json r = {{"benchmark", p.name},
            {"requested_bytes", number_or_null(std::isfinite(S) ? S : static_cast<double>(p.num("request")), 0)},
            {"set_aside_bytes", number_or_null(G, 0)},
            {"window_bytes", number_or_null(std::isfinite(W) ? W : static_cast<double>(p.num("window")), 0)},
            {"hit_ratio", number_or_null(R, 3)},
            {"access_policy_window", !no_window(p)},
            {"hit_latency_cycles", number_or_null(p.med("hit_latency_cycles"))},
            {"miss_latency_cycles", number_or_null(p.med("miss_latency_cycles"))},
            {"threshold_cycles", number_or_null(p.med("threshold_cycles"))}};
  *kept = NAN;
  bool legacy = false;
  const double span = probe_span(p, &legacy);
  if (std::isfinite(span) && std::isfinite(W) && W > 0) {
    r["probe_span_bytes"] = round_to(span, 0);
    if (span < W - kLine)
      r["probe_span_reason"] = "the probe's samples came from the window's first " + significant(100 * span / W, 3) +
                               " % only" + (legacy ? " (a run before the samples spanned the whole window)" : "") +
                               ": kept_bytes extrapolates their hit fraction over the window, and the lines the warm "
                               "pass touched last — those a set-aside smaller than the window keeps — were not probed";
  }
  const double sep = p.lo("separated"), k = p.med("kept_bytes");
  if (!std::isfinite(k) || !std::isfinite(W) || W <= 0) {
    r["kept_bytes"] = nullptr;
    r["kept_reason"] = "the benchmark wrote no kept_bytes / window_bytes counters";
  } else if (!(sep >= 1)) {
    r["kept_bytes"] = nullptr;
    r["kept_reason"] = "the probe's hit references (median " + significant(p.med("ref_hit_latency_cycles"), 4) +
                       " cycles) reached its miss references (median " + significant(p.med("ref_miss_latency_cycles"), 4) +
                       " cycles): the hit 95th percentile was not below the miss 5th percentile, hits are not told from misses";
  } else {
    *kept = k;
    r["kept_bytes"] = round_to(k, 0);
    r["kept_fraction"] = round_to(k / W, 4);
    if (std::isfinite(p.lo("kept_bytes_min")) && std::isfinite(p.hi("kept_bytes_max")))
      r["kept_bytes_range"] = {round_to(p.lo("kept_bytes_min"), 0), round_to(p.hi("kept_bytes_max"), 0)};
    const double expected = std::min(std::isfinite(G) ? G : S, R * W);  // the hardware's promise
    r["kept_of_expected"] = expected > 0 ? json(round_to(k / expected, 3)) : json();
    r["kept_of_granted"] = std::isfinite(G) && G > 0 ? json(round_to(k / G, 3)) : json();
  }
  return r;
}

// Request 0 at the largest window (hitRatio high first) among the window-free controls (no_window
// true) or among the points with a persisting window (false); nullptr when there is none.
const Point* request0_point(const std::vector<Point>& ps, bool without_window) {
  const Point* c = nullptr;
  for (const auto& p : ps)
    if (p.num("request") == 0 && no_window(p) == without_window &&
        (!c || p.num("window") > c->num("window") || (p.num("window") == c->num("window") && p.num("ratio") > c->num("ratio"))))
      c = &p;
  return c;
}

// The control of the survival test: the window-free one; in runs without it (before policy:none),
// request 0 with a persisting window, *legacy true.
const Point* control_point(const std::vector<Point>& ps, bool* legacy) {
  const Point* c = request0_point(ps, true);
  *legacy = !c;
  return c ? c : request0_point(ps, false);
}

// Kept bytes over trials and repetitions: their range (0 where the counters are absent).
double kept_spread(const Point& p) {
  const double lo = p.lo("kept_bytes_min"), hi = p.hi("kept_bytes_max");
  return std::isfinite(lo) && std::isfinite(hi) ? hi - lo : 0;
}

void add_max(const std::vector<BenchRun>& runs, json& s) {
  const double M = context_number(runs, "l2_persisting_max_bytes"), MW = context_number(runs, "access_policy_max_window_bytes");
  if (std::isfinite(M)) set_value(s, "max_bytes", M, 1.0, {}, "persistingL2CacheMaxSize reported by the device (context l2_persisting_max_bytes)");
  else set_null(s, "max_bytes", "the run's context has no l2_persisting_max_bytes");
  s["max_window_bytes"] = number_or_null(MW, 0);
}

// How the driver grants a request: rounding (up, down, exact, mixed) and the step of the grants —
// the largest g dividing every non-zero grant such that rounding each request to a multiple of g
// (in the direction seen) gives its grant, decided only where no finer step g / k (k = 2 ... 64)
// gives them too (a step the data cannot tell from a finer one stays null).
void add_grant(const std::vector<Point>& ps, const std::vector<BenchRun>& runs, json& s) {
  std::vector<std::pair<double, double>> rg;  // (requested, granted) over requests > 0
  std::vector<const Point*> ev;
  for (const auto& p : ps) {
    const double S = p.med("requested_bytes"), G = p.med("set_aside_bytes");
    if (!std::isfinite(S) || !std::isfinite(G) || S <= 0) continue;
    bool seen = false;
    for (const auto& [a, b] : rg) seen = seen || (a == S && b == G);
    if (!seen) rg.emplace_back(S, G);
    ev.push_back(&p);
  }
  if (rg.empty()) {
    set_null(s, "grant_step_bytes", "no benchmark requested a set-aside (request > 0) and read back what was granted");
    return;
  }
  int up = 0, down = 0, exact = 0;
  std::uint64_t g = 0;
  for (const auto& [S, G] : rg) {
    (G > S ? up : G < S ? down : exact) += 1;
    if (G > 0) g = std::gcd(g, static_cast<std::uint64_t>(G));
  }
  const std::string rounding = up && down ? "mixed" : up ? "up" : down ? "down" : "exact";
  s["grant_rounding"] = rounding;
  std::ostringstream pairs;
  for (const auto& [S, G] : rg) pairs << (pairs.tellp() > 0 ? ", " : "") << mib(S) << " -> " << mib(G);
  s["grants"] = json::array();
  for (const auto& [S, G] : rg) s["grants"].push_back({{"requested_bytes", round_to(S, 0)}, {"set_aside_bytes", round_to(G, 0)}});
  if (rounding == "exact" || rounding == "mixed" || g == 0) {
    set_null(s, "grant_step_bytes",
             rounding == "exact" ? "every request was granted as asked (" + pairs.str() + "): no step shows"
                                 : "the grants (" + pairs.str() + ") follow no single rounding direction",
             evidence_of(ev));
    return;
  }
  const bool rounds_up = rounding == "up";
  auto reproduces = [&](double step) {
    for (const auto& [S, G] : rg) {
      const double q = S / step, m = (rounds_up ? std::ceil(q - 1e-9) : std::floor(q + 1e-9)) * step;
      const double M = s["max_bytes"].is_number() ? s["max_bytes"].get<double>() : INFINITY;
      if (std::fabs(std::min(m, M) - G) > 0.5) return false;
    }
    return true;
  };
  const double step = static_cast<double>(g);
  if (!reproduces(step)) {
    set_null(s, "grant_step_bytes",
             "the grants (" + pairs.str() + ") are multiples of " + mib(step) + " but rounding the requests " +
                 rounding + " to it does not give them", evidence_of(ev));
    return;
  }
  for (int k = 2; k <= 64; ++k)
    if (reproduces(step / k)) {
      set_null(s, "grant_step_bytes",
               "rounding " + rounding + " to " + mib(step) + " and to " + mib(step / k) + " both give the grants (" +
                   pairs.str() + "): more requests between the steps would tell",
               evidence_of(ev));
      return;
    }
  set_value(s, "grant_step_bytes", step, up + down >= 2 ? 0.8 : 0.6, evidence_of(ev),
            "every request was granted rounded " + rounding + " to a multiple of " + mib(step) + " (" + pairs.str() +
                "), and no finer step (1/2 ... 1/64 of it) gives these grants");
  const double L2 = context_number(runs, "l2_cache_bytes");
  if (std::isfinite(L2) && L2 > 0) s["grant_step_of_l2"] = round_to(step / L2, 5);
  if (s["max_bytes"].is_number()) s["grant_steps_in_max"] = round_to(s["max_bytes"].get<double>() / step, 3);
}

// The control: the window bytes that survived the co-runner without a set-aside and (unless legacy)
// without an access policy window; its fraction of the window (NaN when not decided).
double add_control(const Point* ctl, bool legacy, json& s) {
  if (!ctl) {
    set_null(s, "control_kept_bytes", "no benchmark with request 0 (the control) measured");
    return NAN;
  }
  s["control_benchmark"] = ctl->name;
  s["control_access_policy_window"] = legacy;
  if (!(ctl->lo("separated") >= 1)) {
    set_null(s, "control_kept_bytes", "the control's hit and miss references overlapped", evidence_of({ctl}));
    return NAN;
  }
  const double f = ctl->med("kept_bytes") / ctl->med("window_bytes");
  set_value(s, "control_kept_bytes", round_to(ctl->med("kept_bytes"), 0), legacy ? 0.5 : 0.8, evidence_of({ctl}),
            legacy ? "window bytes that survived the co-runner at request 0 with a persisting access policy window (a run "
                     "without the window-free control policy:none: a minimum set-aside under the window counts as survival here)"
                   : "window bytes that survived the co-runner without a set-aside and without an access policy window "
                     "(policy:none: the window's lines warmed with normal loads)");
  s["control_kept_fraction"] = round_to(f, 4);
  return f;
}

// What the limit read around a benchmark where it differs from the grant: before the benchmark set
// its own (what the process started with or an earlier benchmark left) and after its trials.
std::string limit_note(const Point& p) {
  const double G = p.med("set_aside_bytes"), before = p.med("limit_before_bytes"), after = p.med("set_aside_after_bytes");
  std::string n;
  if (std::isfinite(before) && before != G) n += "; the limit was " + mib(before) + " before the benchmark set its own";
  if (std::isfinite(after) && after != G) n += "; the limit read " + mib(after) + " after the trials";
  return n;
}

// What request 0 with a persisting window keeps beyond the window-free control at the same window:
// a set-aside the device keeps for persisting lines although the limit reads 0. Decided where both
// told hits from misses; the excess counts where it is above the trials' spread of both and
// kPersistMinimumFloor of the window (else 0: no minimum shows).
void add_minimum_set_aside(const std::vector<Point>& ps, json& s) {
  const Point* w0 = request0_point(ps, false);
  const Point* nw = nullptr;
  for (const auto& p : ps)
    if (w0 && no_window(p) && p.num("request") == 0 && p.num("window") == w0->num("window")) nw = &p;
  if (!w0 || !nw) {
    set_null(s, "minimum_set_aside_bytes",
             !w0 ? "no benchmark asked for request 0 with a persisting access policy window"
                 : "no window-free control (policy:none) at request 0's window of " + mib(w0->med("window_bytes")) +
                       ": what request 0 keeps under a window cannot be told from survival",
             w0 ? evidence_of({w0}) : Evidence{});
    return;
  }
  const double W = w0->med("window_bytes"), kw = w0->med("kept_bytes"), kn = nw->med("kept_bytes");
  s["window_control_kept_bytes"] = w0->lo("separated") >= 1 ? number_or_null(kw, 0) : json();
  if (!(w0->lo("separated") >= 1) || !(nw->lo("separated") >= 1) || !std::isfinite(kw) || !std::isfinite(kn) || !(W > 0)) {
    set_null(s, "minimum_set_aside_bytes", "request 0 with the window or the window-free control told no hits from misses",
             evidence_of({w0, nw}));
    return;
  }
  s["window_control_kept_fraction"] = round_to(kw / W, 4);
  const double excess = kw - kn, noise = std::max(kPersistMinimumFloor * W, kept_spread(*w0) + kept_spread(*nw));
  const double G = w0->med("set_aside_bytes");
  std::ostringstream why;
  why << "request 0 (the limit read back " << (std::isfinite(G) ? mib(G) : std::string("?")) << ") with a persisting access "
      << "policy window of " << mib(W) << " kept " << mib(kw) << " (" << significant(100 * kw / W, 3)
      << " % of it), the window-free control " << mib(kn) << " (" << significant(100 * kn / W, 3) << " %)" << limit_note(*w0);
  if (excess <= noise) {
    why << ": no more than the control (the excess " << mib(excess) << " within " << mib(noise)
        << ", the larger of the trials' spread and " << significant(100 * kPersistMinimumFloor, 2) << " % of the window)";
    set_value(s, "minimum_set_aside_bytes", 0, 0.7, evidence_of({w0, nw}), why.str());
    return;
  }
  why << ": the device keeps " << mib(excess) << " for persisting lines under a window although the limit reads "
      << (std::isfinite(G) ? mib(G) : std::string("?")) << " (a minimum set-aside, or a limit of 0 taken as its smallest step)";
  const double step = s["grant_step_bytes"].is_number() ? s["grant_step_bytes"].get<double>() : NAN;
  if (std::isfinite(step) && step > 0) {
    s["minimum_set_aside_of_step"] = round_to(excess / step, 3);
    why << "; " << significant(excess / step, 3) << " grant step(s) of " << mib(step);
  }
  set_value(s, "minimum_set_aside_bytes", round_to(excess, 0), 0.8, evidence_of({w0, nw}), why.str());
}

// Kept over the maximum where the whole set-aside was asked for with a window of its size.
void add_kept_of_max(const std::vector<Point>& ps, const json& rows, json& s) {
  const double M = s["max_bytes"].is_number() ? s["max_bytes"].get<double>() : NAN;
  s["kept_of_max"] = nullptr;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const json& r = rows[i];
    if (!std::isfinite(M) || !s["largest_kept_bytes"].is_number() || !r["kept_bytes"].is_number() || ps[i].num("ratio") != 100)
      continue;
    const double S = r["requested_bytes"].get<double>(), W = r["window_bytes"].get<double>();
    if (std::fabs(S - M) <= 4096 && std::fabs(W - M) <= 4096) s["kept_of_max"] = round_to(r["kept_bytes"].get<double>() / M, 3);
  }
}

}  // namespace

json persisting_l2_section(const std::vector<BenchRun>& runs) {
  std::vector<Point> ps = points(runs, "l2_persist");
  if (ps.empty()) return json();
  std::stable_sort(ps.begin(), ps.end(), [](const Point& a, const Point& b) {
    return std::make_tuple(a.num("window"), -a.num("ratio"), a.num("request")) <
           std::make_tuple(b.num("window"), -b.num("ratio"), b.num("request"));
  });
  json s = json::object();
  add_max(runs, s);
  json rows = json::array();
  const Point* best = nullptr;
  double best_kept = -1, widest_spread = 0;
  std::vector<double> hit, miss;
  std::vector<const Point*> all;
  for (const auto& p : ps) {
    double k = NAN;
    rows.push_back(request_row(p, &k));
    all.push_back(&p);
    if (std::isfinite(p.med("hit_latency_cycles"))) hit.push_back(p.med("hit_latency_cycles"));
    if (std::isfinite(p.med("miss_latency_cycles"))) miss.push_back(p.med("miss_latency_cycles"));
    if (!std::isfinite(k) || no_window(p)) continue;
    if (k > best_kept) best_kept = k, best = &p;
    if (p.med("window_bytes") > 0 && std::isfinite(p.hi("kept_bytes_max")))
      widest_spread = std::max(widest_spread, (p.hi("kept_bytes_max") - p.lo("kept_bytes_min")) / p.med("window_bytes"));
  }
  s["by_request"] = rows;
  add_grant(ps, runs, s);
  s["probe_hit_latency_cycles"] = number_or_null(median_or_nan(hit));
  s["probe_miss_latency_cycles"] = number_or_null(median_or_nan(miss));
  bool legacy = false;
  const Point* ctl = control_point(ps, &legacy);
  const double ctl_fraction = add_control(ctl, legacy, s);
  add_minimum_set_aside(ps, s);
  if (!best) {
    set_null(s, "largest_kept_bytes", "no benchmark told hits from misses (the probe's references overlapped in every one)",
             evidence_of(all));
  } else if (!std::isfinite(ctl_fraction)) {
    set_null(s, "largest_kept_bytes",
             "without a decided control (request 0) survival cannot be told from persistence", evidence_of(all));
  } else if (ctl_fraction > kPersistControlLimit) {
    set_null(s, "largest_kept_bytes",
             significant(100 * ctl_fraction, 3) + " % of the window survived the co-runner without a set-aside (above " +
                 significant(100 * kPersistControlLimit, 2) + " %): kept bytes measure survival, not persistence" +
                 (legacy ? " (the control was request 0 with a persisting access policy window, a run without the "
                           "window-free control policy:none: a minimum set-aside under the window reads as survival here)"
                         : ""),
             evidence_of(all));
  } else {
    std::ostringstream why;
    why << "most window bytes still hitting after a co-runner of " << mib(best->med("corunner_bytes"))
        << " (median of " << best->samples.at("kept_bytes").size() << " run(s), each the median of its trials), at request "
        << mib(best->med("requested_bytes")) << ", window " << mib(best->med("window_bytes")) << ", hitRatio "
        << significant(best->med("hit_ratio"), 3) << "; the control (" << (legacy ? "request 0 with the window" : "no window")
        << ") kept " << significant(100 * ctl_fraction, 3) << " %";
    bool legacy = false;
    const double span = probe_span(*best, &legacy), W = best->med("window_bytes");
    const bool partial = std::isfinite(span) && span < W - kLine;
    if (partial)
      why << "; the probe sampled the window's first " << significant(100 * span / W, 3)
          << " % only (kept extrapolated over the rest; where the set-aside is smaller than the window, low)";
    set_value(s, "largest_kept_bytes", round_to(best_kept, 0), partial ? 0.5 : widest_spread > 0.1 ? 0.6 : 0.8,
              evidence_of({best, ctl}), why.str());
    s["largest_kept_request_bytes"] = round_to(best->med("requested_bytes"), 0);
    s["largest_kept_window_bytes"] = round_to(best->med("window_bytes"), 0);
    if (std::isfinite(best->lo("kept_bytes_min")) && std::isfinite(best->hi("kept_bytes_max")))
      s["largest_kept_bytes_range"] = {round_to(best->lo("kept_bytes_min"), 0), round_to(best->hi("kept_bytes_max"), 0)};
  }
  add_kept_of_max(ps, rows, s);
  return s;
}

}  // namespace memhier::analysis
