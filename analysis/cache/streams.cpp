#include "analysis/cache/streams.hpp"

#include <fstream>

#include "common/streams.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "analysis/cache/job.hpp"
#include "analysis/core/parallel.hpp"
#include "analysis/gate/analyzer.hpp"
#include "common/policy.hpp"

namespace memhier::analysis {

namespace {

const std::set<std::string>& variants() {
  static const std::set<std::string> v = {"fresh", "reread1", "reread2", "mid", "two_ages", "restream"};
  return v;
}

// Arrivals beyond which a Binomial(k, q) has less than this left.
constexpr double kTail = 1e-9;
// Stream arrivals between two runs of a chain (times the ways): the set's state is the stream's.
constexpr std::uint32_t kGapPerWay = 2;
// Arrivals that warm a chain's empty set first (times the ways).
constexpr std::uint32_t kWarmPerWay = 16;

// Binomial(k, q) probabilities of 0..n where n is the smallest with an upper tail below kTail.
std::vector<double> binomial_pmf(std::uint64_t k, double q) {
  std::vector<double> out;
  const double lq = std::log(q), l1q = std::log1p(-q), lk = std::lgamma(static_cast<double>(k) + 1);
  double cum = 0;
  for (std::uint64_t n = 0; n <= k; ++n) {
    const double x = static_cast<double>(n);
    const double p = q >= 1 ? (n == k ? 1.0 : 0.0)
                            : std::exp(lk - std::lgamma(x + 1) - std::lgamma(static_cast<double>(k - n) + 1) + x * lq +
                                       static_cast<double>(k - n) * l1q);
    out.push_back(p);
    cum += p;
    if (1 - cum < kTail && x >= static_cast<double>(k) * q) break;
  }
  return out;
}
// tail[e] = P(N >= e) for e = 0..pmf.size() (the last one 0).
std::vector<double> upper_tails(const std::vector<double>& pmf) {
  std::vector<double> t(pmf.size() + 1, 0);
  for (std::size_t e = pmf.size(); e-- > 0;) t[e] = t[e + 1] + pmf[e];
  return t;
}
// A draw from the distribution pmf (its rounding remainder goes to the last value).
std::size_t draw(const std::vector<double>& pmf, double u) {
  for (std::size_t n = 0; n < pmf.size(); ++n) {
    if (u < pmf[n]) return n;
    u -= pmf[n];
  }
  return pmf.size() - 1;
}

std::uint64_t fnv(const std::string& s, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// One set of W ways: which line each way holds, the policy's state, the chain's generator.
class OneSet {
 public:
  OneSet(const std::string& pol, std::uint32_t ways, std::uint64_t seed) : line_(ways, kEmpty), rng_(seed) {
    policy::RandomParams rp;
    rp.seed = policy::splitmix64_mix(seed ^ 0x5eedull);
    pol_ = policy::make_policy(pol, ways, rp);
  }
  // The pool share of the set's stream (lines); a new share warms the set with 16 W + 4 L arrivals
  // (every line of the share about 4 times: the state a long stream leaves, hits and promotions
  // included, e.g. SLRU's protected segment full).
  void use_pool(std::uint64_t pool_lines) {
    pool_lines = std::max<std::uint64_t>(1, pool_lines);
    if (pool_lines == pool_) return;
    pool_ = pool_lines;
    const std::uint64_t warm = kWarmPerWay * line_.size() + 4 * std::min<std::uint64_t>(pool_, 1u << 16);
    for (std::uint64_t i = 0; i < warm; ++i) arrival();
  }
  int way_of(std::int64_t id) const {
    for (std::size_t w = 0; w < line_.size(); ++w)
      if (line_[w] == id) return static_cast<int>(w);
    return -1;
  }
  bool present(std::int64_t id) const { return way_of(id) >= 0; }
  bool access(std::int64_t id) { return fill(id) < 0; }
  // The way a miss of `id` filled, or -1 for a hit.
  int fill(std::int64_t id) {
    const int w = way_of(id);
    if (w >= 0) {
      pol_->on_hit(static_cast<std::uint32_t>(w));
      return -1;
    }
    const std::uint32_t v = pol_->victim();
    line_[v] = id;
    pol_->on_fill(v);
    return static_cast<int>(v);
  }
  // The way a miss would fill now (random: one draw of the generator).
  std::uint32_t victim() { return pol_->victim(); }
  // One stream line; true when it took way `way` (-1: none watched).
  bool arrival(int way = -1) { return fill(stream_line()) == way && way >= 0; }
  // A line of the set's pool share, drawn as an arrival draws it.
  std::int64_t stream_line() { return static_cast<std::int64_t>(rng_.next() % pool_); }
  // n such lines (restream reads them, its target, then them again).
  std::vector<std::int64_t> stream_lines(std::size_t n) {
    std::vector<std::int64_t> ids(n);
    for (auto& x : ids) x = stream_line();
    return ids;
  }
  void access_all(const std::vector<std::int64_t>& ids) {
    for (auto x : ids) access(x);
  }
  void gap() {
    for (std::size_t i = 0; i < kGapPerWay * line_.size(); ++i) arrival();
  }
  // Empty, as a launch that invalidates the cache leaves it; stream lines from a share of pool_lines.
  void restart(std::uint64_t pool_lines) {
    std::fill(line_.begin(), line_.end(), kEmpty);
    pol_->reset(static_cast<std::uint32_t>(line_.size()));
    pool_ = std::max<std::uint64_t>(1, pool_lines);
  }
  void arrivals(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) arrival();
  }
  std::int64_t fresh_target() { return --target_; }
  double uniform() { return rng_.uniform(); }

 private:
  static constexpr std::int64_t kEmpty = std::numeric_limits<std::int64_t>::min();
  std::vector<std::int64_t> line_;
  std::unique_ptr<policy::SetPolicy> pol_;
  std::uint64_t pool_ = 0;
  policy::SplitMix64 rng_;
  std::int64_t target_ = -1;
};

// Mean and variance of the mean of per-run values.
struct Moments {
  double sum = 0, sq = 0, n = 0;
  void add(double x) { sum += x, sq += x * x, n += 1; }
  double mean() const { return n ? sum / n : 0; }
  double var_of_mean() const { return n > 1 ? std::max(0.0, (sq / n - mean() * mean())) / (n - 1) : 0.25; }
};

// fresh / reread1 / reread2 at every k of the unit: per run the arrivals after which T is gone.
std::vector<Moments> survival_unit(OneSet& set, std::uint64_t L, unsigned rereads, const std::vector<std::uint64_t>& ks,
                                   double q, unsigned runs) {
  std::vector<std::vector<double>> tails;
  std::size_t nmax = 0;
  for (auto k : ks) {
    const auto pmf = binomial_pmf(k, q);
    tails.push_back(upper_tails(pmf));
    nmax = std::max(nmax, pmf.size() - 1);
  }
  set.use_pool(L);
  std::vector<Moments> m(ks.size());
  for (unsigned r = 0; r < runs; ++r) {
    set.gap();
    const std::int64_t T = set.fresh_target();
    set.access(T);
    for (unsigned i = 0; i < rereads; ++i) set.access(T);
    const int tw = set.way_of(T);
    std::size_t e = nmax + 1;  // T still there after every arrival that matters
    for (std::size_t n = 1; n <= nmax; ++n)
      if (set.arrival(tw)) {  // an arrival took T's way
        e = n;
        break;
      }
    for (std::size_t i = 0; i < ks.size(); ++i) m[i].add(e < tails[i].size() ? tails[i][e] : 0.0);
  }
  return m;
}

// mid at one k: evicted (the timed T) and mid_missed (the re-read after k/2 lines).
std::pair<Moments, Moments> mid_unit(OneSet& set, std::uint64_t L, std::uint64_t k, double q, unsigned runs) {
  const auto pmf1 = binomial_pmf(k / 2, q), pmf2 = binomial_pmf(k - k / 2, q);
  const auto tail2 = upper_tails(pmf2);
  const std::size_t nmax2 = pmf2.size() - 1;
  set.use_pool(L);
  Moments ev, mm;
  for (unsigned r = 0; r < runs; ++r) {
    set.gap();
    const std::int64_t T = set.fresh_target();
    set.access(T);
    const std::size_t n1 = draw(pmf1, set.uniform());
    for (std::size_t n = 0; n < n1; ++n) set.arrival();
    mm.add(set.access(T) ? 0.0 : 1.0);
    const int tw = set.way_of(T);
    std::size_t e = nmax2 + 1;
    for (std::size_t n = 1; n <= nmax2; ++n)
      if (set.arrival(tw)) {
        e = n;
        break;
      }
    ev.add(e < tail2.size() ? tail2[e] : 0.0);
  }
  return {ev, mm};
}

// restream at one k: the set's share of the k stream lines (drawn once) read, then T, then the same
// lines again in the same order (hits where they stayed); evicted: T's timed load.
Moments restream_unit(OneSet& set, std::uint64_t L, std::uint64_t k, double q, unsigned runs) {
  const auto pmf = binomial_pmf(k, q);
  set.use_pool(L);
  Moments ev;
  for (unsigned r = 0; r < runs; ++r) {
    set.gap();
    const auto lines = set.stream_lines(draw(pmf, set.uniform()));
    set.access_all(lines);
    const std::int64_t T = set.fresh_target();
    set.access(T);
    set.access_all(lines);
    ev.add(set.present(T) ? 0.0 : 1.0);
  }
  return ev;
}

// two_ages at one k: evicted (T1) and evicted_second (T2, timed after T1's load). T2 lands in T1's
// set with probability 1/S (q): then T2 is one more line of T1's set and T1's timed load, where it
// misses, may take T2's way; else each target lives in a set of its own (T2's: a second chain).
std::pair<Moments, Moments> two_ages_unit(OneSet& set, OneSet& other, std::uint64_t L, std::uint64_t k, double q,
                                          unsigned runs) {
  const auto pmf1 = binomial_pmf(k / 2, q), pmf2 = binomial_pmf(k - k / 2, q);
  const auto tail2 = upper_tails(pmf2);
  const std::size_t nmax2 = pmf2.size() - 1;
  set.use_pool(L);
  other.use_pool(L);
  Moments m1, m2;
  // T's survival in `s` over the second half: sum over n of pmf2(n) [T gone after n arrivals].
  auto second_half = [&](OneSet& s, std::int64_t T) {
    const int tw = s.way_of(T);
    if (tw < 0) return 1.0;
    for (std::size_t n = 1; n <= nmax2; ++n)
      if (s.arrival(tw)) return tail2[n];
    return 0.0;
  };
  for (unsigned r = 0; r < runs; ++r) {
    set.gap();
    const std::int64_t T1 = set.fresh_target(), T2 = set.fresh_target() - (1ll << 40);
    set.access(T1);
    const std::size_t n1 = draw(pmf1, set.uniform());
    for (std::size_t n = 0; n < n1; ++n) set.arrival();
    if (set.uniform() >= q) {  // T2 in a set of its own
      other.gap();
      other.access(T2);
      m2.add(second_half(other, T2));
      m1.add(second_half(set, T1));
      continue;
    }
    set.access(T2);
    double v1 = 0, v2 = 0;
    for (std::size_t n = 0; n <= nmax2; ++n) {
      if (n > 0) set.arrival();
      const bool gone1 = !set.present(T1);
      const int w2 = set.way_of(T2);
      const bool gone2 = w2 < 0 || (gone1 && set.victim() == static_cast<std::uint32_t>(w2));
      if (gone1 && w2 < 0) {  // both gone: so they stay for every later n
        v1 += tail2[n], v2 += tail2[n];
        break;
      }
      v1 += gone1 ? pmf2[n] : 0.0;
      v2 += gone2 ? pmf2[n] : 0.0;
    }
    m1.add(v1), m2.add(v2);
  }
  return {m1, m2};
}

// Launch mode (StreamPoint::start_empty 1): one run replays one SM's launch in the set that holds
// the observed trial's target: empty at the start, Binomial(warm, 1/S) warm-stream lines, each of the
// kStreamHitRefs references (loaded twice) with probability 1/S, the SM's earlier trials (their
// stream lines, and their targets with probability 1/S each, accessed as the variant does), then the
// observed trial. The trial's index is uniform over the SM's trials. Outcomes per run: {the timed
// target missed, the second count (mid: the re-read missed; two_ages: T2's timed load missed)}.
class LaunchReplay {
 public:
  LaunchReplay(OneSet& set, OneSet& other, OneSet& steady, OneSet& steady_other, const StreamPoint& p, std::uint64_t pool,
               double q, std::uint32_t ways)
      : set0_(set), other0_(other), steady_(steady), steady_other_(steady_other), p_(p), pool_(pool), q_(q), ways_(ways),
        half1_(binomial_pmf(p.k / 2, q)), half2_(binomial_pmf(p.k - p.k / 2, q)), whole_(binomial_pmf(p.k, q)) {
    trials_ = static_cast<unsigned>(std::max(1.0, std::round(p.trials_per_sm)));
    cap_ = 16 * ways_ + 4 * static_cast<std::size_t>(std::min<std::uint64_t>(pool_, 1u << 16));
    history_ = &histories(p, q, trials_, cap_);
  }
  std::pair<bool, bool> run(unsigned r) {
    const unsigned t = r % trials_;
    OneSet& set_ = prepare(set0_, steady_, t);
    const std::int64_t T1 = set_.fresh_target(), T2 = set_.fresh_target() - (1ll << 40);
    if (p_.variant == "two_ages") {
      const bool together = set_.uniform() < q_;
      set_.access(T1);
      set_.arrivals(draw(half1_, set_.uniform()));
      OneSet* s2 = &set_;
      if (!together) {  // T2's own set: its launch up to T2's first load
        s2 = &prepare(other0_, steady_other_, t);
        s2->arrivals(draw(half1_, s2->uniform()));
      }
      s2->access(T2);
      set_.arrivals(draw(half2_, set_.uniform()));
      if (!together) s2->arrivals(draw(half2_, s2->uniform()));
      const bool m1 = !set_.access(T1);  // access: true on a hit
      return {m1, !s2->access(T2)};
    }
    if (p_.variant == "restream") {  // the trial's lines, T, the same lines again
      const auto lines = set_.stream_lines(draw(whole_, set_.uniform()));
      set_.access_all(lines);
      set_.access(T1);
      set_.access_all(lines);
      return {!set_.access(T1), false};
    }
    set_.access(T1);
    for (unsigned i = 0; i < rereads(); ++i) set_.access(T1);
    if (p_.variant == "mid") {
      set_.arrivals(draw(half1_, set_.uniform()));
      const bool mid = !set_.access(T1);
      set_.arrivals(draw(half2_, set_.uniform()));
      return {!set_.access(T1), mid};
    }
    set_.arrivals(draw(whole_, set_.uniform()));
    return {!set_.access(T1), false};
  }

