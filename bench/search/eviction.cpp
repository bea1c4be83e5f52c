#include "bench/search/eviction.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace memhier::seqsearch {

std::uint32_t measured_rounds(std::size_t set_size) {
  if (set_size > 256) return 16;
  return static_cast<std::uint32_t>(std::clamp<std::size_t>(8 * set_size, 32, 1024));
}

std::uint32_t warm_rounds(const Session& s, std::size_t set_size) {
  if (set_size > 256 || s.evicts_regularly()) return 2;
  return static_cast<std::uint32_t>(std::clamp<std::size_t>(3 * set_size, 2, 192));
}

namespace {
// nullopt: stopped; else whether the pool of n lines holds without misses (beyond noise).
std::optional<bool> pool_clean(Session& s, std::uint64_t n, std::uint64_t stride) {
  auto rec = s.run(pool_probe(n, stride, s.path_code(), s.threshold()),
                   {{"step", "capacity"}, {"lines", std::to_string(n)}, {"stride", std::to_string(stride)}});
  if (!rec) return std::nullopt;
  // A GPU's odd slow access (the H100 shows one in most count runs) is not an overflowing set.
  return (*rec)[0] <= std::max<std::uint64_t>(3, n / 2000);
}
}  // namespace

PoolSize size_pool(Session& s, std::uint64_t stride, std::uint64_t hint_lines) {
  const std::uint64_t max_lines = std::min<std::uint64_t>(s.array_bytes() / 16 / stride, 0xFFFFFFFFull);
  std::uint64_t n = std::clamp<std::uint64_t>(hint_lines, 64, std::max<std::uint64_t>(64, max_lines));
  auto c = pool_clean(s, n, stride);
  if (!c) return {};
  std::uint64_t lo = 0, hi = 0;
  if (*c) {  // double until a pool misses
    for (lo = n, hi = 2 * n; hi <= max_lines; lo = hi, hi *= 2) {
      auto d = pool_clean(s, hi, stride);
      if (!d) return {};
      if (!*d) break;
    }
    if (hi > max_lines) return {lo, 0};
  } else {  // halve until one holds
    for (hi = n, lo = n / 2; lo >= 1; hi = lo, lo /= 2) {
      auto d = pool_clean(s, lo, stride);
      if (!d) return {};
      if (*d) break;
    }
    if (lo == 0) return {};
  }
  // Bisection to 1/64 (1/32 above 65536 lines): a pool within 1/(2W) of the capacity leaves
  // some sets of W ways full for W up to 32 (64).
  const std::uint64_t precision = lo > 65536 ? 32 : 64;
  while (hi - lo > std::max<std::uint64_t>(1, lo / precision)) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    auto d = pool_clean(s, mid, stride);
    if (!d) return {};
    (*d ? lo : hi) = mid;
  }
  return {lo, hi};
}

Lines overflow_targets(Session& s, const PoolSize& p, std::uint64_t stride, std::size_t max) {
  Lines out;
  if (p.hi <= p.lo || p.lo == 0 || max == 0) return out;
  const auto n = static_cast<std::uint32_t>(p.hi - p.lo);
  SequenceBuilder b(RecordMode::miss_any, s.threshold());
  const std::uint32_t first = b.new_slots(n);
  const auto st = static_cast<std::int64_t>(stride);
  b.pass(0, st, static_cast<std::uint32_t>(p.hi), s.path_code());
  b.mark();
  b.pass(0, st, static_cast<std::uint32_t>(p.lo), s.path_code());
  b.mark();
  b.pass_into(p.lo * stride, st, n, s.path_code(), first, 1);
  auto rec = s.run(b.take(), {{"step", "overflow"}, {"lines", std::to_string(p.hi)}, {"timed_from", std::to_string(p.lo)},
                              {"stride", std::to_string(stride)}});
  if (!rec) return out;
  Lines missed;
  for (std::uint32_t i = 0; i < n; ++i)
    if ((*rec)[first + i]) missed.push_back((p.lo + i) * stride);
  // The last lines first: under an index that spreads every aligned block over all sets, the lines
  // right after lo are the last line of their sets in their block and find a set one short of full
  // in the pool of lo lines; the last ones of the bracket find theirs full.
  const std::size_t step = std::max<std::size_t>(1, missed.size() / max);
  for (std::size_t i = missed.size(); i > 0 && out.size() < max; i -= std::min(i, step)) out.push_back(missed[i - 1]);
  return out;
}

