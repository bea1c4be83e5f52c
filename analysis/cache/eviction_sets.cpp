#include "analysis/cache/eviction_sets.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

namespace memhier::analysis {

SetsResult sets_from_membership(const std::vector<std::vector<std::uint64_t>>& missing, std::uint64_t lines_at_c) {
  SetsResult r;
  std::set<std::uint64_t> prev;
  for (std::size_t j = 0; j < missing.size(); ++j) {
    std::set<std::uint64_t> cur(missing[j].begin(), missing[j].end());
    std::vector<std::uint64_t> added;
    for (auto l : cur)
      if (!prev.count(l)) added.push_back(l);
    const std::uint64_t new_line = lines_at_c + j;  // the line this step added
    if (added.size() >= 2) {
      r.ways.push_back(static_cast<int>(added.size()) - 1);
      r.members.push_back(added);
      r.opening_lines.push_back(new_line);
    }
    cur.insert(prev.begin(), prev.end());
    prev = cur;
    const std::uint64_t lines = lines_at_c + j + 1;
    r.complete = prev.size() >= lines;
    if (r.complete) break;
  }
  return r;
}

SetsResult sets_from_counts(const std::vector<double>& misses, std::uint64_t lines_at_c) {
  SetsResult r;
  double prev = 0;
  for (std::size_t j = 0; j < misses.size(); ++j) {
    const double d = std::round(misses[j] - prev);
    if (d >= 2) {
      r.ways.push_back(static_cast<int>(d) - 1);
      r.opening_lines.push_back(lines_at_c + j);
    }
    prev = misses[j];
    r.complete = std::round(misses[j]) >= static_cast<double>(lines_at_c + j + 1);
    if (r.complete) break;
  }
  return r;
}

IndexBits index_bits_of(const SetsResult& s, std::uint64_t line_bytes) {
  IndexBits out;
  const std::size_t t = s.ways.size();
  if (!s.complete || t == 0) return out;
  if (t == 1) {  // fully associative: no index bits
    out.bits = true;
    return out;
  }
  if ((t & (t - 1)) != 0 || s.members.size() != t) return out;
  int nb = 0;
  while ((1u << nb) < t) ++nb;
  int lb = 0;
  while ((1ull << lb) < line_bytes) ++lb;
  std::vector<int> fits;
  for (int lo = lb; lo < 40; ++lo) {
    std::set<std::uint64_t> used;
    bool ok = true;
    for (std::size_t k = 0; k < t && ok; ++k) {
      std::set<std::uint64_t> v;
      for (auto l : s.members[k]) v.insert(((l * line_bytes) >> lo) & (t - 1));
      ok = v.size() == 1 && used.insert(*v.begin()).second;
    }
    if (ok) fits.push_back(lo);
  }
  if (fits.empty()) return out;
  out.bits = true;
  out.lo = fits.front();
  out.hi = fits.front() + nb - 1;
  out.ambiguous = fits.size() > 1;
  return out;
}

namespace {

std::string hex_bits(const IndexBits& b) {
  if (b.hi < b.lo) return "none (fully associative)";
  return std::to_string(b.lo) + "-" + std::to_string(b.hi);
}

// Steps j of N = C + j*u at stride u (fine or count mode) that the data holds.
std::map<std::uint64_t, const Chase*> stage2_steps(const CacheJob& job, const Stage2& s2) {
  std::map<std::uint64_t, const Chase*> step;
  for (auto* c : job.pd.all)
    if (c->stride == s2.u && c->warm && c->bytes > s2.C && (c->bytes - s2.C) % s2.u == 0 &&
        c->mode == (s2.use_fine ? "fine" : "count") && job.at_primary(*c))
      step[(c->bytes - s2.C) / s2.u] = c;
  return step;
}

ChaseWish stage2_wish(const CacheJob& job, const Stage2& s2, std::uint64_t j) {
  const std::uint64_t n = s2.C + j * s2.u;
  return ChaseWish{job.path, s2.use_fine ? "fine" : "count", n, s2.u, s2.use_fine ? 4096 : 2 * (n / s2.u), true,
                   job.primary, job.cl.name + " stage 2 (sets)"};
}

// Asks for the steps after `have` up to the next target (16, doubling, or, for fine traces, C/(ways*u)
// at once when every step so far opened a set of the same ways: their members give the index).
void request_stage2(CacheJob& job, const Stage2& s2) {
  const std::uint64_t max_j = std::min<std::uint64_t>(s2.use_fine ? 256 : 4096, s2.lines_c);
  const SetsResult& sr = s2.sets;
  std::uint64_t target = 16;
  while (target <= s2.have) target *= 2;
  bool alike = !sr.ways.empty() && sr.ways.size() == s2.have;
  for (int w : sr.ways) alike = alike && w == sr.ways.front();
  if (alike && sr.ways.front() > 0 && s2.use_fine) target = std::max<std::uint64_t>(target, s2.lines_c / sr.ways.front());
  target = std::min(target, max_j);
  for (std::uint64_t j = s2.have + 1; j <= target; ++j) {
    const std::uint64_t n = s2.C + j * s2.u;
    ChaseWish w = stage2_wish(job, s2, j);
    // The j = 1 run also decides the replacement: its trace must hold several passes.
    if (s2.use_fine && j == 1 && 3 * (n / s2.u + 1) > w.iters)
      w.iters = w.max_records = static_cast<std::uint32_t>(3 * (n / s2.u + 1));
    job.ctx.requests.add(w);
  }
}

// The run that tests the bit range right above the line for T alike sets of W ways: W + 1 lines
// T * u bytes apart (they share a set under that range and all miss each pass; a hash spreads them).
ChaseWish index_run_wish(const CacheJob& job, std::uint64_t u, std::uint64_t T, std::uint64_t W) {
  const std::uint64_t stride = T * u, bytes = (W + 1) * stride;
  return ChaseWish{job.path, "count", bytes, stride, 8 * (W + 1), true, job.primary, job.cl.name + " index bits"};
}

// Count mode, every step so far (at least 16) opened one set of the same W ways: the hypothesis
// "T = C / (W u) sets alike" is tested by two runs instead of T: at j = T - 1 one set is still
// unopened ((T - 1)(W + 1) misses per pass), at j = T every line misses. True when it holds (the
// sets are then filled in).
enum class Hypothesis { not_applicable, requested, verified, failed };
Hypothesis alike_hypothesis(CacheJob& job, Stage2& s2, const std::map<std::uint64_t, const Chase*>& step) {
  const SetsResult& sr = s2.sets;
  if (s2.use_fine || sr.complete || s2.have < 16 || sr.ways.size() != s2.have) return Hypothesis::not_applicable;
  const int W = sr.ways.front();
  for (int w : sr.ways)
    if (w != W || W <= 0) return Hypothesis::not_applicable;
  const std::uint64_t T = s2.lines_c / static_cast<std::uint64_t>(W);
  if (s2.lines_c % static_cast<std::uint64_t>(W) != 0 || T <= s2.have + 1) return Hypothesis::not_applicable;
  auto a = step.find(T - 1), b = step.find(T);
  if (a == step.end() || b == step.end()) {
    job.ctx.requests.add(stage2_wish(job, s2, T - 1));
    job.ctx.requests.add(stage2_wish(job, s2, T));
    job.ctx.requests.add(index_run_wish(job, s2.u, T, static_cast<std::uint64_t>(W)));  // needed next, if it holds
    return Hypothesis::requested;
  }
  const double ma = job.misses_per_pass(*a->second), mb = job.misses_per_pass(*b->second);
  const double want_a = static_cast<double>((T - 1) * (static_cast<std::uint64_t>(W) + 1));
  if (std::fabs(ma - want_a) > 0.5 || mb < static_cast<double>(s2.lines_c + T) - 0.5) return Hypothesis::failed;
  s2.sets.complete = true;
  s2.sets.ways.assign(T, W);
  s2.evidence.add(a->second->name());
  s2.evidence.add(b->second->name());
  s2.have = T;
  return Hypothesis::verified;
}

}  // namespace

Stage2 measure_stage2(CacheJob& job, std::uint64_t C, std::uint64_t u) {
  Stage2 s2 = Stage2::at(C, u);
  const auto step = stage2_steps(job, s2);
  std::vector<std::vector<std::uint64_t>> missing;
  std::vector<double> counts;
  for (std::uint64_t j = 1;; ++j) {
    auto it = step.find(j);
    if (it == step.end()) break;
    const Trace* t = job.data().trace(*it->second);
    if (!t) break;
    if (j == 1) s2.first_step = it->second;
    s2.evidence.add(it->second->name());
    if (s2.use_fine) {
      std::vector<std::uint64_t> m;
      for (std::size_t k = 0; k < t->latency.size(); ++k)
        if (t->latency[k] > job.cl.boundary) m.push_back(static_cast<std::uint64_t>(t->index[k]) * 4 / u);
      missing.push_back(m);
    } else {
      counts.push_back(job.misses_per_pass(*it->second));
    }
    s2.have = j;
  }
  s2.sets = s2.use_fine ? sets_from_membership(missing, s2.lines_c) : sets_from_counts(counts, s2.lines_c);
  if (!s2.sets.complete) {
    const Hypothesis h = alike_hypothesis(job, s2, step);
    if (h == Hypothesis::not_applicable || h == Hypothesis::failed) request_stage2(job, s2);
  }
  return s2;
}

namespace {

// Count mode (too many lines for a fine trace): every step opened a set of its own, so the
// candidate is the bit range right above the line. Test it: W+1 lines 2^(log2 line + log2 T) bytes
// apart share one set under that range and all miss each pass; a hash spreads them.
void index_bits_from_counts(CacheJob& job, const Stage2& s2) {
  const SetsResult& sr = s2.sets;
  const std::uint64_t u = s2.u;
  const std::uint64_t T = sr.ways.size();
  bool alike = (T & (T - 1)) == 0;
  for (int w : sr.ways) alike = alike && w == sr.ways.front();
  if (!alike) {
    set_null(job.cache, "index_bits",
             "set membership needs fine traces (too many lines for one) and the sets are not alike", s2.evidence);
    return;
  }
  const std::uint64_t W = static_cast<std::uint64_t>(sr.ways.front());
  const std::uint64_t stride = T * u, bytes = (W + 1) * stride;
  const Chase* c = nullptr;
  for (auto* x : job.pd.all)
    if (x->stride == stride && x->bytes == bytes && x->warm && x->mode == "count" && job.at_primary(*x) &&
        job.data().trace(*x))
      c = x;
  int lb = 0, nb = 0;
  while ((1ull << lb) < u) ++lb;
  while ((1ull << nb) < T) ++nb;
  if (!c) {
    if (job.ctx.requests.add(index_run_wish(job, u, T, W)))
      set_null(job.cache, "index_bits", "the run that tests index bits " + std::to_string(lb) + "-" +
                                            std::to_string(lb + nb - 1) + " is requested", s2.evidence);
    else
      set_null(job.cache, "index_bits", "the run that tests the index bits (" + std::to_string(bytes) +
                                            " bytes) exceeds the device's limit for path " + job.path, s2.evidence);
    return;
  }
  Evidence iev = s2.evidence;
  iev.add(c->name());
  if (job.miss_fraction(*c) > 0.99)
    set_value(job.cache, "index_bits", nlohmann::json::array({lb, lb + nb - 1}), 0.85, iev,
              std::to_string(W + 1) + " lines " + std::to_string(stride) +
                  " bytes apart all miss every pass: they share one set (address bits " + std::to_string(lb) + "-" +
                  std::to_string(lb + nb - 1) + ")");
  else
    set_value(job.cache, "index_bits", "hashed", 0.8, iev,
              "consecutive lines open distinct sets, but " + std::to_string(W + 1) + " lines " +
                  std::to_string(stride) + " bytes apart do not share one set: no bit range above the line");
}

void index_bits_from_membership(CacheJob& job, const Stage2& s2) {
  IndexBits ib = index_bits_of(s2.sets, s2.u);
  if (ib.bits)
    set_value(job.cache, "index_bits", ib.hi < ib.lo ? nlohmann::json::array() : nlohmann::json::array({ib.lo, ib.hi}),
              ib.ambiguous ? 0.6 : 0.9, s2.evidence,
              std::string("address bits ") + hex_bits(ib) + " reproduce the sets" +
                  (ib.ambiguous ? "; higher bit ranges also fit the lines measured" : ""));
  else
    set_value(job.cache, "index_bits", "hashed", 0.8, s2.evidence, "no address bit range reproduces the observed sets");
}

}  // namespace

void write_sets(CacheJob& job, const Stage2& s2) {
  const SetsResult& sr = s2.sets;
  if (!sr.complete) {
    const std::uint64_t max_j = std::min<std::uint64_t>(s2.use_fine ? 256 : 4096, s2.lines_c);
    const std::string why = s2.have == 0 ? "stage-2 runs (N = C + j*u, s = u) not measured yet (requested)"
                                         : "stage 2 up to j=" + std::to_string(s2.have) + " has not opened every set" +
                                               (s2.have >= max_j ? "" : " (more steps requested)");
    for (auto k : {"sets", "ways", "index_bits"}) set_null(job.cache, k, why, s2.evidence);
    return;
  }
  std::uint64_t total_ways = 0;
  for (int w : sr.ways) total_ways += w;
  // Membership counts always add up once every line missed; sets whose ways differ by more than
  // 2x are the mark of members a non-LRU policy kept (real unequal sets, 000 Fig. 9, differ less).
  const auto [wmin, wmax] = std::minmax_element(sr.ways.begin(), sr.ways.end());
  const bool consistent = total_ways * s2.u == s2.C && !sr.ways.empty() && *wmin > 0 && *wmax <= 2 * *wmin;
  if (!consistent) {
    // A non-LRU set that overflows keeps some of its lines in a pass, so short traces miss members
    // and the ways do not add up to C / line (docs/methodology.md, inference: ambiguity classes).
    const std::string why = "stage 2 found " + std::to_string(sr.ways.size()) + " sets whose ways x line (" +
                            std::to_string(total_ways * s2.u) + " bytes) do not add up to the size: a non-LRU set "
                            "keeps some members in a pass, so the traces did not show every member (ambiguity "
                            "class non_lru_stage2)";
    for (auto k : {"sets", "ways", "index_bits"}) set_null(job.cache, k, why, s2.evidence);
    job.cache["ambiguity"] = nlohmann::json::array({"non_lru_stage2"});
    return;
  }
  set_value(job.cache, "sets", sr.ways.size(), 0.9, s2.evidence, "steps of N = C + j*u that opened a new set");
  set_value(job.cache, "ways", sr.ways, 0.9, s2.evidence, "per set in order of opening (may be unequal)");
  if (s2.use_fine)
    index_bits_from_membership(job, s2);
  else
    index_bits_from_counts(job, s2);
}

}  // namespace memhier::analysis