 private:
  unsigned rereads() const { return p_.variant == "reread1" ? 1 : p_.variant == "reread2" ? 2 : 0; }
  // The set as trial t finds it: empty, the warm and earlier streams' lines, the references, and
  // the earlier trials' targets that fell in it (each then accessed as its variant does).
  // Beyond 16 W + 4 L arrivals (L: the set's share of the pool) a set holds what a long stream
  // leaves, whatever came before: such a trial runs on the steady chain (warmed once, 2 W arrivals
  // between runs), as where the start is not known.
  OneSet& prepare(OneSet& s, OneSet& steady, unsigned t) {
    const auto& h = (*history_)[t];
    if (h.empty()) {
      steady.use_pool(pool_);
      steady.gap();
      return steady;
    }
    s.restart(pool_);
    const std::size_t lines = std::min(cap_, draw(h, s.uniform()));
    std::vector<std::size_t> at;  // where among those lines the references and earlier targets come
    const std::size_t warm = std::min<std::size_t>(lines, static_cast<std::size_t>(std::round(std::max(0.0, p_.warm_lines) * q_)));
    std::size_t done = 0;
    auto advance = [&](std::size_t upto) {
      upto = std::min(upto, lines);
      if (upto > done) s.arrivals(upto - done), done = upto;
    };
    advance(warm);
    for (int i = 0; i < kRefs; ++i)
      if (s.uniform() < q_) {
        const std::int64_t ref = s.fresh_target();
        s.access(ref), s.access(ref);
      }
    const double per_trial = t ? static_cast<double>(lines - done) / t : 0;
    for (unsigned u = 0; u < t; ++u) {
      const std::size_t end = done + static_cast<std::size_t>(std::round(per_trial * (u + 1))) - static_cast<std::size_t>(std::round(per_trial * u));
      if (p_.variant == "restream") {  // its lines, its target where it fell here, the same lines again
        const auto ids = s.stream_lines((std::min(end, lines) - std::min(done, lines)) / 2);
        s.access_all(ids);
        const bool here = s.uniform() < q_;
        const std::int64_t T = here ? s.fresh_target() : 0;
        if (here) s.access(T);
        s.access_all(ids);
        if (here) s.access(T);  // its timed load
        done = std::max(done, std::min(end, lines));
        continue;
      }
      if (s.uniform() >= q_) {
        advance(end);
        continue;
      }
      const std::int64_t T = s.fresh_target();  // an earlier trial's target in this set
      s.access(T);
      for (unsigned i = 0; i < rereads(); ++i) s.access(T);
      const std::size_t mid = done + (end - done) / 2;
      advance(mid);
      if (p_.variant == "mid") s.access(T);
      advance(end);
      s.access(T);  // its timed load
    }
    advance(lines);
    return s;
  }
  static constexpr int kRefs = kStreamHitRefs;  // the hit references (loaded twice) per SM
  OneSet &set0_, &other0_, &steady_, &steady_other_;
  const StreamPoint& p_;
  std::uint64_t pool_;
  double q_;
  std::size_t ways_, cap_ = 0;
  std::vector<double> half1_, half2_, whole_;
  const std::vector<std::vector<double>>* history_ = nullptr;
  unsigned trials_ = 1;

