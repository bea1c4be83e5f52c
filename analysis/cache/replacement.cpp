#include "analysis/cache/replacement.hpp"

#include "analysis/gate/topology_fields.hpp"

#include "analysis/core/stats.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace memhier::analysis {

namespace {

// The trace with spurious misses removed, when they are all it departs from a periodic pattern by:
// per position in the pass, the majority over the passes; every departure an extra miss (noise only
// adds latency), as many as Poisson(noise x accesses the pattern has hit) makes plausible. Else the
// trace unchanged. `cleaned` counts the misses removed.
std::vector<bool> without_spurious_misses(const std::vector<bool>& miss, std::uint64_t period, double noise,
                                          std::size_t* cleaned) {
  *cleaned = 0;
  const std::size_t n = miss.size();
  if (std::getenv("MEMHIER_DEBUG_POLICY"))
    std::fprintf(stderr, "trace: n %zu period %llu noise %g\n", n, (unsigned long long)period, noise);
  if (noise <= 0 || period == 0 || n < 3 * period) return miss;
  std::vector<int> votes(period, 0), passes(period, 0);
  for (std::size_t k = 0; k < n; ++k) votes[k % period] += miss[k] ? 1 : 0, passes[k % period] += 1;
  std::vector<bool> major(period);
  for (std::size_t j = 0; j < period; ++j) major[j] = 2 * votes[j] > passes[j];
  double extra = 0, hits = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (major[k % period] && !miss[k]) return miss;  // a miss of the pattern that hit: not noise
    hits += major[k % period] ? 0 : 1;
    extra += !major[k % period] && miss[k] ? 1 : 0;
  }
  if (std::getenv("MEMHIER_DEBUG_POLICY"))
    std::fprintf(stderr, "trace clean: n %zu period %llu noise %g extra %g hits %g\n", n, (unsigned long long)period, noise, extra, hits);
  if (extra == 0 || poisson_upper_tail(extra, noise * hits) < kNoiseFitAlphaTrace) return miss;
  *cleaned = static_cast<std::size_t>(extra);
  std::vector<bool> out(n);
  for (std::size_t k = 0; k < n; ++k) out[k] = major[k % period];
  return out;
}

}  // namespace

PolicyResult replacement_of(const std::vector<std::uint64_t>& line, const std::vector<bool>& measured,
                            std::uint64_t period, double noise, std::uint64_t ways) {
  PolicyResult r;
  const std::vector<bool> miss = without_spurious_misses(measured, period, noise, &r.spurious_misses);
  const std::size_t n = line.size();
  if (period == 0 || n < 2 * period) {
    r.reason = "the N = C + b trace holds " + std::to_string(n) + " accesses, fewer than two passes of " +
               std::to_string(period) + " (k >> N/s needed)";
    return r;
  }
  std::set<std::uint64_t> members;
  for (std::size_t k = 0; k < n; ++k)
    if (miss[k]) members.insert(line[k]);
  if (members.size() < 2) {
    r.reason = "fewer than two lines miss at N = C + b";
    return r;
  }
  if (ways > 0 && members.size() > ways + 1) {
    r.reason = std::to_string(members.size()) + " lines miss at N = C + b, more than the " + std::to_string(ways + 1) +
               " of one overflowed " + std::to_string(ways) +
               "-way set: the index spreads the overflow over several sets (a hashed index does), so 000 "
               "Fig. 11's reading of one set does not apply";
    return r;
  }
  bool periodic = true;
  for (std::size_t k = 0; k + period < n && periodic; ++k) periodic = miss[k] == miss[k + period];
  // Every member misses in every full pass?
  bool all_each_pass = true;
  for (std::size_t p = 0; (p + 1) * period <= n && all_each_pass; ++p) {
    std::set<std::uint64_t> m;
    for (std::size_t k = p * period; k < (p + 1) * period; ++k)
      if (miss[k]) m.insert(line[k]);
    all_each_pass = m.size() == members.size();
  }
  if (periodic && all_each_pass) {
    r.policy = "lru_or_fifo";
    return r;
  }
  // Fig. 11: with a+1 members and a ways, the line that misses next is the victim of the current
  // miss; the missing line takes the victim's slot.
  std::vector<std::uint64_t> seq;
  for (std::size_t k = 0; k < n; ++k)
    if (miss[k] && members.count(line[k])) seq.push_back(line[k]);
  std::map<std::uint64_t, int> slot;
  std::vector<double> count;
  for (std::size_t t = 0; t + 1 < seq.size(); ++t) {
    const std::uint64_t victim = seq[t + 1];
    if (victim == seq[t]) continue;
    auto it = slot.find(victim);
    int s;
    if (it == slot.end()) {
      s = static_cast<int>(count.size());
      count.push_back(0);
    } else {
      s = it->second;
    }
    count[s] += 1;
    slot[seq[t]] = s;
    slot.erase(victim);
  }
  r.way_counts = count;
  for (double c : count) r.replacements += c;
  std::sort(count.begin(), count.end(), std::greater<>());
  for (double c : count) r.way_probabilities.push_back(r.replacements > 0 ? c / r.replacements : 0);
  r.policy = chi_square_rejects_uniform(r.way_counts) ? "non-lru" : "random";
  return r;
}

