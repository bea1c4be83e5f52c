// Eviction sets of the whole L2 (the l2_evsets family; docs/methodology.md, "l2_evsets"; issue 20
// item 2), shared by the CUDA backend and the simulated device. The test (Invalidate+Compare): a
// target line outside the pool is written (dirty in the L2), one CTA reads the candidate lines
// `passes` times (ld.cg), then the target is discarded from the L2 (discard.global.L2) and read:
// the older value means it was still in the L2 (the discard dropped the dirty data), the newer one
// that it was written back, i.e. evicted. No timer. A candidate set is a list of position ranges of
// the pool (common/l2_evset_pool.hpp). Per target: an adaptive group-testing reduction (Vila, Köpf,
// Morales, S&P 2019, with the group count doubling from 2 when no group can go, as the ways are
// not known beforehand) to a set from which no single line can be dropped, then verified: it evicts
// in 5 of 5 tests and without any one of its lines in none of 3.
// The ways: a verified set's size is not the ways on the H100 (11 to 18 lines by target: the
// policy keeps lines by their history), so for the first `class_targets` verified targets the plan
// also collects a class of up to `extras` lines that each take the place of one line of the set
// (binary search over the pool: the first line that makes the set without its first line evict
// again), and times one thread's cyclic reads of the first k lines of the class followed by the
// set's own lines (k = 1 ... all of them, in that order and reversed) after a thrash: while k lines fit their set the last of 8 rounds hits throughout; from
// k = ways + 1 on it misses. A line of the class outside the set (the class is found through
// evictions of a dirty line, the sweeps see one SM's reads) only delays the step, so the earlier
// step's first s lines are checked one by one: each left out, the others read cyclically; the lines
// whose absence leaves no miss are the set's ways + 1. The last round's cycles go into the trace;
// the analyzer decides. A reduction that finds its set no longer evicting (a removal that passed by
// the set's history) undoes the last removal (at most 24 times a target).
// The policy (issue 20 item 3): for the first `policy_targets` class targets whose leave-one-out
// check finds at least 3 lines of the set (the set's lines: ways + 1 of them), access sequences over
// those lines from a known state, as nanoBench does for CPU caches: before each sequence the lines
// are read cyclically 3 times (every way of the set then holds one of them) and discarded from the
// L2 (discard.global.L2), which leaves the set empty; then one thread reads the sequence, each load
// timed. The sequences (common/l2_evset_sequences.hpp) fill the set with ways fresh lines in a seeded order
// and go on with accesses that hit or bring in the one line left out, each sequence twice. Plain C++.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bench/levels/levels.hpp"
#include "common/l2_evset_pool.hpp"
#include "common/l2_evset_sequences.hpp"  // evset_policy_sequences

namespace memhier {

struct EvsetRange {
  std::uint64_t begin = 0, end = 0;  // positions [begin, end) of the pool's permuted order
};

// What a backend does for the plan.
class EvsetOracle {
 public:
  virtual ~EvsetOracle() = default;
  virtual const EvsetPool& pool() const = 0;
  // Line number (byte offset / 128 from the pool buffer's start) of the k-th target: outside the pool.
  virtual std::uint64_t target_line(int k) const = 0;
  // One test: write the target, read the ranges' lines `passes` times from one CTA, discard and read
  // the target. True: the target was written back (evicted). Throws std::runtime_error on a device error.
  virtual bool evicts(std::uint64_t target_line, const std::vector<EvsetRange>& ranges, int passes) = 0;
  // Does the readout work here? A dirty line discarded reads its older value, a written-back one
  // its newer one. False with the reason in `why`.
  virtual bool readout_works(std::string* why) = 0;
  // One thread reads the `thrash` lines 3 times in order, then the `lines` `rounds` times in order,
  // each load dependent on the one before; returns the cycles of each load of the last round (the
  // clock pair's overhead included). Line numbers as target_line's.
  virtual std::vector<std::uint32_t> cycle(const std::vector<std::uint64_t>& thrash, const std::vector<std::uint64_t>& lines,
                                           int rounds) = 0;
  // Per sequence of `seqs` (indices into `lines`, the lines of one set): `lines` read cyclically 3
  // times by one thread, each then discarded from the L2 (discard.global.L2: the set is empty), then
  // the sequence's lines read by that thread, each load dependent on the one before and timed; the
  // cycles of every load (the clock pair's overhead included).
  virtual std::vector<std::vector<std::uint32_t>> sequences(const std::vector<std::uint64_t>& lines,
                                                            const std::vector<std::vector<std::uint32_t>>& seqs) = 0;
  // Before a target's search: where the next tests run (a backend whose caches differ by the reader
  // chooses the reader the target is nearest to); what it chose and why, one line for the trace, or
  // "" (the simulated device: one reader).
  virtual std::string place(std::uint64_t /*target_line*/) { return ""; }
  // Device seconds spent so far (the benchmark's manual time).
  virtual double seconds() const = 0;
};

struct EvsetParams {
  int targets = 4;
  int passes = 2;
  std::uint32_t max_tests_per_target = 1500;
  std::size_t max_ranges = 2048;  // a candidate set of more ranges is not sent (the kernel's limit)
  double max_seconds = 0;         // > 0: targets not begun once the device seconds pass this get status budget
  int class_targets = 3;          // verified targets that get a class, the cyclic-read sweeps and the leave-one-out check
  int extras = 24;                // lines of each class (ways up to extras - 1 can be seen)
  int cycle_rounds = 8;
  int policy_targets = 2;         // class targets that get the policy sequences
  int policy_sequences = 48;      // distinct sequences (each run twice)
};



// Runs the reduction for every target; the trace (content l2_evset, docs/formats.md) and counters
// (docs/methodology.md, "l2_evsets").
LevelResult run_evsets(EvsetOracle& o, const EvsetParams& p);

// Helpers exposed for the tests: the ranges without the positions [a, b) of their concatenation,
// and the number of positions they hold.
std::vector<EvsetRange> evset_without(const std::vector<EvsetRange>& r, std::uint64_t a, std::uint64_t b);
std::uint64_t evset_count(const std::vector<EvsetRange>& r);

}  // namespace memhier
