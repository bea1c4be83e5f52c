#include "analysis/cache/sequences/policy.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <unordered_map>

#include "analysis/core/stats.hpp"
#include "common/policy.hpp"

namespace memhier::analysis {

namespace {

// Sequences wholly inside the target's set (line level), short enough to simulate every candidate.
constexpr std::size_t kSimulatedAccesses = 300000;  // per candidate
constexpr std::size_t kRandomAccesses = 40000;      // random: 32 seeded runs each

struct SetSequence {
  std::vector<std::int64_t> lines;  // line ids in access order
  const RanSequence* ran = nullptr;
};

std::vector<SetSequence> set_sequences(const SeqStructure& s) {
  std::vector<SetSequence> out;
  const unsigned lb = s.line_bit;
  std::set<std::uint64_t> in(s.same_set.begin(), s.same_set.end());
  const std::size_t W = s.eviction_set.size();
  for (const auto& r : s.evidence->sequences) {
    if (!r.complete || r.offset.empty() || r.offset.size() > 64 * (W + 2) * (W + 2)) continue;
    SetSequence q;
    q.ran = &r;
    bool ok = true, timed = false;
    for (std::size_t p = 0; p < r.offset.size() && ok; ++p) {
      const std::uint64_t line = r.offset[p] >> lb << lb;
      ok = in.count(line) > 0;
      q.lines.push_back(static_cast<std::int64_t>(line >> lb));
      timed = timed || r.slot[p] != kUntimed;
    }
    if (ok && timed) out.push_back(std::move(q));
  }
  // The most timed first (policy experiments before long eviction tests), within a budget of accesses.
  auto timed_share = [](const SetSequence& q) {
    double n = 0;
    for (auto x : q.ran->slot) n += x != kUntimed;
    return n / static_cast<double>(q.lines.size());
  };
  std::stable_sort(out.begin(), out.end(), [&](auto& a, auto& b) { return timed_share(a) > timed_share(b); });
  std::size_t total = 0, k = 0;
  while (k < out.size() && total + out[k].lines.size() <= kSimulatedAccesses) total += out[k++].lines.size();
  out.resize(k);
  return out;
}

// Misses per slot that per-access miss probabilities predict (miss_count: how many; else whether
// any), and the variance of that count (accesses taken as independent).
std::vector<double> slot_prediction(const RanSequence& r, const std::vector<double>& miss_prob,
                                    std::vector<double>* variance = nullptr) {
  std::vector<double> m(r.records.size(), 0), none(r.records.size(), 1), v(r.records.size(), 0);
  for (std::size_t p = 0; p < r.slot.size(); ++p) {
    const std::uint32_t s = r.slot[p];
    if (s == kUntimed || s >= m.size()) continue;
    m[s] += miss_prob[p];
    v[s] += miss_prob[p] * (1 - miss_prob[p]);
    none[s] *= 1 - miss_prob[p];
  }
  if (r.mode != RecordMode::miss_count)
    for (std::size_t s = 0; s < m.size(); ++s) m[s] = 1 - none[s], v[s] = m[s] * (1 - m[s]);
  if (variance) *variance = v;
  return m;
}

double observed(const RanSequence& r, std::size_t s) {
  return r.mode == RecordMode::miss_count ? r.records[s] : (r.slot_missed[s] ? 1.0 : 0.0);
}

// A deterministic candidate predicts every record, up to spurious misses: noise only adds latency,
// so a record may show more misses than predicted (never fewer), as many as Poisson(noise x timed
// accesses predicted to hit) makes plausible at kNoiseFitAlpha. noise 0: every record exactly.
bool deterministic_fits(const std::string& pol, std::uint32_t W, const std::vector<SetSequence>& seqs, double noise) {
  double excess = 0, hits = 0;
  for (const auto& q : seqs) {
    const auto hit = policy::simulate_set(pol, W, q.lines);
    std::vector<double> mp(hit.size());
    for (std::size_t k = 0; k < hit.size(); ++k) mp[k] = hit[k] ? 0 : 1;
    for (std::size_t k = 0; k < hit.size(); ++k) hits += hit[k] && q.ran->slot[k] != kUntimed ? 1 : 0;
    const auto pred = slot_prediction(*q.ran, mp);
    for (std::size_t s = 0; s < pred.size(); ++s) {
      const double d = observed(*q.ran, s) - pred[s];
      if (d < -0.5) return false;
      if (d > 0.5) excess += d;
    }
  }
  return excess == 0 || (noise > 0 && poisson_upper_tail(excess, noise * hits) >= kNoiseFitAlpha);
}

bool random_fits(std::uint32_t W, const std::vector<SetSequence>& seqs) {
  std::size_t total = 0;
  for (const auto& q : seqs) {
    if ((total += q.lines.size()) > kRandomAccesses) break;
    const auto hp = policy::hit_probability("random", W, q.lines, 32, 1);
    std::vector<double> mp(hp.size());
    for (std::size_t k = 0; k < hp.size(); ++k) mp[k] = 1 - hp[k];
    std::vector<double> var;
    const auto pred = slot_prediction(*q.ran, mp, &var);
    for (std::size_t s = 0; s < pred.size(); ++s) {
      const double e = pred[s], o = observed(*q.ran, s);
      const double sd = std::sqrt(var[s] + 0.25);
      if (std::fabs(o - e) > 4 * sd + 0.5) {
        if (std::getenv("MEMHIER_DEBUG_POLICY"))
          std::fprintf(stderr, "random misfit: slot %zu expected %.2f observed %.0f (%zu accesses, mode %d)\n", s, e, o,
                       q.lines.size(), static_cast<int>(q.ran->mode));
        return false;
      }
    }
  }
  return true;
}

// Hit counts by age: distinct other lines of the set accessed since the line's previous access.
void ages(const std::vector<SetSequence>& seqs, SeqPolicy& out) {
  for (const auto& q : seqs) {
    const RanSequence& r = *q.ran;
    if (r.mode != RecordMode::miss_count) continue;
    // A slot shared by several accesses (repetitions) counts once, at the age of its first access.
    std::unordered_map<std::uint32_t, std::size_t> per_slot;
    for (auto x : r.slot)
      if (x != kUntimed) ++per_slot[x];
    std::unordered_map<std::int64_t, std::size_t> last;
    std::set<std::uint32_t> done;
    for (std::size_t p = 0; p < q.lines.size(); ++p) {
      auto it = last.find(q.lines[p]);
      const std::uint32_t s = r.slot[p];
      if (it != last.end() && s != kUntimed && s < r.records.size() && done.insert(s).second) {
        std::set<std::int64_t> between(q.lines.begin() + static_cast<std::ptrdiff_t>(it->second) + 1,
                                       q.lines.begin() + static_cast<std::ptrdiff_t>(p));
        auto& a = out.age_hits[between.size()];
        a.first += static_cast<double>(per_slot[s]) - r.records[s];
        a.second += static_cast<double>(per_slot[s]);
      }
      last[q.lines[p]] = p;
    }
  }
}

}  // namespace

SeqPolicy analyze_policy(const SeqStructure& s, double noise) {
  SeqPolicy out;
  if (!s.minimal || !s.evidence) {
    out.note = "needs a minimal eviction set";
    return out;
  }
  const auto seqs = set_sequences(s);
  out.sequences = seqs.size();
  for (const auto& q : seqs)
    for (auto x : q.ran->slot) out.timed += x != kUntimed;
  if (seqs.empty()) {
    out.note = "no sequence lies wholly in the eviction set's cache set";
    return out;
  }
  const auto W = static_cast<std::uint32_t>(s.eviction_set.size());
  const auto names = policy::candidate_policies(W);
  out.candidates = names.size();
  for (const auto& n : names) {
    const bool fits = n == "random" ? random_fits(W, seqs) : deterministic_fits(n, W, seqs, noise);
    if (fits) out.consistent.push_back(n);
  }
  ages(seqs, out);
  return out;
}

}  // namespace memhier::analysis
