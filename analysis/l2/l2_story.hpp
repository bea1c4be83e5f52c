// One L2 story (issue 30 item 3): caches.l2 holds the whole L2 where the L2's own experiments
// decided it (l2_sets: ways, sets, replacement from eviction sets; l2_slices and l2_partitions: the
// slices), and what one SM's P-chase sees (where misses begin, the 50 % point, the replication
// limit of l2_partitions) as named sub-figures under caches.l2.one_sm_sees. A value the P-chase
// decided that the L2's experiments contradict becomes null with both named: no section of a
// report says another thing than caches.l2.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace memhier::analysis {

// Merges topology t's l2_sets, l2_slices and l2_partitions into t["caches"]["l2"] (nothing where
// l2_sets is absent). size_bytes = partitions x slices per partition x sets per slice x ways x line
// where every factor is decided; it must equal the device's L2 size (context l2_cache_bytes), else
// size_bytes is null with both figures.
void merge_l2_story(nlohmann::json& t);

// Where l2_slices left slices_per_partition null with a lower bound: the counts that would give
// every slice the same whole number of l2_sets' sets (slices_per_partition_candidates, each with the
// slices its test lines would leave unseen) and the measured reason, in l2_slices' provenance.
void explain_slice_count(nlohmann::json& t);

// One sentence, from l2_sets' own data, on how the verified minimal sets and the cyclic-read sweeps
// give the ways (and which larger ways the data rule out); "" where l2_sets has no ways.
std::string l2_ways_sentence(const nlohmann::json& l2_sets);

}  // namespace memhier::analysis
