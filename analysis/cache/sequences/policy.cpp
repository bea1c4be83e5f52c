#include "analysis/cache/sequences/policy.hpp"

#include "analysis/core/parallel.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>

#include "analysis/core/field.hpp"
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
  // At most W distinct lines: no access ever needs a victim, so every policy gives the same outcomes
  // (each line misses at its first access only): `cold` holds them, and no candidate is simulated.
  bool evicts = true;
  std::vector<bool> cold;
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
  for (auto& q : out) {
    std::set<std::int64_t> seen;
    for (auto l : q.lines) q.cold.push_back(!seen.insert(l).second);
    q.evicts = seen.size() > W;
  }
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

// What a deterministic candidate predicts: whether it fits every record, how many records it
// predicts exactly, and its predicted records (every sequence's slots in turn: the signature of its
// class of identical outcomes).
// A record's log-likelihood: of one access, Bernoulli with the predicted miss share kept within
// [1/2R, 1 - 1/2R] (R: runs); of several, normal with variance var + 0.25.
double record_loglik(double o, double e, double var, double accesses, unsigned runs) {
  if (accesses <= 1) {
    const double lo = 0.5 / runs, p = std::min(1 - lo, std::max(lo, e));
    return std::log(o > 0.5 ? p : 1 - p);
  }
  const double v = var + 0.25;
  return -0.5 * (o - e) * (o - e) / v - 0.5 * std::log(v);
}

struct DetResult {
  bool fits = true;
  std::size_t predicted = 0;
  std::vector<double> records;
  double loglik = 0;  // the records' log-likelihood (record_loglik, variance 0, R = 32)
};

// A deterministic candidate predicts every record, up to spurious misses: noise only adds latency,
// so a record may show more misses than predicted (never fewer), as many as Poisson(noise x timed
// accesses predicted to hit) makes plausible at kNoiseFitAlpha. noise 0: every record exactly.
// full: every sequence is simulated even after a misfit (to count the records predicted).
DetResult deterministic_eval(const std::string& pol, std::uint32_t W, const std::vector<SetSequence>& seqs,
                             double noise, bool full) {
  DetResult r;
  double excess = 0, hits = 0;
  for (const auto& q : seqs) {
    const auto hit = q.evicts ? policy::simulate_set(pol, W, q.lines) : q.cold;  // outcome equivalence
    std::vector<double> mp(hit.size());
    for (std::size_t k = 0; k < hit.size(); ++k) mp[k] = hit[k] ? 0 : 1;
    for (std::size_t k = 0; k < hit.size(); ++k) hits += hit[k] && q.ran->slot[k] != kUntimed ? 1 : 0;
    const auto pred = slot_prediction(*q.ran, mp);
    std::vector<double> per_slot(pred.size(), 0);
    for (auto x : q.ran->slot)
      if (x != kUntimed && x < per_slot.size()) ++per_slot[x];
    for (std::size_t s = 0; s < pred.size(); ++s) {
      const double d = observed(*q.ran, s) - pred[s];
      r.loglik += record_loglik(observed(*q.ran, s), pred[s], 0, q.ran->mode == RecordMode::miss_count ? per_slot[s] : 1, 32);
      if (std::fabs(d) < 0.5) ++r.predicted;
      else if (std::getenv("MEMHIER_DEBUG_POLICY") && pol == std::getenv("MEMHIER_DEBUG_POLICY")) {
        std::fprintf(stderr, "%s: slot %zu predicted %.0f observed %.0f; lines", pol.c_str(), s, pred[s], observed(*q.ran, s));
        for (std::size_t k = 0; k < q.lines.size(); ++k)
          std::fprintf(stderr, " %lld%s%s", static_cast<long long>(q.lines[k] % 100000), q.ran->slot[k] == s ? "*" : "",
                       q.ran->slot[k] == kUntimed ? "" : (hit[k] ? "h" : "m"));
        std::fprintf(stderr, " (mode %d)\n", static_cast<int>(q.ran->mode));
      }
      if (d < -0.5) r.fits = false;
      if (d > 0.5) excess += d;
    }
    if (!r.fits && !full) return r;
    r.records.insert(r.records.end(), pred.begin(), pred.end());
  }
  r.fits = r.fits && (excess == 0 || (noise > 0 && poisson_upper_tail(excess, noise * hits) >= kNoiseFitAlpha));
  return r;
}

