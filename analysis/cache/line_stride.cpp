#include "analysis/cache/line_stride.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace memhier::analysis {

namespace {

double unit_ratio(std::uint64_t s, std::uint64_t b) { return std::max(1.0, static_cast<double>(s) / static_cast<double>(b)); }

// The edge shift line b predicts at stride s against the sweep stride s0: exact while s <= 3 b (the
// lines touched spread over every set); beyond, only "at least the shift at 3 b" (a bit index may
// leave sets unused). A sweep stride above the line by a power of two (the L2's 128 B against
// 64-byte lines) touches every (s0/b)-th line: an index that spreads them fills at C s0/b, a bit
// index uses 1/(s0/b) of its sets and fills at C; both hypotheses are predictions of b.
struct Prediction {
  double ratio;
  bool exact;
};
std::vector<Prediction> predict(std::uint64_t s, std::uint64_t s0, std::uint64_t b) {
  const Prediction p = s <= 3 * b ? Prediction{unit_ratio(s, b), true} : Prediction{unit_ratio(3 * b, b), false};
  std::vector<Prediction> out = {{p.ratio / unit_ratio(s0, b), p.exact}};
  if (s0 > b && s0 % b == 0 && ((s0 / b) & (s0 / b - 1)) == 0) out.push_back({p.ratio, p.exact});
  return out;
}

// The footprint multipliers to measure at stride s: geometric midpoints between the distinct
// predicted shifts of the candidates.
std::vector<double> midpoints(std::uint64_t s, std::uint64_t s0, std::uint64_t g) {
  std::set<double> r;
  for (int j = 0; j <= kShiftCandidates; ++j)  // j = kShiftCandidates: lines above the candidates
    for (const auto& p : predict(s, s0, g << j)) r.insert(p.ratio);
  std::vector<double> v(r.begin(), r.end()), m;
  for (std::size_t i = 1; i < v.size(); ++i) m.push_back(std::sqrt(v[i - 1] * v[i]));
  return m;
}

// A run measured for an earlier estimate of the edge still serves when its footprint is within
// kReuse of the one wanted now (the 50 % point moves a little as the sweep is refined); its own
// footprint then decides.
constexpr double kReuse = 0.05, kEdgeMargin = 0.07;
const Chase* nearest_run(const CacheJob& job, std::uint64_t stride, std::uint64_t bytes) {
  const Chase* best = nullptr;
  for (auto* c : job.pd.all)
    if (c->stride == stride && c->warm && c->mode == "count" && job.at_primary(*c) && job.data().trace(*c) &&
        std::fabs(static_cast<double>(c->bytes) / static_cast<double>(bytes) - 1) <= kReuse &&
        (!best || std::llabs(static_cast<long long>(c->bytes) - static_cast<long long>(bytes)) <
                      std::llabs(static_cast<long long>(best->bytes) - static_cast<long long>(bytes))))
      best = c;
  return best;
}

struct Probe {
  std::uint64_t stride = 0, bytes = 0;
  double mult = 0;
  const Chase* run = nullptr;
  bool above = false;  // the edge lies above the footprint (miss rate below half the plateau)
};

// The candidate lines g 2^j (j = 0..kShiftCandidates, the last standing for "above") whose
// predictions, under some hypothesis of the sweep stride, every run agrees with.
std::vector<std::uint64_t> fitting_lines(const std::vector<Probe>& probes, std::uint64_t s0, std::uint64_t g) {
  std::vector<std::uint64_t> fits;
  for (int j = 0; j <= kShiftCandidates; ++j) {
    const std::uint64_t b = g << j;
    bool any = false;
    for (std::size_t h = 0; h < predict(s0, s0, b).size(); ++h) {  // each hypothesis of the sweep stride
      bool ok = true;
      for (const auto& p : probes) {
        if (!p.run) continue;
        const auto prs = predict(p.stride, s0, b);
        const Prediction pr = prs[std::min(h, prs.size() - 1)];
        // A run too close to a predicted edge tells nothing about that candidate.
        if (std::fabs(std::log(p.mult / pr.ratio)) < kEdgeMargin) continue;
        if (pr.exact || p.mult < pr.ratio) ok = ok && (pr.ratio > p.mult) == p.above;
      }
      any = any || ok;
    }
    if (any) fits.push_back(b);
  }
  return fits;
}

}  // namespace

LineResult line_from_stride_shift(CacheJob& job, const Capacity& cap, std::uint64_t g) {
  LineResult out;
  const HalfPoint& h = cap.half;
  const std::uint64_t s0 = cap.onset.stride;
  if (h.state != HalfPoint::State::found || g == 0 || s0 == 0) {
    out.note = "edge shift: needs the 50 % point at the sweep stride and the fill granularity";
    return out;
  }
  std::vector<Probe> probes;
  for (int k = 0; k < kShiftStrides; ++k) {
    const std::uint64_t s = 3 * (g << k) / 2 / 4 * 4;
    for (double m : midpoints(s, s0, g)) {
      Probe p;
      p.stride = s;
      p.mult = m;
      p.bytes = std::max<std::uint64_t>(s, static_cast<std::uint64_t>(static_cast<double>(h.bytes) * m) / s * s);
      p.run = nearest_run(job, s, p.bytes);
      if (p.run) p.bytes = p.run->bytes, p.mult = static_cast<double>(p.bytes) / static_cast<double>(h.bytes);
      probes.push_back(p);
    }
  }
  bool missing = false;
  for (auto& p : probes) {
    if (p.run) continue;
    ChaseWish w{job.path, "count", p.bytes, p.stride, std::min<std::uint64_t>((p.bytes + p.stride - 1) / p.stride, 1u << 16),
                true, job.primary, job.cl.name + " line: edge shift with stride"};
    missing = job.ctx.requests.add(w) || missing;
  }
  if (missing) {
    out.pending = true;
    out.note = "edge shift: runs at strides 1.5 g 2^k requested";
    return out;
  }
  // Plateau at stride s: the sweep's, scaled by the fill units an access touches (s / g below g).
  auto plateau = [&](std::uint64_t s) {
    return h.plateau * std::min(1.0, static_cast<double>(s) / g) / std::min(1.0, static_cast<double>(s0) / g);
  };
  std::string table;
  for (auto& p : probes) {
    if (!p.run) continue;
    p.above = job.miss_fraction(*p.run) < plateau(p.stride) / 2;
    out.evidence.add(p.run->name());
    table += " s=" + std::to_string(p.stride) + " x" + std::to_string(p.mult).substr(0, 4) + (p.above ? ":<half" : ":>half");
  }
  const std::vector<std::uint64_t> fits = fitting_lines(probes, s0, g);
  const std::string what = "edge shift with stride (the 50 % point of stride-s chases against " +
                           std::to_string(h.bytes) + " bytes at s=" + std::to_string(s0) + "; runs at 1.5 g 2^k:" + table + ")";
  if (fits.size() == 1 && fits.front() < (g << kShiftCandidates)) {
    out.line = fits.front();
    out.note = what + ": only lines of " + std::to_string(out.line) + " bytes predict every run";
  } else if (fits.size() == 1) {
    out.note = what + ": lines above " + std::to_string(g << (kShiftCandidates - 1)) + " bytes (beyond the strides measured)";
  } else {
    out.note = what + ": " + (fits.empty() ? std::string("no candidate line predicts every run")
                                           : std::to_string(fits.size()) + " candidate lines predict every run");
  }
  return out;
}

}  // namespace memhier::analysis