  // Per trial index t, the distribution of the lines before trial t's target in its set: the warm
  // stream and t earlier trials' streams (none where all but a 1e-9 tail lies past the cap: the cap
  // then). The same for every candidate: computed once per thread and point.
  static const std::vector<std::vector<double>>& histories(const StreamPoint& p, double q, unsigned trials, std::size_t cap) {
    thread_local std::map<std::tuple<double, std::uint64_t, unsigned, double, std::size_t>, std::vector<std::vector<double>>> memo;
    const std::uint64_t per_trial = p.variant == "restream" ? 2 * p.k : p.k;  // restream reads its lines twice
    auto& h = memo[{p.warm_lines, per_trial, trials, q, cap}];
    if (h.empty())
      for (unsigned t = 0; t < trials; ++t) {
        const double n = std::max(0.0, p.warm_lines) + static_cast<double>(t) * static_cast<double>(per_trial);
        const double mean = n * q, sd = std::sqrt(n * q * (1 - q));
        if (mean - 7 * sd > static_cast<double>(cap)) h.emplace_back();
        else h.push_back(binomial_pmf(static_cast<std::uint64_t>(n), q));
      }
    return h;
  }
};

// The pool's lines that map to the set: density / sets of them (the stream's arrival rate into it).
std::uint64_t pool_lines(const StreamPoint& p, std::uint32_t sets, double density = 1) {
  return p.line_bytes && sets ? std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(
                                                               static_cast<double>(p.pool_bytes / p.line_bytes) * density / sets)))
                              : 1;
}

std::string fmt(double x, int digits = 2) {
  std::ostringstream o;
  o.setf(std::ios::fixed);
  o.precision(digits);
  o << x;
  return o.str();
}

double round4(double x) { return std::round(x * 10000) / 10000; }

}  // namespace

namespace {
// What stream_points left out and why ("" when nothing).
std::string points_note(const std::string& cache, int primary, std::size_t bad, std::size_t unsplit, bool none_at_primary,
                        std::size_t other_carveout) {
  std::string note;
  auto add = [&](const std::string& x) { note += (note.empty() ? "" : "; ") + x; };
  if (bad) add(std::to_string(bad) + " cache_streams entries of " + cache + " without a known variant, k > 0, trials, evicted, pool_bytes or line_bytes left out");
  if (unsplit)
    add(std::to_string(unsplit) + " entries of " + cache +
        " whose targets' first loads did not split into the reader's partition and the other (no near_trials) left out");
  if (none_at_primary)
    add("no entry at carveout " + std::to_string(primary) + " (the sets' carveout): those at other carveouts are judged with its sets");
  if (other_carveout)
    add(std::to_string(other_carveout) + " entries at another carveout than " + std::to_string(primary) + " (the sets' carveout) left out");
  return note;
}
}  // namespace