Lines discover(Session& s, const PrimeProbe& p, std::uint64_t pool_base) {
  PrimeProbe q = p;
  // The pool sits at pool_base: the builders place it at 0, so shift the target and the result.
  q.target = p.target - pool_base;
  AccessSequence seq = prime_probe(q, s.path_code(), s.threshold());
  for (AccessRun& r : seq.runs)
    if (!r.is_repeat()) r.offset += pool_base;
  auto rec = s.run(std::move(seq), {{"step", "discover"},
                                    {"target", hex(p.target)},
                                    {"pool_base", hex(pool_base)},
                                    {"insertions", std::to_string(p.insertions)}});
  Lines found;
  if (!rec) return found;
  for (std::uint64_t i = 0; i < p.n; ++i)
    if ((*rec)[p.n + i] && !(*rec)[i]) found.push_back(pool_base + i * p.stride);
  return found;
}

namespace {
// Misses of the target in `rounds` measured rounds (nullopt: stopped).
std::optional<std::uint32_t> eviction_test(Session& s, std::uint64_t target, const Lines& set, std::uint32_t rounds,
                                           bool confirm) {
  auto rec = s.run(eviction_tests({target}, set, warm_rounds(s, set.size()), rounds, s.path_code(), s.threshold()),
                   {{"step", confirm ? "minimal" : "evict"}, {"target", hex(target)},
                    {"set_size", std::to_string(set.size())}});
  if (!rec) return std::nullopt;
  if ((*rec)[0] >= eviction_misses(rounds)) s.note_eviction_fraction(static_cast<double>((*rec)[0]) / rounds);
  return (*rec)[0];
}
}  // namespace

std::uint32_t eviction_misses(std::uint32_t rounds) { return std::max<std::uint32_t>(2, rounds / 100); }

bool evicts(Session& s, std::uint64_t target, const Lines& set, bool confirm) {
  std::uint32_t rounds = confirm ? 3 * kShortRounds : kShortRounds;
  auto m = eviction_test(s, target, set, rounds, confirm);
  if (!m || *m >= eviction_misses(rounds)) return m.has_value();
  if (s.evicts_regularly() && *m == 0) return false;
  rounds = measured_rounds(set.size()) * (confirm ? 3 : 1);
  for (int attempt = 0; attempt < 2; ++attempt) {
    m = eviction_test(s, target, set, rounds, confirm);
    if (!m) return false;
    if (*m >= eviction_misses(rounds)) return true;
    if (*m == 0) return false;
    rounds *= 3;  // a few misses: chance or noise; ask again with more rounds
  }
  return false;
}

