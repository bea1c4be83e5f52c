// The L2's slices as every SM sees them (l2_slices family; docs/methodology.md, "l2_slices"): SMs
// grouped by the latency pattern they see over the test lines, lines grouped per SM group by their
// latency vectors (one class per slice that the latencies tell apart), the groups that share a
// slice function joined, and the slice function's dependence on the address bits inside a 2 MiB
// page (an XOR matrix where one fits).
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/core/dataset.hpp"

namespace memhier::analysis {

struct SliceData {
  std::vector<unsigned> sm_ids;
  std::vector<std::uint64_t> offsets;  // bytes from the first page, per line
  std::uint64_t page_bytes = 2ull << 20;
  int repeats = 1;
  std::vector<std::vector<std::vector<double>>> lat;  // [pass][slot][line]: cycles per hit (NaN: absent)
};

// The fingerprint trace of the first l2_slices entry with one; false when there is none.
bool load_slice_data(const Dataset& data, SliceData* out, std::string* benchmark);

// Lines classed by the latencies a set of SMs (slots) sees.
struct LineClasses {
  bool ok = false;
  std::string reason;
  std::vector<int> line_class;  // per line (-1: no data)
  int classes = 0;
  double noise_cycles = 0;      // a line against itself between passes (the distance statistic)
  double threshold_cycles = 0;  // lines closer than this are linked
  double within_max_cycles = 0, between_min_cycles = 0;
};
// Distance of two lines: the mean of the smallest 90 % of |difference| over the SMs (a value per
// SM: the median over passes). Linked below 3 x the pass-to-pass distance of a line with itself
// (+ 1 / repeats: the integer cycles); classes are the connected components, accepted when no
// class is wider than 2 thresholds and no two classes are closer than 2 thresholds.
LineClasses classify_lines(const SliceData& d, const std::vector<std::size_t>& slots);

// SM slots grouped by the correlation of their latency vectors over the lines (r >= 0.8, single
// link): SMs that reach the lines' slices alike.
std::vector<std::vector<std::size_t>> sm_groups(const SliceData& d);

// The contention run: per reference (a line other SMs hammered) the slowdown per hit of each test
// line on each of its probe SMs (NaN: not measured).
struct ContentionData {
  std::vector<std::uint64_t> offsets;
  std::uint64_t page_bytes = 2ull << 20;
  int repeats = 1;
  std::uint32_t copies = 1;
  std::vector<std::uint32_t> refs;                    // line id of each reference
  std::vector<unsigned> probe_sm;                     // per line x copies + copy
  std::vector<std::vector<double>> slowdown;          // [ref][line x copies + copy], cycles per hit
};
bool load_contention_data(const Dataset& data, ContentionData* out, std::string* benchmark);

// Lines grouped by the references whose hammering slowed them down, as seen by the probe SMs of
// `sms` (empty: every probe): per reference a two-class split of the lines' slowdowns (median over
// their copies on those SMs); a line in no reference's slow class is uncovered, in two a conflict.
struct ContentionClasses {
  bool ok = false;
  std::string reason;
  std::vector<int> line_class;  // -1: uncovered or not measured on these SMs
  int classes = 0, uncovered = 0, conflicts = 0, refs_without_split = 0;
  double slow_median_cycles = NAN, fast_median_cycles = NAN;  // per hit: lines of the reference's slice, the others
  std::vector<double> threshold;  // per reference: the split's threshold (NaN: no split)
  std::vector<int> ref_class;     // per reference: the class of its slow side (-1: none)
};
ContentionClasses contention_classes(const ContentionData& c, const std::vector<unsigned>& sms);

// Records (one line on one probe SM under one reference) that disagree with the classes `r`: slow
// (above the reference's threshold) though the line is not in the reference's class, or not slow
// though it is. `records` counts those judged. None disagree where every probe SM sees one slice
// function, whatever partition it is in.
std::size_t probe_disagreements(const ContentionData& c, const ContentionClasses& r, std::size_t* records);

// The topology section `l2_slices` (null when no l2_slices entry has a trace). `partitions`: the SM
// ids of each L2 partition (the l2_partitions map's sms_per_partition; empty when unknown): lines
// are classed per partition as well, and their count per partition is the slices per partition.
nlohmann::json l2_slices_section(const Dataset& data, const std::vector<std::vector<unsigned>>& partitions = {});

}  // namespace memhier::analysis