namespace {

// The ways of a set where they are known: a minimal eviction set of the access sequences (written
// before the P-chase stages run), else the most ways of a complete stage-2 membership; 0 if neither.
std::uint64_t known_ways(const CacheJob& job, const Stage2& s2) {
  const nlohmann::json es = job.cache.value("eviction_set", nlohmann::json::object());
  if (es.value("minimal", false) && es.value("lines", 0) > 0) return es.value("lines", 0);
  if (s2.sets.complete && !s2.sets.ways.empty())
    return static_cast<std::uint64_t>(*std::max_element(s2.sets.ways.begin(), s2.sets.ways.end()));
  return 0;
}

// lru_or_fifo names a class, not two policies: every policy under which a cyclic chase over ways + 1
// lines of a set misses on every access gives the same trace (NRU and bit-PLRU do, issue 30 item 5).
// Writes that class for the cache's ways (every distinct count of unequal sets) and names it in the
// note.
std::string write_cyclic_class(CacheJob& job, std::uint64_t ways) {
  std::set<std::uint32_t> counts;
  const nlohmann::json w = job.cache.value("ways", nlohmann::json());
  if (w.is_array())
    for (const auto& x : w)
      if (x.is_number()) counts.insert(x.get<std::uint32_t>());
  if (counts.empty() && ways > 0) counts.insert(static_cast<std::uint32_t>(ways));
  if (counts.empty()) return "";
  std::set<std::string> cls = cyclic_thrashing_policies(*counts.begin());
  for (auto k : counts) {
    const auto other = cyclic_thrashing_policies(k);
    for (auto it = cls.begin(); it != cls.end();) it = other.count(*it) ? std::next(it) : cls.erase(it);
  }
  job.cache["replacement_cyclic_class"] = std::vector<std::string>(cls.begin(), cls.end());
  std::string names;
  for (const auto& n : cls)
    if (n != "lru" && n != "fifo" && names.size() < 200) names += (names.empty() ? "" : ", ") + n;
  return names.empty() ? "" : "; so do " + names + " (replacement_cyclic_class): lru_or_fifo names that class";
}

// The j = 1 fine run: its trace holds several passes over the C/u + 1 lines.
void replacement_from_trace(CacheJob& job, const Stage2& s2) {
  const Trace* t = job.data().trace(*s2.first_step);
  std::vector<std::uint64_t> ln;
  std::vector<bool> ms;
  for (std::size_t k = 0; k < t->latency.size(); ++k) {
    ln.push_back(static_cast<std::uint64_t>(t->index[k]) * 4 / s2.u);
    ms.push_back(t->latency[k] > job.cl.boundary);
  }
  Evidence pev;
  pev.add(s2.first_step->name());
  PolicyResult pr = replacement_of(ln, ms, s2.lines_c + 1, job.noise_per_access, known_ways(job, s2));
  if (pr.policy.empty()) {
    set_null(job.cache, "replacement", pr.reason, pev);
    return;
  }
  const std::string cls = pr.policy == "lru_or_fifo" ? write_cyclic_class(job, known_ways(job, s2)) : "";
  set_value(job.cache, "replacement", pr.policy, pr.policy == "lru_or_fifo" ? 0.9 : 0.8, pev,
            pr.policy == "lru_or_fifo"
                ? "periodic: every line of the overflowed set misses in every pass; a cyclic P-chase cannot "
                  "tell LRU from FIFO" + cls +
                      (pr.spurious_misses ? " (" + std::to_string(pr.spurious_misses) +
                                                " isolated extra misses, as many as the measured noise makes, set aside)"
                                          : std::string())
                : "aperiodic misses; per-way probabilities from the victims' slots (000 Fig. 11), ways sorted by "
                  "probability (their numbering is not observable)");
  if (pr.way_probabilities.empty()) return;
  nlohmann::json p = nlohmann::json::array();
  for (double x : pr.way_probabilities) p.push_back(std::round(x * 1000) / 1000);
  set_value(job.cache, "replacement_probabilities", p, 0.8, pev,
            "from " + std::to_string(static_cast<long long>(pr.replacements)) + " replacements");
  set_value(job.cache, "replacements_observed", pr.replacements, 0.9, pev,
            "replacements reconstructed from the N = C + b trace (the sample behind the probabilities)");
}

// Count mode: an overflowed set whose W+1 lines all miss in every pass (the miss count jumped by
// exactly W+1 at each opening and the ways add up to the size) is LRU or FIFO; a random policy
// keeps some of them.
void replacement_from_counts(CacheJob& job, const Stage2& s2) {
  const SetsResult& sr = s2.sets;
  bool exact = sr.complete && !sr.ways.empty();
  std::uint64_t tw = 0;
  for (int w : sr.ways) tw += static_cast<std::uint64_t>(w);
  exact = exact && tw * s2.u == s2.C;
  if (exact)
    set_value(job.cache, "replacement", "lru_or_fifo", 0.8, s2.evidence,
              "count-mode stage 2: every line of each overflowed set misses in every pass; a cyclic P-chase "
              "cannot tell LRU from FIFO" + write_cyclic_class(job, 0));
  else
    set_null(job.cache, "replacement",
             "too many lines for a fine trace holding several passes, and the miss counts are not those of "
             "LRU/FIFO sets");
}

}  // namespace