std::vector<StreamPoint> stream_points(const Dataset& data, const std::string& cache, int primary, std::string* note) {
  struct Raw {
    const BenchEntry* e;
    int carveout;
  };
  std::vector<Raw> raw;
  std::size_t bad = 0;
  // How a launch leaves the path's cache: cache_sequences' check (kept_across_launch 0: emptied).
  std::map<std::string, int> emptied;
  for (const auto* e : data.family("cache_sequences"))
    if (e->params.get_or("check", "") == "launch" && e->has("kept_across_launch"))
      emptied[e->params.get_or("path", "")] = e->counter("kept_across_launch") == 0 ? 1 : 0;
  auto start_empty_of = [&](const BenchEntry& e) {
    if (e.has("start_empty")) return e.counter("start_empty") != 0 ? 1 : 0;
    const auto it = emptied.find(e.params.get_or("path", ""));
    return it == emptied.end() ? -1 : it->second;
  };
  // The L2: the targets of the reader's own partition only (near_trials, near_evicted), where the
  // benchmark split them; the mixed count mixes two partitions and two thresholds.
  const bool near_only = cache == "l2";
  std::size_t unsplit = 0;
  auto trials_of = [&](const BenchEntry& e) { return e.counter(near_only ? "near_trials" : "trials"); };
  // The L2's counts of the reader's partition: near_evicted, near_mid_missed (mid's re-read).
  auto near_counter = [&](const std::string& counter) {
    return !near_only ? counter : counter == "evicted" ? "near_evicted" : counter == "mid_missed" ? "near_mid_missed" : counter;
  };
  auto count_of = [&](const BenchEntry& e, const std::string& counter) { return e.counter(near_counter(counter)); };
  for (const auto* e : data.family("cache_streams")) {
    if (e->params.get_or("cache", "") != cache) continue;
    const std::string v = e->params.get_or("variant", "");
    const auto k = e->params.get_int("k");
    if (!variants().count(v) || !k || *k <= 0 || e->counter("trials") <= 0 || e->counter("line_bytes") <= 0 ||
        e->counter("pool_bytes") <= 0 || e->counter("evicted", -1) < 0) {
      ++bad;
      continue;
    }
    if (near_only && (!(e->counter("near_trials", 0) > 0) || e->counter("near_evicted", -1) < 0)) {
      ++unsplit;
      continue;
    }
    raw.push_back({e, static_cast<int>(std::lround(e->counter("carveout", -1)))});
  }
  bool any_primary = false;
  for (const auto& r : raw) any_primary = any_primary || r.carveout == primary;
  std::map<std::tuple<std::string, std::string, std::string, std::uint64_t, std::uint64_t, std::uint64_t>, StreamPoint> by;
  std::size_t other_carveout = 0;
  for (const auto& r : raw) {
    if (primary >= 0 && any_primary && r.carveout != primary) {
      ++other_carveout;
      continue;
    }
    const BenchEntry& e = *r.e;
    const std::string v = e.params.get_or("variant", ""), loads = e.params.get_or("loads", "");
    const auto k = static_cast<std::uint64_t>(*e.params.get_int("k"));
    const auto pool = static_cast<std::uint64_t>(e.counter("pool_bytes")), line = static_cast<std::uint64_t>(e.counter("line_bytes"));
    std::vector<std::pair<std::string, std::string>> measures = {{"evicted", "evicted"}};
    if (v == "two_ages" && e.has("evicted_second")) measures.push_back({"evicted_second", "evicted_second"});
    if (v == "mid" && e.has(near_counter("mid_missed"))) measures.push_back({"mid_missed", "mid_missed"});
    for (const auto& [m, counter] : measures) {
      StreamPoint& p = by[{v, loads, m, k, pool, line}];
      p.variant = v, p.loads = loads, p.measure = m, p.k = k, p.pool_bytes = pool, p.line_bytes = line;
      p.warm_lines = e.counter("warm_lines", 0);
      p.trials_per_sm = std::max(1.0, e.counter("trials_per_sm", 1));
      p.targets_per_trial = std::max(p.targets_per_trial, e.counter("targets_per_trial", 1));
      p.start_empty = start_empty_of(e);
      p.trials += trials_of(e);
      p.observed += std::clamp(count_of(e, counter), 0.0, trials_of(e));
      p.names.push_back(e.params.str());
    }
  }
  std::vector<StreamPoint> out;
  // Variant order of the contract, then loads, measure, k.
  const std::vector<std::string> order = {"fresh", "reread1", "reread2", "mid", "two_ages", "restream"};
  for (const auto& v : order)
    for (auto& [key, p] : by)
      if (std::get<0>(key) == v) out.push_back(p);
  if (note) *note = points_note(cache, primary, bad, unsplit, primary >= 0 && !any_primary && !raw.empty(), other_carveout);
  return out;
}

StreamPrediction predict_streams(const std::string& pol, std::uint32_t sets, std::uint32_t ways,
                                 const std::vector<StreamPoint>& points, unsigned runs, std::uint64_t seed,
                                 unsigned runs_per_k, double density) {
  if (runs_per_k == 0) runs_per_k = runs;
  if (const std::string why = policy::policy_ways_problem(pol, ways); !why.empty()) throw std::invalid_argument(why);
  StreamPrediction out;
  out.p.assign(points.size(), 0);
  out.var.assign(points.size(), 0);
  const double q = std::min(1.0, density / std::max<std::uint32_t>(1, sets));
  // One chain for every unit in turn (and one for two_ages' second targets): each starts where the
  // last ended, warmed once per pool share.
  OneSet set(pol, ways, policy::splitmix64_mix(fnv("streams", seed))), other(pol, ways, policy::splitmix64_mix(fnv("second", seed)));
  // Launch mode: each point replayed on its own (runs_per_k runs: its history depends on k); trials
  // whose history is longer than a steady state needs run on the steady chains above.
  OneSet launch_set(pol, ways, policy::splitmix64_mix(fnv("launch", seed))),
      launch_other(pol, ways, policy::splitmix64_mix(fnv("launch second", seed)));
  std::vector<bool> launch(points.size(), false);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (p.start_empty != 1) continue;
    launch[i] = true;
    LaunchReplay replay(launch_set, launch_other, set, other, p, pool_lines(p, sets, density), q, ways);
    Moments m;
    for (unsigned r = 0; r < runs_per_k; ++r) {
      const auto [first, second] = replay.run(r);
      m.add((p.measure == "evicted" ? first : second) ? 1.0 : 0.0);
    }
    out.p[i] = m.mean(), out.var[i] = m.var_of_mean();
  }
  // fresh / reread*: one unit per (variant, pool lines) over its ks.
  std::map<std::pair<std::string, std::uint64_t>, std::vector<std::uint64_t>> surv;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (const auto& p = points[i]; !launch[i] && (p.variant == "fresh" || p.variant == "reread1" || p.variant == "reread2")) {
      auto& ks = surv[{p.variant, pool_lines(p, sets, density)}];
      if (std::find(ks.begin(), ks.end(), p.k) == ks.end()) ks.push_back(p.k);
    }
  for (auto& [key, ks] : surv) {
    std::sort(ks.begin(), ks.end());
    const unsigned rereads = key.first == "fresh" ? 0 : key.first == "reread1" ? 1 : 2;
    const auto m = survival_unit(set, key.second, rereads, ks, q, runs);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const auto& p = points[i];
      if (launch[i] || p.variant != key.first || pool_lines(p, sets, density) != key.second) continue;
      const std::size_t j = static_cast<std::size_t>(std::find(ks.begin(), ks.end(), p.k) - ks.begin());
      out.p[i] = m[j].mean(), out.var[i] = m[j].var_of_mean();
    }
  }
  // restream: one unit per (k, pool lines).
  std::map<std::pair<std::uint64_t, std::uint64_t>, Moments> re;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (launch[i] || p.variant != "restream") continue;
    const auto key = std::make_pair(p.k, pool_lines(p, sets, density));
    if (!re.count(key)) re[key] = restream_unit(set, key.second, p.k, q, runs_per_k);
    out.p[i] = re[key].mean(), out.var[i] = re[key].var_of_mean();
  }
  // mid / two_ages: one unit per (variant, k, pool lines), both counts from the same runs.
  std::map<std::tuple<std::string, std::uint64_t, std::uint64_t>, std::pair<Moments, Moments>> per_k;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (launch[i] || (p.variant != "mid" && p.variant != "two_ages")) continue;
    const auto key = std::make_tuple(p.variant, p.k, pool_lines(p, sets, density));
    if (per_k.count(key)) continue;
    const std::uint64_t L = std::get<2>(key);
    per_k[key] = p.variant == "mid" ? mid_unit(set, L, p.k, q, runs_per_k) : two_ages_unit(set, other, L, p.k, q, runs_per_k);
  }
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    if (launch[i]) continue;
    auto it = per_k.find(std::make_tuple(p.variant, p.k, pool_lines(p, sets, density)));
    if (it == per_k.end()) continue;
    const Moments& m = p.measure == "evicted" ? it->second.first : it->second.second;
    out.p[i] = m.mean(), out.var[i] = m.var_of_mean();
  }
  return out;
}

double chi2_quantile(std::size_t dof, double alpha) {
  if (dof == 0) return 0;
  // The standard normal's 1 - alpha quantile (Acklam's rational approximation, tail branch).
  const double pl = alpha, t = std::sqrt(-2 * std::log(pl));
  const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
                      4.374664141464968e+00,  2.938163982698783e+00};
  const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
  const double zl = (((((c[0] * t + c[1]) * t + c[2]) * t + c[3]) * t + c[4]) * t + c[5]) /
                    ((((d[0] * t + d[1]) * t + d[2]) * t + d[3]) * t + 1);
  const double z = -zl, k = static_cast<double>(dof), h = 2.0 / (9.0 * k);
  return k * std::pow(1 - h + z * std::sqrt(h), 3);
}

