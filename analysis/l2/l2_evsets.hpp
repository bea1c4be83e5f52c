// The L2's ways and sets from minimal eviction sets of the whole L2 (l2_evsets family;
// docs/methodology.md, "l2_evsets"; issue 20 item 2): per target line the benchmark reduced a
// pool of lines by group testing to a set from which no line can be dropped and verified it
// timer-free (Invalidate+Compare). A set is evicted once W lines of the target's set pass through
// it, so a verified minimal set holds W lines, or W + 1 where one way of that set holds a line the
// reads never displace; a set smaller than W cannot be verified under a deterministic policy. The
// ways are the smallest verified size where a strict majority of the verified sets have it — unless
// the trace holds cyclic-read sweeps of a class (lines that each take the place of one line of a
// verified set): then the ways are where k lines of the class read cyclically stop hitting, minus
// one, where at least 2 sweeps show that step and none disagrees (on the H100 the minimal sets hold
// 11 to 18 lines by target: the policy keeps lines by their history) — unless the trace also holds
// leave-one-out checks: a sweep's step comes late by the class lines outside the set, so the ways
// are the lines of the earlier sweep's first s whose absence leaves no miss, minus one, where the
// checks agree and no sweep steps earlier. The sets
// are the L2's bytes / (ways x line), per slice over the l2_slices section's slice count. Topology
// section `l2_sets`; docs/formats.md lists its keys and the trace it reads (content l2_evset).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/core/dataset.hpp"

