// The l2_evsets family's policy sequences (common/l2_evset_sequences.hpp).
#include "common/l2_evset_sequences.hpp"

#include <algorithm>
#include <numeric>

#include "common/policy.hpp"  // SplitMix64

namespace memhier {
namespace {

// The ways + 1 lines in a seeded random order (Fisher-Yates on splitmix64).
std::vector<std::uint32_t> shuffled(std::uint32_t ways, policy::SplitMix64& rng) {
  std::vector<std::uint32_t> ids(ways + 1);
  std::iota(ids.begin(), ids.end(), 0u);
  for (std::uint32_t i = ways + 1; i > 1; --i) std::swap(ids[i - 1], ids[rng.next() % i]);
  return ids;
}

std::vector<std::uint32_t> random_sequence(std::uint32_t ways, policy::SplitMix64& rng) {
  const std::vector<std::uint32_t> ids = shuffled(ways, rng);
  std::vector<std::uint32_t> q(ids.begin(), ids.begin() + ways);  // the fill: all but ids[ways]
  std::vector<std::uint32_t> recent(q.rbegin(), q.rend());         // every line, the last used first
  recent.push_back(ids[ways]);                                     // (the one left out last)
  for (std::uint32_t k = 0; k < 3 * ways; ++k) {
    const std::uint64_t r = rng.next();
    const std::uint64_t old = std::max<std::uint32_t>(1, ways / 2);
    const std::uint32_t x = (r & 1) ? recent[(r >> 1) % std::min<std::size_t>(4, recent.size())] : recent[ways - (r >> 1) % old];
    q.push_back(x);
    recent.erase(std::remove(recent.begin(), recent.end(), x), recent.end());
    recent.insert(recent.begin(), x);
  }
  return q;
}

// k hot lines of the fill hit `hits` times each, the others streamed twice, then all once more.
std::vector<std::uint32_t> protection_sequence(std::uint32_t ways, std::uint32_t k, int hits, policy::SplitMix64& rng) {
  const std::vector<std::uint32_t> ids = shuffled(ways, rng);
  std::vector<std::uint32_t> q(ids.begin(), ids.begin() + ways);
  const std::vector<std::uint32_t> hot(ids.begin(), ids.begin() + k), cold(ids.begin() + k, ids.end());
  for (int h = 0; h < hits; ++h) q.insert(q.end(), hot.begin(), hot.end());
  for (int r = 0; r < 2; ++r) q.insert(q.end(), cold.begin(), cold.end());
  q.insert(q.end(), hot.begin(), hot.end());
  q.insert(q.end(), cold.begin(), cold.end());
  return q;
}

}  // namespace

std::vector<std::vector<std::uint32_t>> evset_policy_sequences(std::uint32_t ways, int count, std::uint64_t seed) {
  policy::SplitMix64 rng(seed);
  std::vector<std::vector<std::uint32_t>> once;
  if (ways < 1) return once;
  for (int n = 0; n < count; ++n) once.push_back(random_sequence(ways, rng));
  const std::uint32_t kmax = std::max<std::uint32_t>(1, ways / 2);
  for (int n = 0; n < count / 4; ++n)
    once.push_back(protection_sequence(ways, 1 + static_cast<std::uint32_t>(n) % kmax, 1 + (n / static_cast<int>(kmax)) % 2, rng));
  std::vector<std::vector<std::uint32_t>> out = once;
  out.insert(out.end(), once.begin(), once.end());
  return out;
}

}  // namespace memhier