namespace {

StreamFit score(const std::string& pol, const std::vector<StreamPoint>& pts, const StreamPrediction& pr, double noise,
                unsigned runs, std::size_t fitted = 0) {
  StreamFit f;
  f.policy = pol;
  f.runs = runs;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double n = pts[i].trials, o = pts[i].observed / n;
    const double p = pr.p[i] + (1 - pr.p[i]) * noise;
    const double pf = std::clamp(p, 0.5 / n, 1 - 0.5 / n);
    const double z = (o - p) / std::sqrt(pf * (1 - pf) / n + pr.var[i]);
    f.predicted.push_back(p);
    f.z.push_back(z);
    f.chi2 += z * z;
    f.worst_z = std::max(f.worst_z, std::fabs(z));
    f.mean_abs_miss += std::fabs(o - p);
  }
  f.dof = pts.size() > fitted ? pts.size() - fitted : 0;
  if (!pts.empty()) f.mean_abs_miss /= static_cast<double>(pts.size());
  f.fits = f.dof > 0 && f.worst_z <= kStreamWorstZ && f.chi2 <= chi2_quantile(f.dof, kStreamChi2Alpha);
  return f;
}

}  // namespace

std::vector<std::pair<unsigned, unsigned>> stream_stages(const std::vector<StreamPoint>& points) {
  double most = 0;
  for (const auto& p : points) most = std::max(most, p.trials);
  const auto final_runs = static_cast<unsigned>(std::clamp(4 * most, double(kStreamRunsMin), double(kStreamRuns)));
  std::vector<std::pair<unsigned, unsigned>> st = {{256, 64}};
  if (final_runs > kStreamRunsMin) st.push_back({kStreamRunsMin, kStreamRunsMin});
  st.push_back({final_runs, final_runs});
  return st;
}

std::vector<StreamFit> fit_streams(const std::vector<StreamPoint>& pts, std::uint32_t sets, std::uint32_t ways,
                                   const std::vector<std::string>& candidates, double noise) {
  const auto stages = stream_stages(pts);
  const unsigned final_runs = stages.back().first;
  // Stages of more runs (stream_stages): every candidate at the first; at each
  // next one those whose worst |z| stayed within kStreamScreenZ and always the four nearest (chi2).
  std::vector<StreamFit> fits(candidates.size());
  std::vector<std::size_t> live(candidates.size());
  for (std::size_t i = 0; i < live.size(); ++i) live[i] = i;
  for (std::size_t stage = 0; stage < stages.size() && !live.empty(); ++stage) {
    const auto [runs, runs_per_k] = stages[stage];
    parallel_for(live.size(), [&, runs = runs, runs_per_k = runs_per_k](std::size_t j) {
      const std::size_t i = live[j];
      fits[i] = score(candidates[i], pts, predict_streams(candidates[i], sets, ways, pts, runs, stage + 1, runs_per_k),
                      noise, runs);
    });
    std::vector<std::size_t> order = live;
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return fits[a].chi2 < fits[b].chi2; });
    std::vector<std::size_t> next;
    for (std::size_t r = 0; r < order.size(); ++r)
      if (r < 4 || fits[order[r]].worst_z <= kStreamScreenZ) next.push_back(order[r]);
    std::sort(next.begin(), next.end());
    if (std::getenv("MEMHIER_DEBUG_STREAMS"))
      std::fprintf(stderr, "streams stage %zu: %zu candidates, %zu go on\n", stage, live.size(), next.size());
    live = next;
  }
  for (auto& f : fits) f.fits = f.fits && f.runs == final_runs;
  std::vector<std::size_t> rank(candidates.size());
  for (std::size_t i = 0; i < rank.size(); ++i) rank[i] = i;
  std::stable_sort(rank.begin(), rank.end(), [&](auto a, auto b) {
    if (fits[a].fits != fits[b].fits) return fits[a].fits;
    return fits[a].chi2 < fits[b].chi2;
  });
  std::vector<StreamFit> out;
  for (auto i : rank) out.push_back(std::move(fits[i]));
  return out;
}

OwnCurves own_curves_disagree(const std::vector<StreamPoint>& pts, const std::vector<StreamFit>& fits) {
  OwnCurves out;
  struct Pair {
    std::size_t f, m;
    double sigma;
  };
  std::vector<Pair> pairs;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const auto& a = pts[i];
    if (a.variant != "fresh" || a.measure != "evicted" || a.trials <= 0) continue;
    for (std::size_t j = 0; j < pts.size(); ++j) {
      const auto& b = pts[j];
      if (b.variant != "mid" || b.measure != "mid_missed" || b.loads != a.loads || b.pool_bytes != a.pool_bytes ||
          b.k != 2 * a.k || b.trials <= 0)
        continue;
      const double pooled = (a.observed + b.observed) / (a.trials + b.trials);
      const double sigma = std::sqrt(pooled * (1 - pooled) * (1 / a.trials + 1 / b.trials));
      if (sigma > 0) pairs.push_back({i, j, sigma});
    }
  }
  if (pairs.empty() || fits.empty()) return out;
  const double root = std::sqrt(static_cast<double>(pairs.size()));
  auto gap = [&](const Pair& q) { return pts[q.f].observed / pts[q.f].trials - pts[q.m].observed / pts[q.m].trials; };
  // The candidates scored at the last stage (a screened one's 64-run prediction of mid is too rough
  // for a difference; its streams refuted it anyway), each with its own Monte-Carlo variance.
  unsigned runs = 0;
  for (const auto& f : fits) runs = std::max(runs, f.runs);
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, closest_z = lo;
  const StreamFit* closest = nullptr;
  for (const auto& f : fits) {
    if (f.predicted.size() != pts.size() || f.runs != runs || runs == 0) continue;
    double sum = 0;
    for (const auto& q : pairs) {
      const double a = f.predicted[q.f], b = f.predicted[q.m];
      const double model_var = (a * (1 - a) + b * (1 - b)) / runs;
      sum += (gap(q) - (a - b)) / std::sqrt(q.sigma * q.sigma + model_var);
    }
    const double z = sum / root;
    if (std::fabs(z) < closest_z) closest = &f, closest_z = std::fabs(z);
    lo = std::min(lo, z);
    hi = std::max(hi, z);
  }
  if (!closest) return out;
  out.pairs = pairs.size(), out.z_min = lo, out.z_max = hi, out.nearest = closest->policy;
  if (lo <= kStreamWorstZ && hi >= -kStreamWorstZ) return out;
  const Pair* big = &pairs.front();
  for (const auto& q : pairs)
    if (std::fabs(gap(q)) / q.sigma > std::fabs(gap(*big)) / big->sigma) big = &q;
  const auto& F = pts[big->f];
  const auto& M = pts[big->m];
  const bool above = lo > kStreamWorstZ;
  out.sentence = std::string("the cache's own curves disagree: a fresh target is lost after ") + std::to_string(F.k) +
         " lines in " + fmt(F.observed / F.trials, 3) + " (" + fmt(F.observed, 0) + " of " + fmt(F.trials, 0) +
         "), mid's re-read after the same " + std::to_string(F.k) + " lines in " + fmt(M.observed / M.trials, 3) + " (" +
         fmt(M.observed, 0) + " of " + fmt(M.trials, 0) + "), " + F.loads + " loads; over " +
         std::to_string(pairs.size()) + " such pair(s) no candidate allows fresh " + (above ? "above" : "below") +
         " mid by as much (combined z " + fmt(above ? lo : -hi, 1) + " or more, nearest " + closest->policy +
         "): fresh targets on this path go by more than the stream's arrivals in their set";
  return out;
}