// A randomized candidate (random: 32 seeded runs; brrip: 128): every record within 4 standard
// deviations (+0.5) of its expected misses. brrip also: where every run agrees on a record, the
// records that differ are no more than outcomes rarer than 1 in the runs (plus the noise) explain.
// loglik: the records' log-likelihood under the candidate (a record of one access: Bernoulli with
// the runs' miss share, kept within [1/2R, 1 - 1/2R]; of several: normal with variance + 0.25).
struct StochasticFit {
  bool fits = true;
  double loglik = 0;
};


// Records binned by their predicted miss share: a candidate's expected misses must match the
// observed ones per bin (a calibration test). Per record alone a single access always lies within
// 4 standard deviations, so records of one access each (the L2's policy sequences) test nothing
// one by one; summed over a bin, a policy that predicts the wrong accesses is rejected.
struct CalibrationBins {
  static constexpr int kBins = 5;  // predicted miss share [0, .05) [.05, .25) [.25, .75) [.75, .95) [.95, 1]
  double observed[kBins] = {}, expected[kBins] = {}, variance[kBins] = {}, accesses[kBins] = {};
  // e_bin places the record (the candidate's runs), e_exp is its expectation from runs of their
  // own (`runs` of them, kept within [1/2R, 1 - 1/2R]): a record placed by one noisy estimate and
  // judged by the same would regress towards the middle bins.
  void add(double o, double e_bin, double e_exp, double n, unsigned runs) {
    const double share = n > 0 ? e_bin / n : 0, lo = 0.5 / runs;
    const double p = std::min(1 - lo, std::max(lo, n > 0 ? e_exp / n : 0));
    const int b = share < 0.05 ? 0 : share < 0.25 ? 1 : share < 0.75 ? 2 : share < 0.95 ? 3 : 4;
    observed[b] += o, expected[b] += n * p, accesses[b] += n, variance[b] += n * p * (1 - p);
  }
  // Every bin within 4 standard deviations + 1 of its expected misses (excess misses the noise explains allowed).
  bool fits(double noise) const {
    for (int b = 0; b < kBins; ++b) {
      double d = observed[b] - expected[b];
      if (d > 0) d = std::max(0.0, d - noise * (accesses[b] - expected[b]));
      if (std::getenv("MEMHIER_DEBUG_POLICY"))
        std::fprintf(stderr, "bin %d: observed %.1f expected %.1f variance %.1f accesses %.0f\n", b, observed[b], expected[b],
                     variance[b], accesses[b]);
      if (std::fabs(d) > 4 * std::sqrt(variance[b]) + 1) return false;
    }
    return true;
  }
};

StochasticFit stochastic_fits(const std::string& pol, std::uint32_t W, const std::vector<SetSequence>& seqs,
                              double noise) {
  const bool uniform = pol == "random";
  const unsigned runs = uniform ? 32 : 128;
  std::size_t total = 0;
  double surprises = 0, certain = 0;
  CalibrationBins bins;
  StochasticFit f;
  for (const auto& q : seqs) {  // within the budget: a sequence too long for what is left is passed over
    if (total + q.lines.size() > kRandomAccesses) continue;
    total += q.lines.size();
    const auto hp = policy::hit_probability(pol, W, q.lines, runs, 1);
    std::vector<double> mp(hp.size()), per_slot(q.ran->records.size(), 0);
    for (std::size_t k = 0; k < hp.size(); ++k) mp[k] = 1 - hp[k];
    for (auto x : q.ran->slot)
      if (x != kUntimed && x < per_slot.size()) ++per_slot[x];
    std::vector<double> var;
    const auto pred = slot_prediction(*q.ran, mp, &var);
    // The calibration's expectations: 8 x the runs, seeds of their own.
    const auto hp8 = policy::hit_probability(pol, W, q.lines, 8 * runs, 1 + runs);
    std::vector<double> mp8(hp8.size());
    for (std::size_t k = 0; k < hp8.size(); ++k) mp8[k] = 1 - hp8[k];
    const auto pred8 = slot_prediction(*q.ran, mp8);
    for (std::size_t s = 0; s < pred.size(); ++s) {
      const double e = pred[s], o = observed(*q.ran, s);
      const double n = q.ran->mode == RecordMode::miss_count ? per_slot[s] : 1;
      f.loglik += record_loglik(o, e, var[s], n, runs);
      if (uniform || var[s] > 0) bins.add(o, e, pred8[s], n, 8 * runs);
      if (!uniform && var[s] == 0) {
        certain += per_slot[s];
        surprises += std::fabs(o - e) > 0.5 ? std::fabs(o - e) : 0;
        continue;
      }
      if (f.fits && std::fabs(o - e) > 4 * std::sqrt(var[s] + 0.25) + 0.5) {
        if (std::getenv("MEMHIER_DEBUG_POLICY"))
          std::fprintf(stderr, "%s misfit: slot %zu expected %.2f observed %.0f (%zu accesses, mode %d)\n", pol.c_str(),
                       s, e, o, q.lines.size(), static_cast<int>(q.ran->mode));
        f.fits = false;
      }
    }
  }
  if (std::getenv("MEMHIER_DEBUG_POLICY"))
    std::fprintf(stderr, "%s: %zu of %zu accesses examined, %.0f in records all runs agree on\n", pol.c_str(), total,
                 [&] { std::size_t t = 0; for (const auto& q : seqs) t += q.lines.size(); return t; }(), certain);
  if (f.fits && !bins.fits(noise)) {
    if (std::getenv("MEMHIER_DEBUG_POLICY")) std::fprintf(stderr, "%s misfit: the binned expected misses\n", pol.c_str());
    f.fits = false;
  }
  f.fits = f.fits && (surprises == 0 || poisson_upper_tail(surprises, certain / runs + noise * certain) >= kNoiseFitAlpha);
  return f;
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

namespace {

// None consistent: the deterministic candidates that predict the most records (stable: candidate order).
void nearest_candidates(const std::vector<std::string>& names, std::uint32_t W, const std::vector<SetSequence>& seqs,
                        SeqPolicy& out) {
  std::vector<std::pair<std::string, std::size_t>> all;
  for (const auto& n : names)
    if (policy::policy_is_deterministic(n)) all.push_back({n, 0});
  parallel_for(all.size(), [&](std::size_t i) { all[i].second = deterministic_eval(all[i].first, W, seqs, 0, true).predicted; });
  std::stable_sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.second > b.second; });
  if (all.size() > kListedPolicies) all.resize(kListedPolicies);
  out.nearest = all;
}