namespace memhier::analysis {

// At least this many targets with a verified minimal set decide the ways.
constexpr int kEvsetMinVerified = 3;

// One cyclic-read sweep of the trace (header keys class_<k>, class_tests_<k>, cycles_forward_<k>,
// cycles_reverse_<k>; docs/formats.md, content l2_evset): for k = 1 ... the class's lines, the
// cycles of each load of the last round in which one thread read the class's first k lines
// cyclically (forward: class order; reverse: reversed) after a thrash.
struct EvsetSweep {
  int target = 0;
  std::string order;  // forward, reverse
  std::vector<std::uint64_t> class_lines;
  std::uint64_t class_tests = 0;
  std::size_t swept_lines = 0;  // lines the sweep read (swept_<k>: the class, then the set's lines; else the class)
  std::vector<std::vector<std::uint64_t>> cycles;  // [k - 1]: k numbers
  std::string error;  // why the header's lists cannot be read ("" when they can)
};

// The leave-one-out check of one class target (header keys leave_one_out_<k>, leave_one_out_order_<k>,
// leave_one_out_lines_<k>): the sweep's first `lines` lines, each left out once; groups[i] = the
// last-round cycles of the others (lines - 1 numbers).
struct EvsetLoo {
  int target = 0;
  std::string order;
  std::size_t lines = 0;
  std::vector<std::vector<std::uint64_t>> groups;
  std::string error;  // why the header's lists cannot be read ("" when they can)
};

// The policy sequences of one class target (header keys policy_lines_<k>, policy_sequences_<k>,
// policy_cycles_<k>; docs/formats.md, content l2_evset): the lines of its set (the producer's
// leave-one-out reading), each sequence as indices into them (every sequence twice: the second half
// repeats the first) and the cycles of each of its loads.
struct EvsetPolicyRun {
  int target = 0;
  std::vector<std::uint64_t> lines;
  std::vector<std::vector<std::uint64_t>> sequences, cycles;
  std::string error;  // why the header's lists cannot be read ("" when they can)
};

// What one l2_evsets entry found, from its trace (content l2_evset) or, without one, its counters.
struct EvsetData {
  std::string benchmark;
  bool from_trace = false;
  std::string trace_note;  // why the counters stand in for the trace ("" when the trace was read)
  bool readout_ok = false;
  std::string readout_reason;  // the trace's readout_reason where the readout does not work
  int targets = 0, passes = 0;
  std::uint64_t pool_lines = 0, line_bytes = 128;
  // Per target (from the trace): its status (minimal, not_minimal, budget, ranges, no_eviction),
  // the lines of its reduced set, the eviction tests run, and its line number.
  std::vector<std::string> status;
  std::vector<std::uint64_t> sizes, tests, target_lines;
  // The cyclic-read sweeps (from the trace; per target with a class: forward, then reverse) and the
  // trace's cycle_rounds (0 where absent).
  std::vector<EvsetSweep> sweeps;
  int cycle_rounds = 0;
  std::vector<EvsetLoo> loo;      // the leave-one-out checks (per class target whose sweeps missed)
  std::vector<EvsetPolicyRun> policy;  // the policy sequences (per class target that ran them)
  std::vector<std::uint64_t> backtracks;  // per target: removals the reduction undid
  // From the counters (where there is no trace): verified targets and their smallest and largest size.
  int minimal = 0;
  double set_size_min = 0, set_size_max = 0;
  std::uint64_t tests_total = 0, tests_max_target = 0;  // eviction tests: all, the most for one target
};

// The first l2_evsets entry (the first with a readable l2_evset trace, else the first); false when
// the input has none.
bool load_evset_data(const Dataset& data, EvsetData* out);

// The ways from the sizes of the verified minimal sets: the smallest size where a strict majority
// of the sets have it (confidence 0.9 when every set has it, 0.7 otherwise); ways 0 with the reason
// where the sizes disagree. Needs kEvsetMinVerified sizes or more (the caller checks).
struct EvsetWays {
  int ways = 0;
  double confidence = 0;
  std::string text;  // the note (decided) or the reason (not decided)
};
EvsetWays evset_ways(const std::vector<std::uint64_t>& verified_sizes);

// A load of a sweep misses when its cycles exceed this factor x the slowest one-line hit (the k = 1
// group of every sweep: one line read cycle_rounds times hits): a miss pays the L2 lookup and a
// DRAM access, so it takes well over 1.5 x a hit, while the hits of one set's lines (one slice) cost
// alike.
constexpr double kEvsetMissFactor = 1.5;

// The ways from the cyclic-read sweeps: `cyclic` is the section's cyclic_reads object; ways 0 with
// the reason where they do not decide (disagree, fewer than 2 show a clean step). `usable` is false
// where no sweep has a k = 1 group (no threshold): the minimal-set rule decides then.
struct EvsetCyclic {
  nlohmann::json cyclic;
  bool usable = false;
  int ways = 0;
  double confidence = 0;
  std::string text;  // the note (decided) or the reason (not decided)
};
EvsetCyclic evset_cyclic_reads(const std::vector<EvsetSweep>& sweeps, int cycle_rounds);

// The ways from the leave-one-out checks (docs/formats.md, l2_sets.cyclic_reads.leave_one_out): per
// check, the lines whose absence leaves no load above `threshold` (this analyzer's, over every
// sweep: not the producer's per-target one) are the set's lines among the first s, ways + 1 of
// them (a line outside the set only delays a sweep's step); where no absence leaves a miss, the s
// lines must miss together in their sweep (`sweeps`: the section's sweep objects) or the check gives
// nothing; each check notes where s is not its sweep's first miss here. Decided where at least one
// check has ways and all agree (0.9 with every class target's check, 0.8 with 2 or more, 0.6 with
// one), and no sweep's step says fewer ways. `checks` gets the per-check list.
struct EvsetLooWays {
  nlohmann::json checks = nlohmann::json::array();
  bool any = false;  // some check exists
  int ways = 0;
  double confidence = 0;
  std::string text;
};
EvsetLooWays evset_leave_one_out(const std::vector<EvsetLoo>& loo, double threshold, const nlohmann::json& sweeps,
                                 std::size_t class_targets);

// The topology section `l2_sets`, or null when the input has no l2_evsets entry. `topology`: the
// sections built so far (its l2_slices section gives the slice count for sets_per_slice).
nlohmann::json l2_sets_section(const Dataset& data, const nlohmann::json& topology);

}  // namespace memhier::analysis