namespace {

// "lru: worst |z| 2.1, chi2 31.0 / 40 (sequences: consistent)"
std::string describe(const StreamFit& f, unsigned final_runs) {
  std::string s = f.policy + ": worst |z| " + fmt(f.worst_z, 1) + ", chi2 " + fmt(f.chi2, 1) + " / " +
                  std::to_string(f.dof) + (f.runs == final_runs ? "" : " (screen)");
  if (f.density != 1) s += ", stream density " + fmt(f.density, 2) + " / S (fitted)";
  if (f.fits_sequences) s += *f.fits_sequences ? ", sequences: consistent" : ", sequences: inconsistent";
  return s;
}

// The sets and the (equal) ways of the cache, or a reason.
std::string geometry(const nlohmann::json& c, std::uint32_t* S, std::uint32_t* W) {
  const auto s = c.value("sets", nlohmann::json()), w = c.value("ways", nlohmann::json());
  if (!s.is_number_unsigned() || s.get<std::uint64_t>() == 0) return "needs the cache's sets (not decided)";
  std::set<std::uint64_t> ws;
  if (w.is_number_unsigned()) ws.insert(w.get<std::uint64_t>());
  if (w.is_array())
    for (const auto& x : w)
      if (x.is_number_unsigned()) ws.insert(x.get<std::uint64_t>());
  if (ws.empty() || *ws.begin() == 0) return "needs the cache's ways (not decided)";
  if (ws.size() > 1) return "the sets have unequal ways: the model of one set does not apply";
  if (*ws.begin() > 64 || s.get<std::uint64_t>() > (1u << 24)) return "ways or sets beyond the model's range";
  *S = static_cast<std::uint32_t>(s.get<std::uint64_t>());
  *W = static_cast<std::uint32_t>(*ws.begin());
  return "";
}

// The curves: per point the observed fraction and what the named policies predict, else the two
// nearest, and the sequences' first consistent candidate where it is neither.
nlohmann::json curves_json(const std::vector<StreamPoint>& pts, const std::vector<StreamFit>& fits,
                           const std::vector<std::string>& both, const SequenceVerdict& seq) {
  std::vector<const StreamFit*> shown;
  auto show = [&](const std::string& n) {
    for (const auto& f : fits)
      if (f.policy == n && std::find(shown.begin(), shown.end(), &f) == shown.end()) shown.push_back(&f);
  };
  if (!both.empty())
    for (const auto& n : both) show(n);
  else
    for (std::size_t i = 0; i < fits.size() && i < 2; ++i) show(fits[i].policy);
  if (!seq.consistent.empty()) show(seq.consistent.front());
  nlohmann::json curves = nlohmann::json::array();
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const auto& p = pts[i];
    nlohmann::json pred = nlohmann::json::object();
    for (const auto* f : shown) pred[f->policy] = round4(f->predicted[i]);
    curves.push_back({{"variant", p.variant}, {"loads", p.loads}, {"k", p.k}, {"measure", p.measure},
                      {"trials", p.trials}, {"observed", round4(p.observed / p.trials)}, {"predicted", pred}});
  }
  return curves;
}

// The candidates, best first: the first 8 and every one that fits either evidence.
// The stream density fitted (one parameter, kStreamDensities) for the sequence-consistent candidates
// that did not fit at 1/S: an index that spreads random lines unevenly over the sets, or lines the
// experiment adds to every set (docs/methodology.md, "From random streams"). A candidate fits at
// the density of its smallest chi2 by the same rule, one degree of freedom fewer.
constexpr double kStreamDensities[] = {0.8, 0.9, 1.1, 1.2, 1.35, 1.5, 1.7, 2.0};
void refit_density(std::vector<StreamFit>& fits, const std::vector<StreamPoint>& pts, std::uint32_t S, std::uint32_t W,
                   double noise, const std::set<std::string>& consistent) {
  const unsigned runs = stream_stages(pts).back().first;
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < fits.size(); ++i)
    if (!fits[i].fits && consistent.count(fits[i].policy)) todo.push_back(i);
  if (todo.empty()) return;
  const std::size_t nd = std::size(kStreamDensities);
  std::vector<StreamFit> tried(todo.size() * nd);
  parallel_for(tried.size(), [&](std::size_t j) {
    const auto& f = fits[todo[j / nd]];
    const double d = kStreamDensities[j % nd];
    tried[j] = score(f.policy, pts, predict_streams(f.policy, S, W, pts, runs, 7, runs, d), noise, runs, 1);
    tried[j].density = d;
  });
  for (std::size_t t = 0; t < todo.size(); ++t) {
    const StreamFit* best = nullptr;
    for (std::size_t d = 0; d < nd; ++d)
      if (!best || tried[t * nd + d].chi2 < best->chi2) best = &tried[t * nd + d];
    if (best && best->chi2 < fits[todo[t]].chi2) {
      const auto seqs = fits[todo[t]].fits_sequences;
      fits[todo[t]] = *best;
      fits[todo[t]].fits_sequences = seqs;
    }
  }
  std::stable_sort(fits.begin(), fits.end(), [](const StreamFit& a, const StreamFit& b) {
    return a.fits != b.fits ? a.fits : a.chi2 < b.chi2;
  });
}

// Whether a replacement value names candidate policies (a name, or a list of names), not a class.
bool names_candidates(const nlohmann::json& v, const std::vector<std::string>& cands) {
  auto known = [&](const nlohmann::json& x) {
    return x.is_string() && std::find(cands.begin(), cands.end(), x.get<std::string>()) != cands.end();
  };
  if (v.is_string()) return known(v);
  if (!v.is_array() || v.empty()) return false;
  for (const auto& x : v)
    if (!known(x)) return false;
  return true;
}

nlohmann::json candidates_json(const std::vector<StreamFit>& fits) {
  nlohmann::json cj = nlohmann::json::array();
  for (std::size_t i = 0; i < fits.size(); ++i) {
    const auto& f = fits[i];
    if (i >= 8 && !f.fits && !(f.fits_sequences && *f.fits_sequences)) continue;
    cj.push_back({{"policy", f.policy}, {"fits_streams", f.fits},
                  {"fits_sequences", f.fits_sequences ? nlohmann::json(*f.fits_sequences) : nlohmann::json()},
                  {"worst_z", round4(f.worst_z)}, {"chi2", round4(f.chi2)}, {"dof", f.dof},
                  {"mean_abs_miss", round4(f.mean_abs_miss)}, {"runs", f.runs}, {"density", round4(f.density)}});
  }
  return cj;
}

}  // namespace

