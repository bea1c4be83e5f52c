#include "analysis/memory/l2_policy.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "analysis/cache/sequences/policy.hpp"

namespace memhier::analysis {
namespace {

using json = nlohmann::json;

// The runs as the sequence machinery reads them, and what the analyzer checks of them.
struct PolicyReading {
  SeqEvidence ev;
  std::set<std::uint64_t> offsets;  // every line's byte offset
  std::size_t sequences = 0, accesses = 0, first_accesses = 0, first_hits = 0;
  std::size_t compared = 0, differ = 0;  // accesses of repeated sequences compared, and those whose outcome differs
  std::size_t max_lines = 0;             // the most distinct lines of one sequence
  json runs = json::array();
};

// One sequence as a RanSequence: each access its own slot, its record 1 when it missed.
RanSequence ran_sequence(const EvsetPolicyRun& r, std::size_t q, std::uint64_t line_bytes, double threshold,
                         PolicyReading& out) {
  RanSequence rs;
  rs.mode = RecordMode::miss_count;
  rs.threshold = static_cast<std::uint32_t>(threshold);
  std::set<std::uint64_t> seen;
  for (std::size_t p = 0; p < r.sequences[q].size(); ++p) {
    const std::uint64_t off = r.lines[r.sequences[q][p]] * line_bytes;
    const bool miss = static_cast<double>(r.cycles[q][p]) > threshold;
    rs.offset.push_back(off);
    rs.slot.push_back(static_cast<std::uint32_t>(p));
    rs.records.push_back(miss ? 1 : 0);
    rs.slot_missed.push_back(miss);
    if (seen.insert(off).second) {
      ++out.first_accesses;
      out.first_hits += miss ? 0 : 1;
    }
    out.offsets.insert(off);
  }
  rs.lines.assign(seen.begin(), seen.end());
  for (auto off : rs.offset)
    rs.id.push_back(static_cast<std::uint32_t>(std::lower_bound(rs.lines.begin(), rs.lines.end(), off) - rs.lines.begin()));
  out.max_lines = std::max(out.max_lines, seen.size());
  out.accesses += rs.offset.size();
  ++out.sequences;
  return rs;
}

PolicyReading read_runs(const EvsetData& d, double threshold) {
  PolicyReading out;
  for (const auto& r : d.policy) {
    json j = {{"target", r.target}, {"lines", r.lines.size()}, {"sequences", r.sequences.size()}};
    if (!r.error.empty()) {
      j["error"] = r.error;
      out.runs.push_back(j);
      continue;
    }
    const std::size_t first = out.ev.sequences.size();
    for (std::size_t q = 0; q < r.sequences.size(); ++q) out.ev.sequences.push_back(ran_sequence(r, q, d.line_bytes, threshold, out));
    // The second half repeats the first: where a repeated access's outcomes differ, one run missed spuriously.
    const std::size_t half = r.sequences.size() / 2;
    std::size_t differ = 0, compared = 0;
    for (std::size_t q = 0; q < half; ++q) {
      if (r.sequences[q] != r.sequences[q + half]) continue;
      const auto& a = out.ev.sequences[first + q].records;
      const auto& b = out.ev.sequences[first + q + half].records;
      for (std::size_t p = 0; p < a.size(); ++p) differ += a[p] != b[p] ? 1 : 0;
      compared += a.size();
    }
    out.differ += differ;
    out.compared += compared;
    j["repeated_accesses"] = compared;
    j["repeats_differ"] = differ;
    out.runs.push_back(j);
  }
  return out;
}

}  // namespace

void decide_l2_policy(const EvsetData& d, int ways, const Evidence& ev, json& s) {
  if (d.policy.empty()) {
    set_null(s, "replacement",
             "the trace holds no policy sequences (they run for a class target whose leave-one-out check finds at least 3 "
             "lines of its set)",
             ev);
    return;
  }
  const double threshold = s.contains("cyclic_reads") ? s["cyclic_reads"].value("miss_threshold_cycles", 0.0) : 0.0;
  if (ways <= 0 || threshold <= 0) {
    set_null(s, "replacement", ways <= 0 ? "needs the ways" : "needs the cyclic reads' miss threshold", ev);
    return;
  }
  PolicyReading r = read_runs(d, threshold);
  const double noise = r.compared ? static_cast<double>(r.differ) / static_cast<double>(2 * r.compared) : 0.0;
  s["policy_sequences"] = {{"runs", r.runs}, {"sequences", r.sequences}, {"accesses", r.accesses},
                           {"miss_threshold_cycles", threshold}, {"first_accesses", r.first_accesses},
                           {"first_accesses_hit", r.first_hits}, {"spurious_misses_per_access", noise}};
  if (r.sequences == 0) {
    set_null(s, "replacement", "no policy sequence reads (every run's header lists are broken)", ev);
    return;
  }
  if (r.first_hits > 0) {
    set_null(s, "replacement",
             std::to_string(r.first_hits) + " of " + std::to_string(r.first_accesses) +
                 " first accesses of a line after the discard hit: the reset did not leave the set empty, so no model's "
                 "start state holds",
             ev);
    return;
  }
  if (r.max_lines <= static_cast<std::size_t>(ways) || r.offsets.size() < static_cast<std::size_t>(ways)) {
    set_null(s, "replacement",
             "no sequence holds more lines than the " + std::to_string(ways) + " ways: nothing is evicted, every policy "
             "predicts the same",
             ev);
    return;
  }
  SeqStructure st;
  st.has_set = st.minimal = true;
  st.same_set.assign(r.offsets.begin(), r.offsets.end());
  st.eviction_set.assign(st.same_set.begin(), st.same_set.begin() + ways);  // its size is the ways
  st.line_bit = static_cast<unsigned>(std::log2(static_cast<double>(d.line_bytes)));
  st.benchmark = d.benchmark;
  st.evidence = &r.ev;
  write_seq_replacement(s, st, analyze_policy(st, noise));
}

}  // namespace memhier::analysis
