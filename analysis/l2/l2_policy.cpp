#include "analysis/l2/l2_policy.hpp"

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
  std::size_t sequences = 0, accesses = 0, first_accesses = 0;
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
    if (seen.insert(off).second) ++out.first_accesses;
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

// The hit/miss threshold of the policy sequences, from their own loads: an access right after one
// to the same line is a hit of the set, the first access of a line after the discard a miss (DRAM)
// when the reset worked. Between the two the L2 may answer more slowly: on the H100 ~450 cycles
// against ~275 for a hit and ~525 and up for DRAM, for lines the set had evicted (with those
// answers counted as misses LRU predicts every record; as hits, 98.6 %), so another part of the L2
// still held a copy. The threshold is the middle of the first gap of at least 10 % of the slowest
// sure hit found going up from it through the loads' latencies: a hit is an answer of the set
// itself; `slower` counts the answers between the threshold and the fastest first access. 0 with
// the reason where no such gap lies below the fastest first access (the reset failed, or the
// classes do not separate).
struct PolicyThreshold {
  double threshold = 0, slowest_repeat = 0, fastest_first = 0;
  std::size_t slower = 0;  // loads above the threshold and below the fastest first access
  std::string why;
};

PolicyThreshold policy_threshold(const EvsetData& d) {
  PolicyThreshold t;
  std::vector<double> all;
  double rep = 0, first = 1e300;
  for (const auto& r : d.policy) {
    if (!r.error.empty()) continue;
    for (std::size_t q = 0; q < r.sequences.size(); ++q) {
      std::set<std::uint64_t> seen;
      for (std::size_t p = 0; p < r.sequences[q].size(); ++p) {
        const auto x = static_cast<double>(r.cycles[q][p]);
        all.push_back(x);
        if (seen.insert(r.sequences[q][p]).second) first = std::min(first, x);
        else if (p > 0 && r.sequences[q][p - 1] == r.sequences[q][p]) rep = std::max(rep, x);
      }
    }
  }
  t.slowest_repeat = rep;
  t.fastest_first = first < 1e300 ? first : 0;
  if (rep <= 0 || first >= 1e300) {
    t.why = "the sequences hold no repeated access (a sure hit) or no first access (a sure miss)";
    return t;
  }
  std::sort(all.begin(), all.end());
  double below = rep;  // going up from the slowest sure hit
  for (auto it = std::upper_bound(all.begin(), all.end(), rep); it != all.end() && *it < first; ++it) {
    if (*it - below >= 0.1 * rep) {
      t.threshold = (below + *it) / 2;
      break;
    }
    below = *it;
  }
  if (t.threshold == 0 && first - below >= 0.1 * rep) t.threshold = (below + first) / 2;
  if (t.threshold > 0) {
    for (double x : all) t.slower += x > t.threshold && x < first ? 1 : 0;
    return t;
  }
  t.why = "the fastest first access of a line after the discard (" + std::to_string(static_cast<long long>(first)) +
          " cycles) is not above the slowest repeated access (" + std::to_string(static_cast<long long>(rep)) +
          ", a sure hit) with a gap of 10 % of the hit above the hits: the reset did not leave the set empty, so no "
          "model's start state holds";
  return t;
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
  if (ways <= 0) {
    set_null(s, "replacement", "needs the ways", ev);
    return;
  }
  const PolicyThreshold th = policy_threshold(d);
  const double threshold = th.threshold;
  if (threshold <= 0) {
    s["policy_sequences"] = {{"runs", read_runs(d, 0).runs}, {"slowest_repeated_access_cycles", th.slowest_repeat},
                             {"fastest_first_access_cycles", th.fastest_first}};
    set_null(s, "replacement", th.why, ev);
    return;
  }
  PolicyReading r = read_runs(d, threshold);
  const double noise = r.compared ? static_cast<double>(r.differ) / static_cast<double>(2 * r.compared) : 0.0;
  s["policy_sequences"] = {{"runs", r.runs}, {"sequences", r.sequences}, {"accesses", r.accesses},
                           {"miss_threshold_cycles", threshold}, {"slowest_repeated_access_cycles", th.slowest_repeat},
                           {"fastest_first_access_cycles", th.fastest_first}, {"first_accesses", r.first_accesses},
                           {"slower_l2_answers", th.slower}, {"spurious_misses_per_access", noise}};
  if (r.sequences == 0) {
    set_null(s, "replacement", "no policy sequence reads (every run's header lists are broken)", ev);
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
