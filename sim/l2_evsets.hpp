// The simulated device's whole L2 as the l2_evsets family sees it (issue 20 item 2;
// docs/methodology.md, "l2_evsets"; docs/formats.md, sim-config key `l2_evsets`): `sets` sets of
// `ways` ways of 128-byte lines, a line's set from its line number (modulo, or a seeded splitmix
// mix of it, mod sets: any count of sets), one replacement policy of common/policy.hpp. One test
// of the family is simulated in the one set of its target: the set starts full of older (junk)
// lines, the target is written, then the candidate lines of that set are read in order `passes`
// times; the target is evicted when it is no longer resident. A share of the sets (seeded) holds a
// line the reads never displace, so such a set offers ways - 1 ways to the test. The timed cyclic
// reads of the plan's way count hit or miss by the same sets (hit_cycles, miss_cycles). Pure C++: no
// CUDA, no bench/ header (bench/backends/backend_sim.cpp adapts it to the family's plan).
#pragma once
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace memhier::sim {

struct L2EvsetsModel {
  bool present = false;           // the config has `l2_evsets`
  std::uint32_t ways = 16;        // 1 ... 64
  std::uint64_t sets = 1;         // >= 1, any count
  std::uint64_t line_bytes = 128; // only 128
  std::string index = "modulo";   // modulo | hash
  std::string policy = "lru";     // canonical name of a common/policy.hpp model
  std::uint64_t seed = 1;
  bool readout_works = true;      // false: discard + read tells nothing (every test reads "evicted")
  double pinned_fraction = 0;     // share of sets with one way the reads never displace
  std::uint32_t hit_cycles = 260;   // a timed L2 hit of the cyclic reads (the clock pair included)
  std::uint32_t miss_cycles = 620;  // a timed miss (DRAM)
  std::uint64_t capacity_bytes() const { return sets * ways * line_bytes; }
};

// Parses the `l2_evsets` object; throws std::runtime_error("l2_evsets: <what>") on a problem.
L2EvsetsModel parse_l2_evsets_model(const nlohmann::json& j);

// The set of a line (line number = byte address / 128).
std::uint64_t evset_set_of(const L2EvsetsModel& m, std::uint64_t line);
// Does `set` hold a pinned line (the seed picks pinned_fraction of the sets)?
bool evset_set_pinned(const L2EvsetsModel& m, std::uint64_t set);
// The ways a test can use in `set`: ways, or ways - 1 in a pinned set.
std::uint32_t evset_ways_offered(const L2EvsetsModel& m, std::uint64_t set);

// One test in the target's set: the set full of junk lines installed in order, the target
// accessed, then `congruent_in_order` (the candidate lines of the target's set, in the order read)
// accessed `passes` times. True when the target is no longer resident. Randomised policies draw from
// (seed, test_no), so a test is the same in every process.
bool evset_test(const L2EvsetsModel& m, std::uint64_t target_line, const std::vector<std::uint64_t>& congruent_in_order,
                int passes, std::uint64_t test_no);

// The timed cyclic reads: one thread reads `thrash` 3 times in order, then `lines` `rounds` times
// in order; the cycles of each load of the last round (hit_cycles or miss_cycles). Every set the
// lines touch starts as in evset_test; random draws from (seed, test_no, set).
std::vector<std::uint32_t> evset_cycle(const L2EvsetsModel& m, const std::vector<std::uint64_t>& thrash,
                                       const std::vector<std::uint64_t>& lines, int rounds, std::uint64_t test_no);

// The policy sequences: each starts from empty sets (the family's thrash and discard empty the sets
// of its lines; a pinned set keeps its pinned line: ways - 1 empty ways) and reads its lines in
// order; the cycles of each load (hit_cycles or miss_cycles). Random draws from (seed, test_no,
// sequence, set).
std::vector<std::vector<std::uint32_t>> evset_sequences(const L2EvsetsModel& m,
                                                        const std::vector<std::vector<std::uint64_t>>& seqs,
                                                        std::uint64_t test_no);

}  // namespace memhier::sim
