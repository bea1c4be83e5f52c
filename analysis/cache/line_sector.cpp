#include "analysis/cache/line_sector.hpp"

#include "analysis/cache/capacity.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

namespace memhier::analysis {

std::uint64_t measure_fill_granularity(CacheJob& job, std::uint64_t C, std::uint64_t size_hi) {
  // The most common distance between consecutive misses of a stride-4 fine trace above C (003 §4.3).
  std::map<std::uint64_t, double> dist;
  Evidence gev;
  for (auto* c : job.pd.all) {
    if (c->mode != "fine" || c->stride > 8 || c->bytes < std::max(C + 1, size_hi) ||
        (c->carveout != job.primary && c->carveout >= 0 && job.primary >= 0))
      continue;
    const Trace* t = job.data().trace(*c);
    if (!t) continue;
    long long last = -1;
    for (std::size_t k = 0; k < t->latency.size(); ++k) {
      if (t->latency[k] <= job.cl.boundary) continue;
      const long long idx = t->index[k];
      if (last >= 0 && idx > last) dist[(idx - last) * 4] += 1;
      last = idx;
    }
    gev.add(c->name());
  }
  std::uint64_t g = 0;
  double gw = 0, gt = 0;
  for (auto& [dd, w] : dist) {
    gt += w;
    if (w > gw) gw = w, g = dd;
  }
  if (g == 0) {
    set_null(job.cache, "sector_bytes", "no stride-4 fine trace with misses above the cache size", gev);
    set_null(job.cache, "line_bytes", "needs the fill granularity first", gev);
    ChaseWish w{job.path, "fine", 2 * C, 4, 4096, true, job.primary, job.cl.name + " fill granularity"};
    job.ctx.requests.add(w);
    return 0;
  }
  const double gconf = gt > 0 ? gw / gt : 0;
  set_value(job.cache, "sector_bytes", g, 0.5 + 0.45 * gconf, gev,
            "most common distance between consecutive misses of a stride-4 fine trace (fill granularity)");
  return g;
}

namespace {

constexpr std::uint64_t kProbe = 17;

// How many of the stage-2 probes N = base + j*g (j = 1..kProbe) the data hold.
std::uint64_t probes_measured(const CacheJob& job, std::uint64_t base, std::uint64_t g) {
  std::uint64_t n = 0;
  for (std::uint64_t j = 1; j <= kProbe; ++j) n += job.count_run(g, base + j * g) != nullptr;
  return n;
}

// The probe steps j (1..kProbe) whose misses per pass jump by >= 1.5: a new set overflows there.
std::vector<std::uint64_t> overflow_steps(const std::vector<double>& m) {
  std::vector<std::uint64_t> open;
  double prev = 0;
  for (std::uint64_t j = 1; j <= kProbe; ++j) {
    if (m[j - 1] - prev >= 1.5) open.push_back(j);
    prev = m[j - 1];
  }
  return open;
}

// r > 1: one run at stride r*g, N = C + r*g: a line of r*g bytes overflows a set there, g-byte
// lines (only one in r of them touched) do not.
// The run of that stride and footprint with the most timed accesses (the sweep's own run at the
// footprint may hold one pass only).
const Chase* longest_count_run(const CacheJob& job, std::uint64_t stride, std::uint64_t bytes) {
  const Chase* best = nullptr;
  for (auto* c : job.pd.all)
    if (c->stride == stride && c->bytes == bytes && c->warm && c->mode == "count" && job.at_primary(*c) &&
        job.data().trace(*c) && (!best || c->iters > best->iters))
      best = c;
  return best;
}

constexpr std::uint64_t kSectorPasses = 8;  // timed passes of the run that tells sectors from lines

void sector_or_line(CacheJob& job, std::uint64_t C, std::uint64_t g, std::uint64_t r, LineResult& out) {
  const Chase* c = longest_count_run(job, r * g, C + r * g);
  bool short_run = false;
  if (c && job.misses_per_pass(*c) < 1.5 && c->iters < kSectorPasses * c->chain()) {
    double total = 0;
    const double k = weight_above(samples_of(*job.data().trace(*c)), job.cl.boundary, &total);
    short_run = !(k >= 1 && poisson_upper_tail(k, job.noise_per_access * total) < kMissAlpha);
  }
  if (!c || short_run) {
    ChaseWish w{job.path, "count", C + r * g, r * g, kSectorPasses * ((C + r * g + r * g - 1) / (r * g)), true, job.primary,
                job.cl.name + " line: sector or line"};
    job.ctx.requests.add(w);
    out.pending = true;
    out.note = "set overflows every " + std::to_string(r) + " probe steps; the run at stride " +
               std::to_string(r * g) + " that tells sectors from lines is requested" +
               (short_run ? " with " + std::to_string(kSectorPasses) + " passes (the one measured has fewer and no "
                            "misses beyond the noise: a non-LRU set that overflows may miss once in a pass)" : "");
    return;
  }
  out.evidence.add(c->name());
  // g-byte lines: the run touches one line in r, no set overflows, its misses are noise. Lines of r*g
  // bytes: one set holds one line too many; under LRU/FIFO all its lines miss every pass (>= 1.5 per
  // pass), under a random or tree-PLRU set only some (a 16-way random set of 17 lines: ~1 per pass),
  // so misses beyond the noise (Poisson, kMissAlpha) are the overflow too.
  double total = 0;
  const double k = weight_above(samples_of(*job.data().trace(*c)), job.cl.boundary, &total);
  if (job.misses_per_pass(*c) >= 1.5 || (k >= 1 && poisson_upper_tail(k, job.noise_per_access * total) < kMissAlpha)) {
    out.line = r * g;
    out.note = "set overflows every " + std::to_string(r) + " steps of the fill granularity, and N = C + " +
               std::to_string(r * g) + " at that stride overflows a set: lines of " + std::to_string(out.line) +
               " bytes filled in " + std::to_string(g) + "-byte sectors";
  } else {
    out.line = g;
    out.note = "set overflows every " + std::to_string(r) + " steps of the fill granularity, but N = C + " +
               std::to_string(r * g) + " at that stride does not overflow: " + std::to_string(g) +
               "-byte lines whose set index starts above them";
  }
}

}  // namespace

// onset: where misses begin now (the series may have been measured from an earlier reading, C): the
// run that tells sectors from lines must overflow a set by one line, at onset + r*g.
static LineResult probe_line(CacheJob& job, std::uint64_t C, std::uint64_t g, std::uint64_t onset) {
  // Stage-2 probes at the fill granularity, N = C + j*g (j = 1..17, count mode, 8 passes). A new set
  // overflows at the steps whose miss count jumps by more than the one new unit; with lines of r*g
  // bytes filled in g-byte sectors (or g-byte lines whose set index starts r*g up) they come every
  // r steps. r = 1: the line is g.
  LineResult out;
  std::vector<double> m;
  for (std::uint64_t j = 1; j <= kProbe; ++j) {
    const Chase* c = job.count_run(g, C + j * g);
    if (!c) break;
    m.push_back(job.misses_per_pass(*c));
    out.evidence.add(c->name());
  }
  if (m.size() < kProbe) {
    // A series begun is finished first (refinement.cpp: "completing"): a round's budget that took
    // part of it must not leave the rest behind other caches' wishes (the H100's constant L1 got
    // 4, 2 and 10 of its 17 probes in three rounds, and no line).
    const std::string why =
        job.cl.name + " line: stage-2 probe at g" + (probes_measured(job, C, g) > 0 ? " (completing the series)" : "");
    for (std::uint64_t j = 1; j <= kProbe; ++j) {
      const std::uint64_t bytes = C + j * g;
      ChaseWish w{job.path, "count", bytes, g, 8 * ((bytes + g - 1) / g), true, job.primary, why};
      job.ctx.requests.add(w);
    }
    out.pending = true;
    out.note = "stage-2 probes at the fill granularity not measured yet (requested)";
    return out;
  }
  const std::vector<std::uint64_t> open = overflow_steps(m);
  std::uint64_t r = 0;
  for (std::size_t k = 1; k < open.size(); ++k) r = std::gcd(r, open[k] - open[k - 1]);
  if (open.size() < 2) {
    out.note = "fewer than two set overflows in " + std::to_string(kProbe) + " probe steps: line above " +
               std::to_string(kProbe / 2) + " x the fill granularity, not resolved";
  } else if (r == 1) {
    out.line = g;
    out.note = "every probe step at the fill granularity overflows a new set: the line is the fill granularity";
  } else {
    sector_or_line(job, onset, g, r, out);
  }
  return out;
}

// A soft edge moves C between refinement rounds (the constant L1 on an H100 read 1664, 2496 and
// 2272 bytes in one run), and a round's budget may take only part of a series: requested again at
// each new C, no series would ever be complete. So the series with the most probes measured (within
// 4 x 17 probe steps of C; ties: the nearest) serves when complete, and when it has at least half of
// its probes only its missing ones are requested; otherwise the series at C.
LineResult measure_line(CacheJob& job, std::uint64_t C, std::uint64_t g) {
  std::uint64_t base = C, best = g > 0 ? probes_measured(job, C, g) : 0;
  for (std::uint64_t d = 1; g > 0 && best < kProbe && d <= 4 * kProbe; ++d)
    for (std::uint64_t b : {C > d * g ? C - d * g : 0, C + d * g})
      if (b > 0) {
        const std::uint64_t n = probes_measured(job, b, g);
        if (n > best) base = b, best = n;
      }
  if (2 * best < kProbe) base = C;
  LineResult out = probe_line(job, base, g, C);
  if (base != C)
    out.note = "stage-2 series from N = " + std::to_string(base) + " (where the capacity read when it was requested; " +
               std::to_string(C) + " now): " + out.note;
  return out;
}

}  // namespace memhier::analysis