void classify(const std::vector<std::string>& names, std::uint32_t W, const std::vector<SetSequence>& seqs,
              double noise, SeqPolicy& out) {
  std::map<std::vector<double>, std::size_t> class_of;
  std::vector<std::pair<std::string, double>> fitting;  // randomized candidates that fit: log-likelihood
  double best = -1e300;                                 // the best log-likelihood of any consistent candidate
  // Each candidate simulated on its own thread (each writes its own slot), then taken in candidate
  // order: the result does not depend on the threads (analysis/core/parallel.hpp).
  std::vector<DetResult> det(names.size());
  std::vector<StochasticFit> sto(names.size());
  parallel_for(names.size(), [&](std::size_t i) {
    const std::string& n = names[i];
    if (policy::policy_is_deterministic(n)) det[i] = deterministic_eval(n, W, seqs, noise, n == "lru" || n == "fifo");
    else sto[i] = stochastic_fits(n, W, seqs, noise);
  });
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    if (!policy::policy_is_deterministic(n)) {
      const StochasticFit& f = sto[i];
      if (f.fits) fitting.push_back({n, f.loglik});
      if (std::getenv("MEMHIER_DEBUG_POLICY"))
        std::fprintf(stderr, "%s: fits %d log-likelihood %.2f\n", n.c_str(), f.fits ? 1 : 0, f.loglik);
      continue;
    }
    const bool gpgpusim = n == "lru" || n == "fifo";
    const DetResult& r = det[i];
    if (gpgpusim) out.gpgpusim.push_back({n, r.predicted});
    if (!r.fits) continue;
    best = std::max(best, r.loglik);
    auto [it, fresh] = class_of.emplace(r.records, out.classes.size());
    if (fresh) out.classes.emplace_back();
    out.classes[it->second].push_back(n);
  }
  for (const auto& c : out.classes) {
    out.consistent_total += c.size();
    out.consistent.push_back(c.front());
  }
  // A randomized candidate whose records are 1/kNoiseFitAlpha times less likely than another
  // consistent candidate's (randomized or deterministic) is dropped (a likelihood ratio): records
  // of one access each lie within any randomized candidate's spread one by one.
  for (const auto& [n, ll] : fitting) best = std::max(best, ll);
  std::vector<std::string> stochastic;
  for (const auto& [n, ll] : fitting)
    if (ll >= best + std::log(kNoiseFitAlpha)) stochastic.push_back(n);
  out.consistent_total += stochastic.size();
  out.consistent.insert(out.consistent.end(), stochastic.begin(), stochastic.end());
  if (out.consistent.size() > kListedPolicies) out.consistent.resize(kListedPolicies);
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
  const auto names = policy::candidates_in_decision_order(W);
  out.candidates = names.size();
  for (const auto& q : seqs) out.records += q.ran->records.size();
  classify(names, W, seqs, noise, out);
  if (out.consistent_total == 0) nearest_candidates(names, W, seqs, out);
  ages(seqs, out);
  return out;
}