Lines affine_closure(const Lines& lines, std::size_t max_size, std::uint64_t array_bytes) {
  if (lines.empty()) return {};
  std::vector<std::uint64_t> basis;  // reduced echelon form: distinct leading bits
  for (std::uint64_t x : lines) {
    std::uint64_t v = x ^ lines[0];
    for (std::uint64_t b : basis) v = std::min(v, v ^ b);
    if (v == 0) continue;
    if ((std::size_t{1} << std::min<std::size_t>(basis.size() + 1, 63)) > max_size) return {};
    basis.push_back(v);
    std::sort(basis.rbegin(), basis.rend());
  }
  Lines out;
  for (std::uint64_t mask = 0; mask < (1ull << basis.size()); ++mask) {
    std::uint64_t v = lines[0];
    for (std::size_t i = 0; i < basis.size(); ++i)
      if (mask >> i & 1) v ^= basis[i];
    if (v + 4 > array_bytes) return {};
    out.push_back(v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::size_t> coset_support_direct(const Lines& lines, std::uint64_t target) {
  std::unordered_set<std::uint64_t> in(lines.begin(), lines.end());
  in.insert(target);
  Lines all(lines);
  all.push_back(target);
  std::vector<std::size_t> support(lines.size(), 0);
  for (std::size_t k = 0; k < lines.size(); ++k)
    for (std::size_t i = 0; i < all.size(); ++i)
      for (std::size_t j = i + 1; j < all.size(); ++j) {
        const std::uint64_t x = lines[k], y = x ^ all[i] ^ all[j];
        if (all[i] != x && all[j] != x && y != x && in.count(y)) ++support[k];
      }
  return support;
}

// With distinct lines, x's support is, over every other line y, the pairs with a ^ b = x ^ y other
// than {x, y} itself.
std::vector<std::size_t> coset_support_pairs(const Lines& lines, std::uint64_t target) {
  Lines all(lines);
  all.push_back(target);
  std::unordered_map<std::uint64_t, std::uint32_t> pairs;
  pairs.reserve(all.size() * all.size() / 2);
  for (std::size_t i = 0; i < all.size(); ++i)
    for (std::size_t j = i + 1; j < all.size(); ++j) ++pairs[all[i] ^ all[j]];
  std::vector<std::size_t> support(lines.size(), 0);
  for (std::size_t k = 0; k < lines.size(); ++k)
    for (std::uint64_t y : all)
      if (y != lines[k]) support[k] += pairs.at(lines[k] ^ y) - 1;
  return support;
}

Lines coset_core(const Lines& lines, std::uint64_t target) {
  if (lines.size() < 4 || lines.size() > 1024) return lines;
  // Pair counts (O(n^2)) where the lines are distinct: the direct count is O(n^3), seconds for the
  // ~1000 lines an L2's probe pass may flag, on every target.
  std::unordered_set<std::uint64_t> in(lines.begin(), lines.end());
  in.insert(target);
  const auto support = in.size() == lines.size() + 1 ? coset_support_pairs(lines, target)
                                                     : coset_support_direct(lines, target);
  const std::size_t best = *std::max_element(support.begin(), support.end());
  Lines kept;
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (support[k] > 0 && 4 * support[k] >= best) kept.push_back(lines[k]);
  return kept;
}

namespace {
// Halving by address bits: for each bit on which the lines differ, keep only the lines with it
// clear (or set) when they still evict. Fill units of one line (the search stride below the line)
// and lines outside the target's set go in a few tests each.
Lines halve_by_bits(Session& s, std::uint64_t target, Lines set) {
  for (unsigned b = 0; b < 64 && set.size() > 1 && !stopped(s); ++b) {
    Lines half[2];
    for (std::uint64_t x : set) half[x >> b & 1].push_back(x);
    if (half[0].empty() || half[1].empty()) continue;
    for (Lines& h : half)
      if (evicts(s, target, h)) {
        set = std::move(h);
        break;
      }
  }
  return set;
}
}  // namespace

Lines reduce(Session& s, std::uint64_t target, Lines set) {
  set = halve_by_bits(s, target, std::move(set));
  // Group testing: one pass over groups of ⌈|set|/8⌉ lines, then passes with finer groups, down to
  // single lines. A removed group's successors slide into its place, so each pass is linear.
  std::size_t groups = 8;
  for (;;) {
    const std::size_t gsize = (set.size() + groups - 1) / groups;
    for (std::size_t first = 0; first < set.size() && set.size() > 1;) {
      const std::size_t last = std::min(set.size(), first + gsize);
      Lines rest(set.begin(), set.begin() + static_cast<std::ptrdiff_t>(first));
      rest.insert(rest.end(), set.begin() + static_cast<std::ptrdiff_t>(last), set.end());
      if (!rest.empty() && evicts(s, target, rest)) set = std::move(rest);
      else first = last;
      if (stopped(s)) return set;
    }
    if (gsize <= 1) return set;
    groups *= 2;
  }
}

namespace {
// The line of `set` that can go (the set still evicts without it), or set.size(). A cache that
// evicts regularly answers every "without e" test at once, batched into as few launches as the run
// limit allows (the warm rounds flush what the test before left: its least recent line).
std::size_t removable_line(Session& s, std::uint64_t target, const Lines& set) {
  std::vector<Lines> without;
  for (std::size_t i = 0; i < set.size(); ++i) {
    without.push_back(set);
    without.back().erase(without.back().begin() + static_cast<std::ptrdiff_t>(i));
  }
  if (!s.evicts_regularly()) {
    for (std::size_t i = 0; i < set.size(); ++i)
      if (evicts(s, target, without[i], true) || stopped(s)) return stopped(s) ? set.size() : i;
    return set.size();
  }
  const std::size_t per_launch = std::max<std::size_t>(1, s.max_runs() / eviction_test_runs(set.size()));
  for (std::size_t first = 0; first < set.size(); first += per_launch) {
    const std::size_t n = std::min(per_launch, set.size() - first);
    const std::vector<Lines> sets(without.begin() + static_cast<std::ptrdiff_t>(first),
                                  without.begin() + static_cast<std::ptrdiff_t>(first + n));
    auto rec = s.run(eviction_tests(Lines(n, target), sets, 2, 3 * kShortRounds, s.path_code(), s.threshold()),
                     {{"step", "minimal"}, {"target", hex(target)}, {"without", std::to_string(first)},
                      {"set_size", std::to_string(set.size())}});
    if (!rec) return set.size();
    for (std::size_t i = 0; i < n; ++i)
      if ((*rec)[i] >= 2) return first + i;
  }
  return set.size();
}
}  // namespace

bool confirm_minimal(Session& s, std::uint64_t target, Lines& set) {
  for (std::size_t pass = 0; pass <= set.size(); ++pass) {
    if (!evicts(s, target, set, true)) return false;
    const std::size_t i = removable_line(s, target, set);
    if (stopped(s)) return false;
    if (i == set.size()) return true;
    set.erase(set.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return false;
}

}  // namespace memhier::seqsearch
