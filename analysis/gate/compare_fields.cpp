// memhier-compare: verdict and direction names, the class of a topology leaf (structural,
// measured, bookkeeping) and the direction of a counter or leaf.
#include "analysis/gate/compare.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "analysis/gate/compare_detail.hpp"
#include "analysis/gate/topology_fields.hpp"

namespace memhier::analysis {

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::same: return "SAME";
    case Verdict::better: return "BETTER";
    case Verdict::worse: return "WORSE";
    case Verdict::changed: return "CHANGED";
    case Verdict::info: return "INFO";
    case Verdict::analyzer_changed: return "ANALYZER-CHANGED";
  }
  return "?";
}

const char* direction_name(Direction d) {
  switch (d) {
    case Direction::lower: return "lower_is_better";
    case Direction::higher: return "higher_is_better";
    case Direction::structure: return "structure";
    case Direction::unknown: return "unknown";
    case Direction::ignore: return "ignored";
  }
  return "?";
}

namespace compare_detail {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Rates in [0, 1] are compared by their absolute difference (0 -> 0.02 is not "infinitely worse").
bool is_fraction(const std::string& leaf) {
  return ends_with(leaf, "miss_rate") || leaf == "hit_rate" || contains(leaf, "miss_rate_") || contains(leaf, "probabilit");
}

}  // namespace compare_detail

using compare_detail::contains;
using compare_detail::ends_with;

namespace {

// Leaves that state the hardware's structure.
const std::set<std::string> kStructuralLeaves = {
    "present",    "size_bytes",   "line_bytes",       "sector_bytes",    "sets",         "ways",   "ways_per_set",
    "replacement", "index_bits",  "page_bytes",       "entries",         "banks",        "bank_width_bytes",
    "broadcasts", "serves_parallel", "needs_alignment", "needs_contiguity", "partitioned", "detected",
    "per_sm",     "shared_with",  "size_carveout",    "size_bracket_bytes", "size_bytes_by_carveout",
    "size_bracket_bytes_by_carveout", "prefetched",
    // sections of the outstanding-request, sharing and L2-partition analyses
    "slices_per_sm", "design", "entries_per_sm", "merge_capacity", "request_unit",
    "max_outstanding_requests_per_sm", "partitions", "interleave_bytes",
    // address translation (issue 11)
    "reach_per_entry_bytes", "pages_per_entry",
    // cache inference (issue 10): the minimal eviction set's size, the index matrix (reduced row
    // echelon form: one matrix, one text). Where misses begin (onset_size_bytes and its bracket) is a
    // measured figure, not structure: with a hashed index the first set overflows at a footprint that
    // depends on where the allocation lies physically (five back-to-back H100 runs of 2026-11-23:
    // 20.5-22.5 MiB, intervals that do not overlap), while the capacity (size_bytes) is gated.
    "ways_one_set", "index_matrix",
    // levels beyond one SM (issue 21): which L2 keeps host and peer lines
    "cached_in", "cached_in_l2",
    // the L2's slices (issue 20): their count and whether the slice is an XOR of address bits
    "slices_per_partition", "slices", "xor_of_offset_bits",
    // the L2's sets from minimal eviction sets (issue 20; l2_sets.ways and l2_sets.sets are the
    // leaves "ways" and "sets" above)
    "sets_per_slice"};
// Path components under which everything is bookkeeping.
const std::set<std::string> kBookkeepingParts = {
    "provenance", "evidence",  "inputs",   "refinement_pending", "measurement", "skipped", "skipped_benchmarks",
    "curve",      "plateaus",  "steps",    "inner_steps",        "configuration", "peak_configuration",
    "departures", "device",    "notes",    "note",               "reason",      "reasons",
    // address_translation: the per-stride detail behind the TLB levels (caches.*_tlb compare them)
    "rises",      "coverage",  "unconfirmed_rises", "smallest_step", "levels_vmm_gap", "levels_vmm",
    // cache inference bookkeeping (issue 10)
    "refinement", "eviction_set",
    // l2_sets (issue 20): the cyclic-read sweeps behind the ways (their classes' line numbers and
    // each sweep's step; l2_sets.ways is the decision) and the policy sequences behind
    // l2_sets.replacement (their threshold and counts)
    "cyclic_reads", "policy_sequences",
    // caches.*.streams (cache_streams): the per-k curves and each candidate policy's fit behind the
    // joint judgement of caches.*.replacement (the decision)
    "streams"};
// Leaves that are bookkeeping wherever they are.
const std::set<std::string> kBookkeepingLeaves = {
    "benchmark", "peak_benchmark", "confidence", "ambiguity", "accesses", "min", "max", "samples", "bytes",
    "stride", "threshold_pct_of_peak", "cache_bytes", "tolerance", "schema", "rule", "model",
    "readers_per_line", "peak_readers_per_line", "warps_per_sm", "bytes_in_flight_per_sm",
    "size_bytes_lower_bound", "replacements_observed", "theoretical_bytes_per_second",
    "theoretical_bytes_per_clock_per_sm", "reach_bracket_bytes", "full_height_from_stride", "lines_per_run",
    "z_crit", "miss_penalty_lower_bound_cycles",  // a TLB level not saturated: a bound, not its penalty
    "partitions_lower_bound",  // every probed SM in one L2 partition: a bound, not the count
    // cache inference (issue 10): the 50 % point beside a capacity the structure or a fit gives (the
    // curve's feature, kept for comparison: size_bytes carries the capacity), the address bits the
    // index matrix is decided over (the measurement's reach, not the hardware)
    "half_point_bytes", "half_point_bracket_bytes", "index_matrix_bits",
    // l2_sets (issue 20): how each target's search went (its size, tests and the pool), not the L2
    "set_size_by_target", "tests_by_target", "tests_max_target", "pool_of_l2", "from_trace", "minimal_sets_match_ways"};

}  // namespace