namespace {
// The joint verdict (docs/methodology.md, "The rule"): the sequences' named policy confirmed or
// refuted; a class or no verdict left as it is. Returns the reason; *named the confirmed policy.
std::string decide_joint(nlohmann::json& cache, const nlohmann::json& before, const std::vector<std::string>& both,
                         const SequenceVerdict& seq, const std::vector<std::string>& cands, const std::string& base,
                         std::size_t fit_streams_n, const std::string& nearest, const Evidence& ev, nlohmann::json* named_out) {
  std::string reason;
  nlohmann::json named;
  // The streams confirm or refute a policy the sequences named; they never name one of their own:
  // where the verdict before is a class (non-lru, lru_or_fifo) or nothing, they only report (a
  // simulated weighted-random cache's streams fit uniform `random`, which the sequences' class
  // `non-lru` admits: a confident wrong name).
  std::set<std::string> fitting_both(both.begin(), both.end());
  bool confirmed = false;
  if (before.is_string()) confirmed = fitting_both.count(before.get<std::string>()) > 0;
  else if (before.is_array())
    for (const auto& x : before) confirmed = confirmed || (x.is_string() && fitting_both.count(x.get<std::string>()));
  if (!seq.decided || !names_candidates(before, cands)) {
    reason = base + ": " + std::to_string(fit_streams_n) + " candidate(s) fit the streams; the verdict before (" +
             before.dump() + ") names no policy the streams could confirm: left as it is; nearest: " + nearest;
  } else if (confirmed) {
    named = before;
    reason = base + ": " + named.dump() + " predicts both the streams and the " + seq.source + " (" +
             std::to_string(fit_streams_n) + " candidate(s) fit the streams)";
    Evidence rev = ev;
    if (cache.contains("provenance") && cache["provenance"].contains("replacement"))
      for (const auto& e : cache["provenance"]["replacement"].value("evidence", nlohmann::json::array()))
        if (e.is_string()) rev.add(e.get<std::string>());
    set_value(cache, "replacement", named, 0.85, rev, reason);
  } else {
    reason = base + ": the " + seq.source + "' verdict " + before.dump() + " does not predict the streams (" +
             std::to_string(fit_streams_n) + " candidate(s) fit the streams); nearest: " + nearest;
    set_null(cache, "replacement", reason, ev);
  }
  *named_out = named;
  return reason;
}

// own_curves_disagree as caches.<c>.streams.own_curves; where no policy was named it joins *reason
// (and the reason of a null replacement).
nlohmann::json own_curves(nlohmann::json& cache, const std::vector<StreamPoint>& pts, const std::vector<StreamFit>& fits,
                          const nlohmann::json& named, const Evidence& ev, std::string* reason) {
  const OwnCurves own = own_curves_disagree(pts, fits);
  if (own.pairs == 0) return nullptr;
  if (!own.sentence.empty() && named.is_null()) {
    *reason += "; " + own.sentence;
    if (cache.value("replacement", nlohmann::json()).is_null()) set_null(cache, "replacement", *reason, ev);
  }
  return {{"pairs", own.pairs}, {"z_min", round4(own.z_min)}, {"z_max", round4(own.z_max)}, {"nearest", own.nearest},
          {"disagree", own.sentence.empty() ? nlohmann::json() : nlohmann::json(own.sentence)}};
}

}  // namespace

namespace {
std::string& memo_path() {
  static std::string p;
  return p;
}

std::string memo_key(const std::vector<StreamPoint>& pts, std::uint32_t S, std::uint32_t W, double noise,
                     const SequenceVerdict& seq, const nlohmann::json& cache) {
  std::ostringstream k;
  k.precision(17);
  k << analyzer_text(analyzer_stamp()) << "|" << S << "x" << W << "|" << noise << "|" << seq.decided << "|" << seq.source;
  for (const auto& c : seq.consistent) k << "," << c;
  k << "|" << cache.value("replacement", nlohmann::json()).dump() << "|"
    << (cache.contains("provenance") ? cache["provenance"].value("replacement", nlohmann::json()).dump() : "");
  for (const auto& p : pts)
    k << "|" << p.variant << "/" << p.loads << "/" << p.measure << "/" << p.k << "/" << p.pool_bytes << "/" << p.line_bytes
      << "/" << p.trials << "/" << p.observed << "/" << p.warm_lines << "/" << p.trials_per_sm << "/" << p.start_empty;
  return k.str();
}

nlohmann::json memo_read() {
  if (memo_path().empty()) return nlohmann::json::object();
  std::ifstream f(memo_path());
  nlohmann::json j;
  try {
    if (f) f >> j;
  } catch (const std::exception&) {
    j = nullptr;
  }
  return j.is_object() ? j : nlohmann::json::object();
}

void memo_write(const std::string& key, const nlohmann::json& value) {
  if (memo_path().empty()) return;
  nlohmann::json j = memo_read();
  j[key] = value;
  const std::string tmp = memo_path() + ".tmp";
  {
    std::ofstream f(tmp);
    f << j.dump();
    if (!f) return;
  }
  std::rename(tmp.c_str(), memo_path().c_str());
}
// Applies the memo's judgement of these inputs (true), else sets *key for writing it (empty: none).
bool memo_apply(nlohmann::json& cache, const std::vector<StreamPoint>& pts, double noise, const SequenceVerdict& seq,
                const std::string& note, std::string* key) {
  if (memo_path().empty() || pts.empty()) return false;
  std::uint32_t S0 = 0, W0 = 0;
  if (!geometry(cache, &S0, &W0).empty()) return false;
  *key = memo_key(pts, S0, W0, noise, seq, cache) + "|" + note;
  const nlohmann::json memo = memo_read();
  if (!memo.contains(*key) || !memo[*key].is_object()) return false;
  for (const auto& [k, v] : memo[*key].items()) cache[k] = v;
  return true;
}
// The most targets one trial of the points timed (1 at least).
double most_targets(const std::vector<StreamPoint>& pts) {
  double targets = 1;
  for (const auto& p : pts) targets = std::max(targets, p.targets_per_trial);
  return targets;
}
// Why the streams are not judged ("" where they are, with S and W): no usable entry; the L2 as
// one SM sees it, which has no sets of its own (caches.l2's sets and ways come from l2_sets, analysed
// after the caches; a P-chase reading of one SM's view can mislead: a simulated L2 of bit-PLRU sets
// was named fifo); trials of several targets, which the replay does not model; no geometry.
std::string judged_geometry(const nlohmann::json& cache, const std::string& name, const std::vector<StreamPoint>& pts,
                            const std::string& note, std::uint32_t* S, std::uint32_t* W) {
  const double targets = most_targets(pts);
  if (pts.empty()) return "no usable cache_streams entry (" + note + ")";
  if (name == "l2") return "the L2's streams are judged on one partition's sets, from l2_sets and l2_partitions (analysed later)";
  if (targets > 1) return "trials of " + fmt(targets, 0) + " targets each (the prediction replays trials of one target)";
  return geometry(cache, S, W);
}
}  // namespace

void set_stream_memo(const std::string& path) { memo_path() = path; }

namespace {
bool& judgement_on() {
  static bool on = true;
  return on;
}
}  // namespace

void set_stream_judgement(bool on) { judgement_on() = on; }

