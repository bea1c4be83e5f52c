#include "bench/seqsearch/search.hpp"

#include <algorithm>

namespace memhier::seqsearch {

namespace {

std::uint64_t next_pow2(std::uint64_t x) {
  std::uint64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

std::string why_stopped(const Session& s, const std::string& otherwise) {
  if (s.failed()) return "a sequence failed: " + s.first_error();
  if (s.exhausted()) return "budget exhausted";
  return otherwise;
}

// Discovery then reduction for targets in the targets region; the pool itself as the last resort.
bool find_eviction_set(Session& s, const SearchConfig& c, SearchResult& r, policy::SplitMix64& rng) {
  const std::uint64_t t0 = 8 * r.pool.region, lines_in_region = r.pool.region / r.stride;
  for (unsigned j = 0; j < c.max_targets && !stopped(s); ++j) {
    const std::uint64_t t = t0 + (rng.next() % lines_in_region) * r.stride;
    PrimeProbe p{r.pool_lines, r.stride, t, 0, 1, 1};
    Lines set = discover(s, p);
    if (set.empty()) continue;
    if (!evicts(s, t, set)) {
      p = PrimeProbe{r.pool_lines, r.stride, t, static_cast<std::uint32_t>(r.pool_lines / 2), 2, 2};
      for (std::uint64_t x : discover(s, p))
        if (std::find(set.begin(), set.end(), x) == set.end()) set.push_back(x);
      if (!evicts(s, t, set)) {
        set = affine_closure(set, 4096, s.array_bytes());
        set.erase(std::remove(set.begin(), set.end(), t), set.end());
        if (set.empty() || !evicts(s, t, set)) continue;
      }
    }
    r.target = t;
    r.eviction_set = reduce(s, t, set);
    return !stopped(s);
  }
  if (stopped(s) || r.pool_lines > 1024) return false;  // group testing from the whole pool costs ~|pool| launches
  Lines pool;
  for (std::uint64_t i = 0; i < r.pool_lines; ++i) pool.push_back(i * r.stride);
  r.target = t0;
  if (!evicts(s, t0, pool)) return false;
  r.eviction_set = reduce(s, t0, pool);
  return !stopped(s);
}

// Candidates for further lines of the target's set: the affine closure of the eviction set, the
// target and the congruent flips above the line (under an XOR index all lie in the set), else
// prime and probe in further regions.
Lines fresh_candidates(Session& s, const SearchResult& r, std::size_t wanted) {
  Lines exclude = r.eviction_set, seeds = r.eviction_set, flips;
  exclude.push_back(r.target);
  seeds.push_back(r.target);
  for (unsigned b : r.congruence->congruent_bits)
    if (b >= r.congruence->line_bit) flips.push_back(r.target ^ (1ull << b));
  for (auto [a, b] : r.congruence->congruent_pairs) flips.push_back(r.target ^ (1ull << a) ^ (1ull << b));
  Lines fresh;
  for (std::size_t f = 0; f <= flips.size() && fresh.size() < wanted; ++f) {  // one more flip as a seed each time
    if (f > 0) seeds.push_back(flips[f - 1]);
    const Lines closure = affine_closure(seeds, 4096, s.array_bytes());
    if (closure.empty()) break;
    fresh.clear();
    for (std::uint64_t x : closure)
      if (std::find(exclude.begin(), exclude.end(), x) == exclude.end() && x >= r.pool.bytes) fresh.push_back(x);
  }
  if (fresh.size() >= wanted) {
    fresh.resize(wanted + wanted / 2);  // a margin for lines the check drops
    return fresh;
  }
  return fresh_lines(s, r.target, r.congruence->line_bit, r.pool, wanted, exclude, 7);
}

// Further verified lines of the target's set, for the policy experiments.
Lines verified_fresh(Session& s, const SearchResult& r) {
  const std::size_t W = r.eviction_set.size();
  const Lines fresh = fresh_candidates(s, r, 2 * W + 2);
  if (fresh.empty()) return fresh;
  auto ok = same_set(s, fresh, r.eviction_set, r.target, {{"step", "verify"}, {"target", hex(r.target)}});
  Lines kept;
  if (!ok) return kept;
  for (std::size_t i = 0; i < fresh.size(); ++i)
    if ((*ok)[i]) kept.push_back(fresh[i]);
  return kept;
}

}  // namespace

SearchResult run_search(Session& s, const SearchConfig& c) {
  SearchResult r;
  policy::SplitMix64 rng(c.seed);
  r.granularity = measure_granularity(s, rng);  // also calibrates the miss threshold
  r.stride = c.stride ? c.stride : r.granularity;
  if (r.stride == 0) return r.stopped = why_stopped(s, "no fill granularity"), r;
  r.pool_lines = size_pool(s, r.stride, c.capacity / r.stride);
  if (r.pool_lines == 0) return r.stopped = why_stopped(s, "no pool holds without misses"), r;
  r.pool.bytes = r.pool_lines * r.stride;
  r.pool.region = next_pow2(r.pool.bytes);
  if (16 * r.pool.region > s.array_bytes()) return r.stopped = "the array is too small for the pool's regions", r;
  if (!find_eviction_set(s, c, r, rng)) return r.stopped = why_stopped(s, "no target's set was found"), r;
  r.minimal = confirm_minimal(s, r.target, r.eviction_set);
  if (stopped(s)) return r.stopped = why_stopped(s, ""), r;
  r.congruence = test_congruence(s, r.target, r.eviction_set, r.stride);
  if (!r.congruence) return r.stopped = why_stopped(s, ""), r;
  r.columns_probed = probe_columns(s, r.target, *r.congruence, r.pool, c.column_probe_max_lines);
  const Lines fresh = verified_fresh(s, r);
  r.fresh_lines = fresh.size();
  if (stopped(s)) return r.stopped = why_stopped(s, ""), r;
  r.policy = probe_policy(s, {r.eviction_set, r.target, fresh}, c.policy_repeats, c.seed, c.start_empty);
  r.stopped = stopped(s) ? why_stopped(s, "") : "";
  return r;
}

}  // namespace memhier::seqsearch