Direction counter_direction(const std::string& c) {
  // Where the benchmark ran and how it was set up: not a result.
  if (c == "sm_id" || c == "clock_overhead_cycles") return Direction::ignore;
  if (c == "carveout" || c == "accesses") return Direction::structure;
  if (c == "hit_rate") return Direction::higher;
  if (ends_with(c, "miss_rate") || c == "misses" || ends_with(c, "_misses")) return Direction::lower;
  if (contains(c, "latency") || ends_with(c, "_cycles")) return Direction::lower;
  if (contains(c, "bytes_per_second") || contains(c, "pct_of_peak") || contains(c, "bytes_per_clock") ||
      ends_with(c, "_per_second"))
    return Direction::higher;
  return Direction::unknown;
}

Direction topology_direction(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string p;
  while (std::getline(ss, p, '.')) parts.push_back(p);
  if (parts.empty()) return Direction::unknown;
  std::string leaf = parts.back();
  auto bracket = leaf.find('[');
  if (bracket != std::string::npos) leaf = leaf.substr(0, bracket);
  if (leaf == "confidence") return Direction::unknown;
  if (contains(leaf, "bytes_per_second") || contains(leaf, "pct_of") || contains(leaf, "bytes_per_clock"))
    return Direction::higher;
  if (contains(leaf, "latency") || contains(leaf, "penalty") || ends_with(leaf, "_cycles") ||
      ends_with(leaf, "miss_rate"))
    return Direction::lower;
  // A generic leaf under a measured parent, e.g. shared_memory.latency_by_stride.128
  for (const auto& q : parts) {
    if (contains(q, "latency")) return Direction::lower;
    if (contains(q, "bytes_per_second") || contains(q, "bandwidth")) return Direction::higher;
  }
  return Direction::structure;
}

const char* field_class_name(FieldClass c) {
  switch (c) {
    case FieldClass::structural: return "structural";
    case FieldClass::measured: return "measured";
    case FieldClass::bookkeeping: return "bookkeeping";
  }
  return "?";
}

FieldClass topology_class(const std::string& path, bool is_string) {
  const auto parts = path_parts(path);
  if (parts.empty()) return FieldClass::bookkeeping;
  for (const auto& q : parts)
    if (kBookkeepingParts.count(q)) return FieldClass::bookkeeping;
  // The leaf, or the map it belongs to (size_bytes_by_carveout.0).
  const std::string& leaf = parts.back();
  const std::string parent = parts.size() >= 2 ? parts[parts.size() - 2] : "";
  // Where misses begin is measured, per carveout as overall (onset_size_bytes is no structural
  // leaf: a hashed index moves it with the physical placement); the capacities per carveout are.
  if (kStructuralLeaves.count(leaf) || (ends_with(parent, "_by_carveout") && parent.rfind("onset_", 0) != 0))
    return FieldClass::structural;
  // The decisions of the level sections (rank_effect.decided: "none" / "depends on rank") are
  // structure; their configurations (l2_configuration: the best one's parameters) bookkeeping.
  if (leaf == "decided" && ends_with(parent, "_effect")) return FieldClass::structural;
  for (const auto& q : parts)
    if (ends_with(q, "_configuration")) return FieldClass::bookkeeping;
  if (kBookkeepingLeaves.count(leaf) || ends_with(leaf, "_reason") || ends_with(leaf, "_source") ||
      leaf.rfind("theoretical", 0) == 0)
    return FieldClass::bookkeeping;
  if (is_string) return FieldClass::bookkeeping;
  return FieldClass::measured;
}

int CompareResult::count(Verdict v) const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [v](const CompareRow& r) { return r.verdict == v; }));
}

int CompareResult::structural_rows() const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const CompareRow& r) {
    return r.kind == "topology" && r.field_class == "structural";
  }));
}

std::string CompareResult::structure() const {
  if (structural_rows() == 0) return "";
  for (const auto& r : rows)
    if (r.kind == "topology" && r.field_class == "structural" && r.verdict == Verdict::changed) return "CHANGED";
  return "SAME";
}

}  // namespace memhier::analysis
