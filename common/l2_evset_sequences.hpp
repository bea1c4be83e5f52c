// The access sequences of the l2_evsets family's policy runs (docs/methodology.md, "l2_evsets: the
// L2's replacement policy"), shared by the plan (bench/plans/l2_evsets_plan.cpp) and the tests: sequences
// over the lines 0 ... ways of one set (ways + 1 lines), each run from an empty set. Seeded, the
// same on every platform. Plain C++.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace memhier {

// What one policy run takes (the kernel keeps the lines and a sequence in shared memory).
constexpr int kEvsetPolicyMaxLines = 64;     // lines of one set (ways + 1)
constexpr int kEvsetPolicyMaxLength = 1024;  // accesses of one sequence

// Groups of numbers as the l2_evset trace writes them (docs/formats.md, content l2_evset): ';'
// between groups, ',' within one.
template <class T>
std::string evset_join_groups(const std::vector<std::vector<T>>& groups) {
  std::string s;
  for (std::size_t k = 0; k < groups.size(); ++k) {
    if (k) s += ";";
    for (std::size_t i = 0; i < groups[k].size(); ++i) s += (i ? "," : "") + std::to_string(groups[k][i]);
  }
  return s;
}

// `count` random sequences, then count / 4 protection sequences, every one listed twice (the second
// run of each follows the first run of all):
// - random: the set filled with `ways` of the lines in a random order, then 3 x ways accesses,
//   half to one of the 4 lines used last, half to one of the ways / 2 used longest ago: hits that
//   refresh young lines, and accesses to old ones that miss where the policy evicted them (uniform
//   choices over the ways + 1 lines left LRU, SRRIP and 143 other candidates indistinguishable on a
//   simulated 16-way LRU set);
// - protection: the set filled, k of its lines (k = 1 ... ways / 2 in turn) hit once or twice, the
//   other ways + 1 - k lines read cyclically twice (they overflow what is left of the set), then the
//   k lines and the others once more: whether a line once hit outlives a stream of misses (segmented
//   LRU with a protected segment of k or more lines keeps it, LRU does not; the random sequences
//   never miss long enough to tell).
std::vector<std::vector<std::uint32_t>> evset_policy_sequences(std::uint32_t ways, int count, std::uint64_t seed);

}  // namespace memhier
