#include "bench/search/congruence.hpp"

#include <algorithm>
#include <set>
#include <string>

namespace memhier::seqsearch {

namespace {

unsigned log2_floor(std::uint64_t x) {
  unsigned n = 0;
  while ((2ull << n) <= x) ++n;
  return n;
}

// One batch of same-set tests; per victim its miss count (nullopt: stopped).
std::optional<std::vector<std::uint32_t>> batch(Session& s, const Lines& victims, const std::vector<Lines>& sets,
                                                std::uint32_t rounds, Tags tags) {
  if (!tags.count("step")) tags["step"] = "congruence";
  tags["victims"] = std::to_string(victims.size());
  return s.run(eviction_tests(victims, sets, 2, rounds, s.path_code(), s.threshold()), tags);
}

// The set each victim is tested against: `set`, or, for a line of it, the set with `target` there.
std::vector<Lines> sets_for(const Lines& victims, const Lines& set, std::uint64_t target) {
  std::vector<Lines> out;
  for (std::uint64_t v : victims) {
    Lines x = set;
    std::replace(x.begin(), x.end(), v, target);
    out.push_back(std::move(x));
  }
  return out;
}

}  // namespace

std::optional<std::vector<bool>> same_set(Session& s, const Lines& victims, const Lines& set, std::uint64_t target,
                                          const Tags& tags) {
  const std::size_t per_launch = std::max<std::size_t>(1, s.max_runs() / eviction_test_runs(set.size()));
  // Regular evictors answer in a short test; random-like ones need the long one.
  const std::uint32_t rounds = s.evicts_regularly() ? kShortRounds : measured_rounds(set.size());
  const std::vector<Lines> sets = sets_for(victims, set, target);
  std::vector<bool> out(victims.size(), false);
  std::vector<std::size_t> again;
  for (std::size_t first = 0; first < victims.size(); first += per_launch) {
    const std::size_t n = std::min(per_launch, victims.size() - first);
    const auto b = static_cast<std::ptrdiff_t>(first), e = static_cast<std::ptrdiff_t>(first + n);
    auto rec = batch(s, Lines(victims.begin() + b, victims.begin() + e),
                     std::vector<Lines>(sets.begin() + b, sets.begin() + e), rounds, tags);
    if (!rec) return std::nullopt;
    for (std::size_t i = 0; i < n; ++i) {
      out[first + i] = (*rec)[i] >= eviction_misses(rounds);
      if ((*rec)[i] > 0 && !out[first + i]) again.push_back(first + i);
    }
  }
  for (std::size_t first = 0; first < again.size(); first += per_launch) {
    Lines chunk;
    std::vector<Lines> chunk_sets;
    for (std::size_t i = first; i < std::min(again.size(), first + per_launch); ++i) {
      chunk.push_back(victims[again[i]]);
      chunk_sets.push_back(sets[again[i]]);
    }
    auto rec = batch(s, chunk, chunk_sets, 3 * rounds, tags);
    if (!rec) return std::nullopt;
    for (std::size_t i = 0; i < chunk.size(); ++i) out[again[first + i]] = (*rec)[i] >= eviction_misses(3 * rounds);
  }
  return out;
}

std::optional<Congruence> test_congruence(Session& s, std::uint64_t target, const Lines& set, std::uint64_t stride) {
  Congruence c;
  Lines victims;
  for (unsigned b = log2_floor(stride); b < 63 && (target ^ (1ull << b)) + 4 <= s.array_bytes(); ++b) {
    c.bits.push_back(b);
    victims.push_back(target ^ (1ull << b));
  }
  auto single = same_set(s, victims, set, target, {{"step", "congruence"}, {"flip", "bit"}, {"target", hex(target)}});
  if (!single) return std::nullopt;
  c.line_bit = c.bits.empty() ? log2_floor(stride) : c.bits.back() + 1;
  for (std::size_t i = 0; i < c.bits.size(); ++i) {
    if ((*single)[i]) c.congruent_bits.push_back(c.bits[i]);
    else c.line_bit = std::min(c.line_bit, c.bits[i]);
  }
  std::vector<unsigned> rest;
  for (std::size_t i = 0; i < c.bits.size(); ++i)
    if (!(*single)[i] && c.bits[i] >= c.line_bit) rest.push_back(c.bits[i]);
  std::vector<std::pair<unsigned, unsigned>> pairs;
  victims.clear();
  for (std::size_t i = 0; i < rest.size(); ++i)
    for (std::size_t j = i + 1; j < rest.size(); ++j) {
      const std::uint64_t u = target ^ (1ull << rest[i]) ^ (1ull << rest[j]);
      if (u + 4 > s.array_bytes()) continue;
      pairs.emplace_back(rest[i], rest[j]);
      victims.push_back(u);
    }
  auto two = same_set(s, victims, set, target, {{"step", "congruence"}, {"flip", "pair"}, {"target", hex(target)}});
  if (!two) return std::nullopt;
  for (std::size_t i = 0; i < pairs.size(); ++i)
    if ((*two)[i]) c.congruent_pairs.push_back(pairs[i]);
  return c;
}

bool probe_columns(Session& s, std::uint64_t target, const Congruence& c, const Pool& pool, std::uint64_t max_lines) {
  const std::uint64_t line = 1ull << c.line_bit, n = pool.bytes / line;
  if (n == 0 || n > max_lines) return false;
  Lines targets = {target};
  for (unsigned b : c.bits)
    if (b >= c.line_bit && std::find(c.congruent_bits.begin(), c.congruent_bits.end(), b) == c.congruent_bits.end())
      targets.push_back(target ^ (1ull << b));
  for (std::uint64_t u : targets) {
    if (u < pool.bytes) continue;  // inside the pool: not a fresh line for it
    PrimeProbe p;
    p.n = n;
    p.stride = line;
    p.target = u;
    discover(s, p);
    if (stopped(s)) return false;
  }
  return true;
}

Lines fresh_lines(Session& s, std::uint64_t target, unsigned line_bit, const Pool& pool, std::size_t wanted,
                  const Lines& exclude, unsigned max_regions) {
  const std::uint64_t line = 1ull << line_bit, n = pool.bytes / line;
  std::set<std::uint64_t> seen(exclude.begin(), exclude.end());
  Lines out;
  for (unsigned r = 1; r <= max_regions && out.size() < wanted && n > 0; ++r) {
    if (target >= r * pool.region && target < r * pool.region + pool.bytes) continue;  // a line of that pool
    PrimeProbe p;
    p.n = n;
    p.stride = line;
    p.target = target;
    p.insertions = 2;
    p.probes = 2;
    p.rotation = static_cast<std::uint32_t>(n / 2);
    for (std::uint64_t x : discover(s, p, r * pool.region))
      if (seen.insert(x).second) out.push_back(x);
    if (stopped(s)) break;
  }
  return out;
}

}  // namespace memhier::seqsearch