void per_way_probabilities(CacheJob& job, std::uint64_t C, std::uint64_t u) {
  Stage2 s2 = Stage2::at(C, u);
  if (u == 0 || !s2.use_fine) return;
  for (auto* c : job.pd.all)
    if (c->mode == "fine" && c->stride == u && c->bytes == C + u && c->warm && job.at_primary(*c) && job.data().trace(*c))
      s2.first_step = c;
  if (!s2.first_step) {
    const std::uint32_t n = static_cast<std::uint32_t>(3 * (s2.lines_c + 1));
    ChaseWish w{job.path, "fine", C + u, u, std::max<std::uint64_t>(n, 4096), true, job.primary,
                job.cl.name + " replacement: per-way probabilities"};
    w.max_records = std::max<std::uint32_t>(n, 4096);
    job.ctx.requests.add(w);
    return;
  }
  const nlohmann::json seq = job.cache["replacement"], prov = job.cache["provenance"]["replacement"];
  replacement_from_trace(job, s2);
  if (job.cache.value("replacement", nlohmann::json()) != "non-lru") {  // uniform: the sequences' word stands
    job.cache["replacement"] = seq;
    job.cache["provenance"]["replacement"] = prov;
  }
}

void write_replacement(CacheJob& job, const Stage2& s2) {
  if (s2.first_step && s2.use_fine)
    replacement_from_trace(job, s2);
  else if (!s2.use_fine)
    replacement_from_counts(job, s2);
  else
    set_null(job.cache, "replacement", "the N = C + b fine run is not measured yet (requested)");
}

}  // namespace memhier::analysis