namespace {

constexpr std::size_t kClassMembers = 32;  // members written per class

double share(std::size_t k, std::size_t n) { return n ? std::round(1000.0 * k / n) / 1000 : 0; }

// How near LRU and FIFO (the policies GPGPU-Sim can express) come: the share of records each predicts.
void write_gpgpusim(nlohmann::json& c, const SeqPolicy& p) {
  if (p.gpgpusim.empty() || p.records == 0) return;
  nlohmann::json pred = nlohmann::json::object();
  std::string nearest;
  std::size_t best = 0;
  for (const auto& [n, k] : p.gpgpusim) {
    pred[n] = share(k, p.records);
    if (nearest.empty() || k > best) nearest = n, best = k;
    else if (k == best) nearest += "_or_" + n;
  }
  c["replacement_gpgpusim"] = {{"nearest", nearest}, {"records", p.records}, {"predicted_fraction", pred}};
}

nlohmann::json names_json(const std::vector<std::string>& v) {
  std::vector<std::string> l(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), kListedPolicies)));
  return l.size() == 1 ? nlohmann::json(l.front()) : nlohmann::json(l);
}

// None consistent: the hit probability by age and the candidates that come nearest.
void write_none(nlohmann::json& c, const SeqPolicy& p, const Evidence& ev, const std::string& base, bool pchase) {
  nlohmann::json ages = nlohmann::json::object();
  for (auto& [a, hn] : p.age_hits)
    if (hn.second > 0) ages[std::to_string(a)] = std::round(hn.first / hn.second * 1000) / 1000;
  c["hit_probability_by_age"] = ages;
  nlohmann::json near = nlohmann::json::array();
  for (const auto& [n, k] : p.nearest) near.push_back({{"policy", n}, {"predicted_fraction", share(k, p.records)}});
  c["replacement_nearest"] = near;
  if (!pchase)
    set_value(c, "replacement", "none of the known policies", 0.6, ev,
              base + ": none predicts every record; hit_probability_by_age: hits per timed access by the "
              "distinct lines of the set accessed since the line's previous access; replacement_nearest: the "
              "deterministic candidates that predict the most records");
}

}  // namespace

void write_seq_replacement(CacheJob& job, const SeqStructure& s, const SeqPolicy& p) {
  write_seq_replacement(job.cache, s, p);
}

void write_seq_replacement(nlohmann::json& c, const SeqStructure& s, const SeqPolicy& p) {
  Evidence ev;
  ev.add(s.benchmark);
  const std::string base = std::to_string(p.sequences) + " sequences in the eviction set's cache set (" +
                           std::to_string(p.timed) + " timed accesses, " + std::to_string(p.records) +
                           " records) simulated under " + std::to_string(p.candidates) +
                           " candidate policies with " + std::to_string(s.eviction_set.size()) + " ways";
  write_gpgpusim(c, p);
  const bool pchase = has_value(c, "replacement");
  if (p.consistent_total == 0) return write_none(c, p, ev, base, pchase);
  const std::size_t classes = p.classes.size() + (p.consistent.size() > p.classes.size() ? p.consistent.size() - p.classes.size() : 0);
  const bool one_class = p.classes.size() == 1 && classes == 1;
  const nlohmann::json v = one_class ? names_json(p.classes.front()) : names_json(p.consistent);
  const std::size_t listed = v.is_array() ? v.size() : 1;
  nlohmann::json members = nlohmann::json::array();
  for (const auto& k : p.classes) {
    std::vector<std::string> m(k.begin(), k.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(k.size(), kClassMembers)));
    members.push_back(m);
  }
  c["replacement_consistent"] = {{"policies", p.consistent_total}, {"classes", classes}, {"listed", listed},
                                 {"candidates", p.candidates}, {"class_members", members}};
  const std::string what = std::to_string(p.consistent_total) + " consistent candidate(s) in " +
                           std::to_string(classes) + " class(es) of identical predicted records" +
                           (one_class ? "" : "; one name per class") +
                           (listed < (one_class ? p.consistent_total : classes) ? ", the first " + std::to_string(listed) + " listed" : "");
  if (!p.classes.empty()) return set_value(c, "replacement", v, one_class ? 0.85 : 0.7, ev, base + ": " + what);
  if (!pchase) set_value(c, "replacement", v, 0.75, ev, base + ": only randomized policies are consistent: " + what);
}

}  // namespace memhier::analysis
