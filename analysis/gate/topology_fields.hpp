// Leaves of a topology report (topology.json) as compare reads them: flattened to dotted paths
// (caches.l1.size_bytes, arrays of structure scalars as one value), the range a structural value
// stands for (its stated bracket), the confidence the analyzer states for it, and the judgement of
// two structural values (docs/methodology.md, section `compare`).
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace memhier::analysis {

using FlatTopology = std::map<std::string, nlohmann::json>;

// "caches.l1.ways[0]" -> {"caches", "l1", "ways"}
std::vector<std::string> path_parts(const std::string& path);
// Every leaf except the provenance text (device, evidence, reason, notes, inputs, schema, ...).
void flatten(const nlohmann::json& j, const std::string& prefix, FlatTopology& out);
FlatTopology flatten(const nlohmann::json& topology);
// A value for a table cell: text as is, numbers with 6 significant digits, null as "null".
std::string show(const nlohmann::json& v);
// The range a structural value stands for: its own [lo, hi] when it is a two-number bracket, the
// sibling bracket the analyzer states for it (size_bytes -> size_bracket_bytes, x -> x_range),
// else the value.
std::optional<std::pair<double, double>> range_of(const FlatTopology& f, const std::string& key);
// Confidence the analyzer states for a leaf: <section>.provenance.<key>.confidence (1 when absent).
double confidence_of(const FlatTopology& f, const std::string& key);

// A replacement policy as the set of policies it allows: a name; a list of candidates;
// "lru_or_fifo" (the cyclic P-chase's reading: every line of the overflowed set misses in every
// pass, which LRU, FIFO and every policy that thrashes on a cyclic sweep of ways + 1 lines give:
// tree-PLRU, NRU, most QLRU variants); "non-lru" (aperiodic misses: any policy but those; all_but).
// ways: of the set (0: unknown, every common count). Not a policy statement (a number): nullopt.
struct PolicyCandidates {
  std::set<std::string> names;
  bool all_but = false;  // every policy except `names`
};
std::optional<PolicyCandidates> policy_candidates(const nlohmann::json& v, std::uint32_t ways = 0);
// The deterministic policies of common/policy under which a cyclic sweep over ways + 1 lines of
// one set misses on every access (ways 0: for any of 2-32 ways).
std::set<std::string> cyclic_thrashing_policies(std::uint32_t ways);
bool overlap(const PolicyCandidates& a, const PolicyCandidates& b);

// Two structural values that are present and non-null on both sides and differ as JSON: CHANGED
// when their stated ranges are disjoint beyond `size_tolerance` (fraction of the size) or, without
// ranges, when both are stated at confidence >= kStructuralConfidence; otherwise not. A lower bound
// (x_is_lower_bound; max_outstanding_is_lower_bound) is CHANGED only by a value below it.
struct StructuralJudgement {
  bool changed = false;
  bool low_confidence = false;  // not CHANGED because one side states it below the confidence
  std::string test;             // "range" or "exact"
  std::string note;
};
StructuralJudgement judge_structural(const FlatTopology& a, const FlatTopology& b, const std::string& key,
                                     double size_tolerance);

}  // namespace memhier::analysis
