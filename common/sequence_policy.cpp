#include "common/sequence_policy.hpp"

#include <unordered_map>

#include "common/policy.hpp"

namespace memhier {

namespace {
// The sequence as line ids (first appearance order) and the slot of each access.
void as_lines(const AccessSequence& seq, std::vector<std::int64_t>* lines, std::vector<std::uint32_t>* slots) {
  std::unordered_map<std::uint64_t, std::int64_t> id;
  for_each_access(
      seq,
      [&](std::uint64_t offset, std::uint8_t, std::uint32_t slot) {
        lines->push_back(id.emplace(offset, static_cast<std::int64_t>(id.size())).first->second);
        slots->push_back(slot);
      },
      [] {});
}
}  // namespace

std::vector<std::uint32_t> predict_misses(const std::string& policy, std::uint32_t ways, const AccessSequence& seq) {
  std::vector<std::int64_t> lines;
  std::vector<std::uint32_t> slots;
  as_lines(seq, &lines, &slots);
  const std::vector<bool> hits = policy::simulate_set(policy, ways, lines);
  std::vector<std::uint32_t> misses(seq.slots, 0);
  for (std::size_t k = 0; k < hits.size(); ++k)
    if (slots[k] != kUntimed && !hits[k]) ++misses[slots[k]];
  return misses;
}

std::vector<double> expected_misses(const std::string& policy, std::uint32_t ways, const AccessSequence& seq,
                                    unsigned runs, std::uint64_t seed, const std::vector<double>& weights) {
  std::vector<std::int64_t> lines;
  std::vector<std::uint32_t> slots;
  as_lines(seq, &lines, &slots);
  const std::vector<double> p_hit = policy::hit_probability(policy, ways, lines, runs, seed, weights);
  std::vector<double> misses(seq.slots, 0.0);
  for (std::size_t k = 0; k < p_hit.size(); ++k)
    if (slots[k] != kUntimed) misses[slots[k]] += 1.0 - p_hit[k];
  return misses;
}

}  // namespace memhier
