#include "bench/search/search.hpp"

#include <unordered_set>

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
  if (!s.limit_reason().empty()) return s.limit_reason();
  if (s.exhausted()) return "budget exhausted";
  return otherwise;
}

// The pool's stride: the fill granularity, doubled while the capacity hint would take more than
// kPoolLinesPerPass lines (a pass over an L2-sized pool at 32 B costs ~0.1 s on an H100; congruence
// still flips every bit from the granularity up, so a line shorter than the stride is still seen).
constexpr std::uint64_t kPoolLinesPerPass = 1ull << 17;
std::uint64_t pool_stride(std::uint64_t granularity, std::uint64_t capacity_hint) {
  std::uint64_t st = granularity;
  while (capacity_hint / st > kPoolLinesPerPass) st *= 2;
  return st;
}

// Targets, alternately: random lines of the targets region (8 x the pool's region) and lines whose
// sets overflow just past the pool (overflow_targets). Under an index that spreads every aligned
// block over all sets, a random line's set is full in the pool with the probability that the
// pool's last, partial block covers it; the lines past the pool map, block for block, to sets
// XOR-shifted together and are all full or all short. Under an index with uneven sets (a soft edge
// from the index), the overflowing lines are the ones whose sets are full.
Lines targets(Session& s, const SearchConfig& c, SearchResult& r, policy::SplitMix64& rng) {
  const Lines over = overflow_targets(s, {r.pool_lines, r.pool_hi_lines}, r.stride, c.max_targets);
  r.overflow_targets = over.size();
  const std::uint64_t t0 = 8 * r.pool.region, lines_in_region = r.pool.region / r.stride;
  Lines t;
  for (unsigned j = 0; j < c.max_targets; ++j) {
    t.push_back(t0 + (rng.next() % lines_in_region) * r.stride);
    if (j < over.size()) t.push_back(over[j]);
  }
  return t;
}

Lines closure_without(const Lines& lines, std::uint64_t t, std::uint64_t array_bytes) {
  Lines c = affine_closure(lines, 4096, array_bytes);
  c.erase(std::remove(c.begin(), c.end(), t), c.end());
  return c;
}

// A discovery cut short (a random or QLRU victim choice ends the probe's cascade early): a second
// one from the middle of the pool with two insertions, the union, then the affine closure of the
// union's coset core (a slow outlier in a probe pass flags a line of another set, and one such line
// doubles a closure), then of the whole union. True with `set` evicting t.
bool complete_discovery(Session& s, const SearchResult& r, std::uint64_t t, Lines& set) {
  const std::size_t first = set.size();
  std::unordered_set<std::uint64_t> have(set.begin(), set.end());  // a union in O(n), not O(n^2)
  for (std::uint64_t x :
       discover(s, PrimeProbe{r.pool_lines, r.stride, t, static_cast<std::uint32_t>(r.pool_lines / 2), 2, 2}))
    if (have.insert(x).second) set.push_back(x);
  if (set.size() > first && evicts(s, t, set)) return true;
  const Lines trimmed = coset_core(set, t);
  for (const Lines* seed : {&trimmed, static_cast<const Lines*>(&set)}) {
    if (seed->size() < 2 || stopped(s) || (seed == &set && trimmed.size() == set.size())) continue;
    Lines c = closure_without(*seed, t, s.array_bytes());
    if (!c.empty() && evicts(s, t, c)) return set = std::move(c), true;
  }
  return false;
}

// Discovery then reduction for the targets; the pool itself as the last resort.
bool find_eviction_set(Session& s, const SearchConfig& c, SearchResult& r, policy::SplitMix64& rng) {
  const std::uint64_t t0 = 8 * r.pool.region;
  const Lines ts = targets(s, c, r, rng);
  for (std::size_t j = 0; j < ts.size() && !stopped(s); ++j) {
    const std::uint64_t t = ts[j];
    Lines set = discover(s, PrimeProbe{r.pool_lines, r.stride, t, 0, 1, 1});
    // Nothing, or only lines no two others support (slow outliers of the probe pass): t's set is
    // not full in the pool; the next target.
    if (set.empty() || (set.size() >= 8 && coset_core(set, t).empty())) continue;
    if (!evicts(s, t, set) && !complete_discovery(s, r, t, set)) continue;
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

// The pool of `lines` lines for discovery (and its regions); false when the array cannot hold 16
// regions.
bool use_pool(const Session& s, SearchResult& r, std::uint64_t lines) {
  r.pool_lines = lines;
  r.pool.bytes = lines * r.stride;
  r.pool.region = next_pow2(r.pool.bytes);
  return 16 * r.pool.region <= s.array_bytes();
}

}  // namespace

SearchResult run_search(Session& s, const SearchConfig& c) {
  SearchResult r;
  policy::SplitMix64 rng(c.seed);
  r.calibration = calibrate(s);  // the fill granularity and the miss threshold
  if (!r.calibration.why.empty() || stopped(s))
    return r.stopped = why_stopped(s, "no miss threshold: " + r.calibration.why), r;
  r.granularity = r.calibration.granularity;
  r.stride = c.stride ? c.stride : pool_stride(r.granularity, c.capacity);
  const PoolSize ps = size_pool(s, r.stride, c.capacity / r.stride);
  r.pool_lines = ps.lo;
  r.pool_hi_lines = ps.hi;
  if (r.pool_lines == 0) return r.stopped = why_stopped(s, "no pool holds without misses"), r;
  if (!use_pool(s, r, r.pool_lines)) return r.stopped = "the array is too small for the pool's regions", r;
  bool found = find_eviction_set(s, c, r, rng);
  // A soft edge: the largest clean pool may leave no set full. The smallest pool seen with misses
  // overflows some sets and fills others (random targets only).
  if (!found && !stopped(s) && r.pool_hi_lines > r.pool_lines && use_pool(s, r, r.pool_hi_lines)) {
    r.pool_hi_lines = r.pool_lines;  // no bracket above it: no overflow targets
    r.pool_overflows = true;
    SearchConfig half = c;
    half.max_targets = std::max(1u, c.max_targets / 2);
    found = find_eviction_set(s, half, r, rng);
  }
  if (!found) return r.stopped = why_stopped(s, "no target's set was found"), r;
  r.minimal = confirm_minimal(s, r.target, r.eviction_set);
  if (stopped(s)) return r.stopped = why_stopped(s, ""), r;
  r.congruence = test_congruence(s, r.target, r.eviction_set, std::min(r.granularity, r.stride));
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
