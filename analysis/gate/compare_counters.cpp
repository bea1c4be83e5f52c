// memhier-compare's per-benchmark rows: the counters of every repetition of a benchmark, judged
// with the smallest test their samples allow (compare_detail::judge).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "analysis/gate/compare_detail.hpp"

namespace memhier::analysis::compare_detail {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

void judge(CompareRow& row, const std::vector<double>& a, const std::vector<double>& b, const CompareOptions& o,
           bool fraction) {
  row.n_base = static_cast<int>(a.size());
  row.n_now = static_cast<int>(b.size());
  const double ma = median(a), mb = median(b);
  row.base = ma;
  row.now = mb;
  double change;
  if (fraction) {
    change = mb - ma;
  } else if (ma == mb) {
    change = 0;
  } else if (std::fabs(ma) < 1e-300) {
    change = mb > 0 ? HUGE_VAL : -HUGE_VAL;
  } else {
    change = (mb - ma) / std::fabs(ma);
  }
  if (std::isfinite(change)) row.change = change;
  // Latencies in cycles: max(floor, threshold x base) cycles (10 cycles, 5 % by default).
  const bool cycles = row.direction == Direction::lower && !fraction &&
                      (ends_with(row.field.empty() ? row.name : row.field, "_cycles") ||
                       contains(row.field.empty() ? row.name : row.field, "latency"));
  const bool beyond = cycles ? std::fabs(mb - ma) >= std::max(o.latency_floor_cycles, o.threshold * std::fabs(ma))
                             : std::fabs(change) > o.threshold;
  bool significant = beyond;
  if (a.size() >= 4 && b.size() >= 4) {
    row.test = "utest";
    row.p_value = mann_whitney_p(a, b);
    significant = beyond && *row.p_value < o.alpha;
  } else if (a.size() >= 2 && b.size() >= 2) {
    row.test = "spread";
    auto [alo, ahi] = std::minmax_element(a.begin(), a.end());
    auto [blo, bhi] = std::minmax_element(b.begin(), b.end());
    const bool overlap = !(*ahi < *blo || *bhi < *alo);
    significant = beyond && !overlap;
    if (beyond && overlap) row.note = "difference within the spread of the repetitions";
  } else {
    row.test = "threshold";
  }
  if (!significant) {
    row.verdict = Verdict::same;
    return;
  }
  const bool up = change > 0;
  switch (row.direction) {
    case Direction::lower: row.verdict = up ? Verdict::worse : Verdict::better; break;
    case Direction::higher: row.verdict = up ? Verdict::better : Verdict::worse; break;
    default: row.verdict = Verdict::changed; break;
  }
}

namespace {

std::string key_of(const BenchEntry& e) {
  return e.params.family().empty() ? e.run_name : e.params.str();
}

}  // namespace

std::map<std::string, Samples> collect(const BenchRun& run) {
  std::map<std::string, Samples> out;
  std::map<std::string, std::map<std::string, const BenchEntry*>> aggregates;
  for (const auto& e : run.entries) {
    const std::string k = key_of(e);
    if (e.run_type == "aggregate") {
      aggregates[k][e.aggregate_name] = &e;
      continue;
    }
    Samples& s = out[k];
    if (e.error) {
      if (!s.present) s.error = e.error_message.empty() ? "failed" : e.error_message;
      continue;
    }
    s.present = true;
    s.error.clear();
    for (const auto& [c, v] : e.counters) s.counters[c].push_back(v);
  }
  for (const auto& [k, aggs] : aggregates) {
    if (out.count(k) && (out[k].present || !out[k].error.empty())) continue;
    const BenchEntry* pick = aggs.count("median") ? aggs.at("median") : aggs.count("mean") ? aggs.at("mean") : nullptr;
    if (!pick) continue;
    Samples& s = out[k];
    s.present = true;
    for (const auto& [c, v] : pick->counters) s.counters[c].push_back(v);
  }
  return out;
}

namespace {

// A latency of the hits or of the misses of a chase rests on that many accesses: fewer than
// kMinSamples on either side never decide alone (INFO).
void few_samples(CompareRow& row, const Samples& a, const Samples& b) {
  if (row.verdict != Verdict::worse && row.verdict != Verdict::better) return;
  if (row.field != "miss_latency_cycles" && row.field != "hit_latency_cycles") return;
  auto count = [&](const Samples& s) {
    auto acc = s.counters.find("accesses"), mis = s.counters.find("misses");
    if (acc == s.counters.end() || mis == s.counters.end()) return -1.0;
    const double m = median(mis->second);
    return row.field == "miss_latency_cycles" ? m : median(acc->second) - m;
  };
  const double na = count(a), nb = count(b);
  if ((na >= 0 && na < kMinSamples) || (nb >= 0 && nb < kMinSamples)) {
    row.verdict = Verdict::info;
    std::ostringstream n;
    n << "rests on " << na << "/" << nb << " accesses: not decisive alone";
    row.note = n.str();
  }
}

// A benchmark that failed on either side: one row, WORSE when it fails only now.
CompareRow failed_row(const std::string& name, const Samples& a, const Samples& b) {
  CompareRow row;
  row.kind = "counter";
  row.name = name;
  row.test = "exact";
  if (!b.error.empty() && a.error.empty()) {
    row.verdict = Verdict::worse;
    row.note = "fails now: " + b.error;
  } else if (!a.error.empty() && b.error.empty()) {
    row.verdict = Verdict::better;
    row.note = "failed in base (" + a.error + "), runs now";
  } else {
    row.verdict = Verdict::same;
    row.note = "fails in both: " + b.error;
  }
  return row;
}

}  // namespace

void compare_benchmark(const std::string& name, const Samples& a, const Samples& b, const CompareOptions& o,
                       std::vector<CompareRow>& rows) {
  if (!a.error.empty() || !b.error.empty()) {
    rows.push_back(failed_row(name, a, b));
    return;
  }
  std::set<std::string> counters;
  for (auto& [c, v] : a.counters) counters.insert(c);
  for (auto& [c, v] : b.counters) counters.insert(c);
  for (const auto& c : counters) {
    CompareRow row;
    row.kind = "counter";
    row.name = name;
    row.field = c;
    row.direction = counter_direction(c);
    if (row.direction == Direction::ignore) continue;
    // misses duplicates miss_rate where both exist
    if (c == "misses" && counters.count("miss_rate")) continue;
    auto ia = a.counters.find(c), ib = b.counters.find(c);
    if (ia == a.counters.end() || ib == b.counters.end()) {
      // A measured counter a run writes only when it saw such accesses (miss_latency_cycles without
      // misses) bears no verdict; a missing structure counter does.
      const bool measured = row.direction == Direction::lower || row.direction == Direction::higher;
      row.verdict = measured ? Verdict::info : Verdict::changed;
      row.test = "exact";
      row.note = ia == a.counters.end() ? "counter only in new" : "counter only in base";
      if (ia != a.counters.end()) row.base = median(ia->second);
      if (ib != b.counters.end()) row.now = median(ib->second);
      rows.push_back(row);
      continue;
    }
    if (row.direction == Direction::structure) {
      CompareOptions exact = o;
      exact.threshold = 0.0;
      judge(row, ia->second, ib->second, exact, false);
      row.test = "exact";
      row.verdict = row.base == row.now ? Verdict::same : Verdict::changed;
      row.p_value.reset();
      row.note.clear();
    } else {
      judge(row, ia->second, ib->second, o, is_fraction(c));
      few_samples(row, a, b);
    }
    rows.push_back(row);
  }
}

}  // namespace memhier::analysis::compare_detail