namespace {
// The judgement of `pts` on one set of S x W (geo: why there is none, "" where S and W hold) joined
// with the sequences' verdict, into cache.streams (and cache.replacement). memo_extra: what else
// keys the memo (the L2's partitions); scope: one sentence on which targets and sets (report.md).
void judge_points(nlohmann::json& cache, const std::vector<StreamPoint>& pts, const std::string& note,
                  const std::string& geo, std::uint32_t S, std::uint32_t W, double noise, const SequenceVerdict& seq,
                  const std::string& memo_extra, const std::string& scope) {
  // The same inputs judged before (set_stream_memo): the keys the judgement wrote, as it wrote them.
  const nlohmann::json cache_before = cache;
  std::string key;
  if (memo_apply(cache, pts, noise, seq, note + memo_extra, &key)) return;
  struct MemoOnReturn {
    const std::string& key;
    const nlohmann::json& before;
    nlohmann::json& cache;
    ~MemoOnReturn() {
      if (key.empty()) return;
      nlohmann::json changed = nlohmann::json::object();
      for (const auto& [k, v] : cache.items())
        if (!before.contains(k) || before[k] != v) changed[k] = v;
      memo_write(key, changed);
    }
  } memo_on_return{key, cache_before, cache};
  nlohmann::json st = nlohmann::json::object();
  Evidence ev;
  std::set<std::string> seen;
  for (const auto& p : pts)
    for (const auto& n : p.names)
      if (seen.insert(n).second) ev.add(n);
  double trials = 0;
  for (const auto& p : pts)
    if (p.measure == "evicted") trials += p.trials;
  if (!pts.empty()) st["pool_bytes"] = pts.front().pool_bytes, st["line_bytes"] = pts.front().line_bytes;
  st["sets"] = S && geo.empty() ? nlohmann::json(S) : nlohmann::json();
  st["ways"] = W && geo.empty() ? nlohmann::json(W) : nlohmann::json();
  st["trials_total"] = trials;
  if (!scope.empty()) st["scope"] = scope;
  if (!geo.empty()) {
    st["curves"] = nlohmann::json::array();
    st["candidates"] = nlohmann::json::array();
    st["named"] = nullptr;
    st["reason"] = "streams not judged: " + geo;
    st["evidence"] = ev.to_json();
    cache["streams"] = st;
    return;
  }
  const auto cands = policy::candidates_in_decision_order(W);
  auto fits = fit_streams(pts, S, W, cands, noise);
  std::set<std::string> seq_ok(seq.consistent.begin(), seq.consistent.end());
  refit_density(fits, pts, S, W, noise, seq_ok);
  for (auto& f : fits)
    if (seq.decided) f.fits_sequences = seq_ok.count(f.policy) > 0;
  // Both: in the sequence decision's order.
  std::vector<std::string> both;
  for (const auto& n : seq.consistent)
    for (const auto& f : fits)
      if (f.policy == n && f.fits) both.push_back(n);
  std::size_t fit_streams_n = 0;
  for (const auto& f : fits) fit_streams_n += f.fits;
  st["curves"] = curves_json(pts, fits, both, seq);
  st["candidates"] = candidates_json(fits);
  st["candidates_total"] = cands.size();
  st["points"] = pts.size();
  const std::string base = std::to_string(pts.size()) + " stream points (" + fmt(trials, 0) + " trials) under " +
                           std::to_string(cands.size()) + " candidates on one set of " + std::to_string(S) + " x " +
                           std::to_string(W);
  std::string nearest;
  for (std::size_t i = 0; i < fits.size() && i < 3; ++i) nearest += (i ? "; " : "") + describe(fits[i], stream_stages(pts).back().first);
  const nlohmann::json before = cache.value("replacement", nlohmann::json());
  nlohmann::json named;
  std::string reason = decide_joint(cache, before, both, seq, cands, base, fit_streams_n, nearest, ev, &named);
  if (!note.empty()) reason += " (" + note + ")";
  st["own_curves"] = own_curves(cache, pts, fits, named, ev, &reason);
  st["named"] = named;
  st["reason"] = reason;
  st["evidence"] = ev.to_json();
  cache["streams"] = st;
}
}  // namespace

bool judge_streams(nlohmann::json& cache, const Dataset& data, const std::string& name, int primary, double noise,
                   const SequenceVerdict& seq) {
  std::string note;
  const auto pts = stream_points(data, name, primary, &note);
  if (pts.empty() && note.empty()) return false;
  std::uint32_t S = 0, W = 0;
  const std::string geo = judged_geometry(cache, name, pts, note, &S, &W);
  judge_points(cache, pts, note, geo, S, W, noise, seq, "", "");
  return true;
}

namespace {
// A whole positive count held as a JSON number (any of its number types), else 0.
std::uint64_t json_count(const nlohmann::json& v) {
  if (!v.is_number()) return 0;
  const double x = v.get<double>();
  return x >= 1 && x == std::floor(x) && x < 1e12 ? static_cast<std::uint64_t>(x) : 0;
}
}  // namespace

void judge_l2_streams(nlohmann::json& t, const Dataset& data) {
  if (!judgement_on() || !t.contains("caches") || !t["caches"].contains("l2") || !t["caches"]["l2"].is_object()) return;
  nlohmann::json& c = t["caches"]["l2"];
  std::string note;
  const auto pts = stream_points(data, "l2", -1, &note);
  if (pts.empty() && note.empty()) return;
  // One partition's sets: l2_sets' sets (the whole L2) over l2_partitions' partitions; its ways.
  const nlohmann::json ls = t.value("l2_sets", nlohmann::json()), lp = t.value("l2_partitions", nlohmann::json());
  const nlohmann::json parts = lp.is_object() && lp.contains("map") && lp["map"].is_object() ? lp["map"].value("partitions", nlohmann::json())
                                                                                           : nlohmann::json();
  std::uint32_t S = 0, W = 0;
  std::string geo;
  const double targets = most_targets(pts);
  if (pts.empty()) geo = "no usable cache_streams entry (" + note + ")";
  else if (!ls.is_object() || json_count(ls.value("sets", nlohmann::json())) == 0 || json_count(ls.value("ways", nlohmann::json())) == 0)
    geo = "needs l2_sets' sets and ways (not decided)";
  else if (json_count(parts) == 0 || json_count(ls["sets"]) % json_count(parts))
    geo = "needs the L2's partitions (l2_partitions) dividing l2_sets' " + ls["sets"].dump() + " sets";
  else {
    nlohmann::json one = {{"sets", json_count(ls["sets"]) / json_count(parts)}, {"ways", json_count(ls["ways"])}};
    geo = geometry(one, &S, &W);
    // other targets of the same trial in a target's set: each one line more (not replayed)
    if (geo.empty() && (targets - 1) / S > 0.05)
      geo = "trials of " + fmt(targets, 0) + " targets each: " + fmt((targets - 1) / S, 2) +
            " other targets in a target's set, which the replay of one target does not model";
  }
  SequenceVerdict v;
  const nlohmann::json rep = ls.is_object() ? ls.value("replacement", nlohmann::json()) : nlohmann::json();
  if (ls.is_object() && (rep.is_string() || rep.is_array()) && ls.contains("replacement_consistent") &&
      ls["replacement_consistent"].is_object())
    for (const auto& cls : ls["replacement_consistent"].value("class_members", nlohmann::json::array()))
      for (const auto& n : cls)
        if (n.is_string()) v.consistent.push_back(n.get<std::string>()), v.decided = true;
  v.source = "L2 eviction-set sequences";
  const std::string scope =
      S ? "the targets homed in the reader's own L2 partition (the first loads' lower class: near_trials, near_evicted), "
          "on one set of that partition: l2_sets' " + ls["sets"].dump() + " sets over " + parts.dump() +
          " partitions; the stream's lines reach it as the reader's partition holds them (its own and copies of the "
          "other's), so the density is fitted"
        : std::string();
  judge_points(c, pts, note, geo, S, W, 0.0, v, "|l2 partitions " + parts.dump(), scope);
  // One L2 story: where the streams refute the sequences' policy, l2_sets says so too (its
  // sequences' verdict stays as replacement_sequences).
  if (v.decided && c.value("replacement", nlohmann::json()).is_null() && !rep.is_null()) {
    nlohmann::json& s = t["l2_sets"];
    s["replacement_sequences"] = rep;
    const nlohmann::json& st = c.value("streams", nlohmann::json::object());
    set_null(s, "replacement",
             "the eviction-set sequences name " + rep.dump() + ", which random streams through the reader's partition "
             "refute (caches.l2.streams): " + st.value("reason", std::string()));
  }
}

void judge_streams(CacheJob& job) {
  if (!judgement_on()) return;
  SequenceVerdict v;
  const nlohmann::json& c = job.cache;
  if (job.seq_consistent) {
    v.decided = true;
    v.consistent = *job.seq_consistent;
    v.source = "access sequences";
  } else if (c.value("replacement", nlohmann::json()) == "lru_or_fifo" && c.contains("replacement_cyclic_class")) {
    v.decided = true;
    for (const auto& n : c["replacement_cyclic_class"])
      if (n.is_string()) v.consistent.push_back(n.get<std::string>());
    v.source = "P-chase (replacement_cyclic_class)";
  }
  judge_streams(job.cache, job.data(), job.cl.name, job.primary, job.noise_per_access, v);
}

}  // namespace memhier::analysis
