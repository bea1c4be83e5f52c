// The l2_evsets plan (bench/plans/l2_evsets_plan.hpp).
#include "bench/plans/l2_evsets_plan.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "bench/plans/l2_slices_plan.hpp"  // slice_join
#include "common/l2_evset_sequences.hpp"
#include "common/policy.hpp"         // SplitMix64

namespace memhier {
namespace {

constexpr int kConfirmTests = 5;      // a verified set evicts in 5 of 5 tests
constexpr int kDropTests = 3;         // and without any one of its lines in none of 3
constexpr std::uint64_t kMaxVerifiedLines = 256;
constexpr int kMaxBacktracks = 24;                 // undone removals a target may have  // a reduced set larger than this is not checked line by line

struct TargetOutcome {
  std::string status;
  std::vector<EvsetRange> set;
  std::uint64_t size = 0;
  std::uint32_t tests = 0;
  int backtracks = 0;
};

class Reduction {
 public:
  Reduction(EvsetOracle& o, const EvsetParams& p, std::uint64_t target, std::uint64_t seed)
      : o_(o), p_(p), t_(target), rng_(seed) {}

  TargetOutcome run() {
    TargetOutcome out;
    std::vector<EvsetRange> s{{0, o_.pool().lines}};
    out.size = evset_count(s);
    if (!test(s)) {
      out.status = "no_eviction";
      out.tests = tests_;
      return out;
    }
    std::uint64_t groups = 2;
    std::vector<std::vector<EvsetRange>> history;  // the sets before each removal (backtracking)
    int backtracks = 0;
    while (true) {
      const std::uint64_t n = evset_count(s);
      groups = std::min(groups, n);
      bool removed = false, too_many = false;
      for (std::uint64_t g : order(groups)) {
        const std::uint64_t lo = n * g / groups, hi = n * (g + 1) / groups;
        if (lo == hi) continue;
        std::vector<EvsetRange> r = evset_without(s, lo, hi);
        if (r.size() > p_.max_ranges) {
          too_many = true;
          continue;
        }
        if (tests_ >= p_.max_tests_per_target) break;
        if (test(r)) {
          history.push_back(std::move(s));
          s = std::move(r);
          removed = true;
          break;
        }
      }
      out.size = evset_count(s);
      if (tests_ >= p_.max_tests_per_target && !removed) {
        out.status = "budget";
        break;
      }
      if (removed) continue;
      if (too_many) {
        out.status = "ranges";
        break;
      }
      // No group can go: does the set still evict? A removal may have passed by the history of the
      // set (the policy keeps lines by their past), leaving a set that no longer evicts: then undo it.
      if (!history.empty() && !(test(s) && test(s))) {
        if (++backtracks > kMaxBacktracks) {
          out.status = "budget";
          break;
        }
        s = std::move(history.back());
        history.pop_back();
        continue;
      }
      if (groups >= n) break;  // no single line can go
      groups = std::min(groups * 2, n);
    }
    out.backtracks = backtracks;
    out.set = s;
    if (out.status.empty()) out.status = verify(s) ? "minimal" : "not_minimal";
    out.tests = tests_;
    return out;
  }

 private:
  bool test(const std::vector<EvsetRange>& r) {
    ++tests_;
    return o_.evicts(t_, r, p_.passes);
  }
  // 0 ... n-1 in a seeded random order (Fisher-Yates on splitmix64: the same on every platform).
  std::vector<std::uint64_t> order(std::uint64_t n) {
    std::vector<std::uint64_t> v(n);
    std::iota(v.begin(), v.end(), 0);
    for (std::uint64_t i = n; i > 1; --i) std::swap(v[i - 1], v[rng_.next() % i]);
    return v;
  }
  bool verify(const std::vector<EvsetRange>& s) {
    for (int i = 0; i < kConfirmTests; ++i)
      if (!test(s)) return false;
    const std::uint64_t n = evset_count(s);
    if (n > kMaxVerifiedLines) return false;
    for (std::uint64_t j = 0; j < n; ++j) {
      const std::vector<EvsetRange> r = evset_without(s, j, j + 1);
      for (int i = 0; i < kDropTests; ++i)
        if (test(r)) return false;
    }
    return true;
  }

  EvsetOracle& o_;
  const EvsetParams& p_;
  std::uint64_t t_;
  policy::SplitMix64 rng_;
  std::uint32_t tests_ = 0;
};

// Lines that each make `set` without its first line evict `target` again: per line, the shortest
// prefix of the pool positions after the last one found that does (binary search); lines of the set
// itself are skipped. Stops at `want` lines, at the end of the pool, or at the test budget.
std::vector<std::uint64_t> class_lines(EvsetOracle& o, const EvsetParams& p, std::uint64_t target,
                                       const std::vector<EvsetRange>& set, std::uint32_t* tests) {
  const EvsetPool& pool = o.pool();
  std::vector<EvsetRange> base = evset_without(set, 0, 1);
  std::vector<std::uint64_t> members;
  for (const auto& r : set)
    for (std::uint64_t q = r.begin; q < r.end; ++q) members.push_back(pool.line(q));
  std::vector<std::uint64_t> out;
  auto test = [&](std::uint64_t a, std::uint64_t b) {
    std::vector<EvsetRange> r = base;
    r.push_back({a, b});
    ++*tests;
    return o.evicts(target, r, p.passes);
  };
  std::uint64_t lo = 0;
  while (static_cast<int>(out.size()) < p.extras && lo < pool.lines && *tests < p.max_tests_per_target) {
    // The rest of the pool has no substitute only when it fails 3 times: one negative may be the
    // set's history (on the H100 a class stopped at 16 lines on one).
    bool any = false;
    for (int i = 0; i < 3 && !any; ++i) any = test(lo, pool.lines);
    if (!any) break;
    std::uint64_t a = lo, b = pool.lines;  // [lo, b) evicts, [lo, a) does not
    while (b - a > 1) {
      const std::uint64_t m = a + (b - a) / 2;
      if (test(lo, m)) b = m; else a = m;
    }
    const std::uint64_t line = pool.line(a);
    if (std::find(members.begin(), members.end(), line) == members.end()) out.push_back(line);
    lo = a + 1;
  }
  return out;
}

// 1.5 x the slowest one-line hit of both sweeps (the analyzer's threshold; docs/formats.md,
// l2_sets.cyclic_reads).
double miss_threshold(const std::vector<std::vector<std::vector<std::uint32_t>>>& sweeps) {
  double h1 = 0;
  for (const auto& sw : sweeps)
    if (!sw.empty() && !sw[0].empty()) h1 = std::max(h1, static_cast<double>(sw[0][0]));
  return 1.5 * h1;
}

// The first k of a sweep with a load above the miss threshold, 0 when none.
std::size_t first_miss(const std::vector<std::vector<std::vector<std::uint32_t>>>& sweeps, int which) {
  const double t = miss_threshold(sweeps);
  for (std::size_t k = 0; k < sweeps[which].size(); ++k)
    for (std::uint32_t c : sweeps[which][k])
      if (c > t) return k + 1;
  return 0;
}

// The leave-one-out check of the sweep that first missed earlier: its first s lines overflow their
// set; each is left out once and the s - 1 others read cyclically. A line of the set left out leaves
// W lines that fit (no miss); a line of another set left out leaves the overflow. So the lines whose
// absence leaves no miss are the W + 1 lines of the set among the s (the analyzer counts them);
// returns them (the plan's own reading, for the policy sequences).
std::vector<std::uint64_t> leave_one_out(EvsetOracle& o, const EvsetParams& p, const std::vector<std::uint64_t>& swept,
                   const std::vector<std::vector<std::vector<std::uint32_t>>>& sweeps, const std::string& key, Trace* tr) {
  const std::size_t f = first_miss(sweeps, 0), r = first_miss(sweeps, 1);
  if (!f && !r) return {};
  const int which = (f && (!r || f <= r)) ? 0 : 1;
  const std::size_t s = which ? r : f;
  std::vector<std::uint64_t> order = swept;
  if (which) std::reverse(order.begin(), order.end());
  order.resize(s);
  std::vector<std::vector<std::uint32_t>> per_line;
  std::vector<std::uint64_t> members;
  const double t = miss_threshold(sweeps);
  for (std::size_t i = 0; i < s; ++i) {
    std::vector<std::uint64_t> rest = order;
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    per_line.push_back(o.cycle(swept, rest, p.cycle_rounds));
    if (std::none_of(per_line.back().begin(), per_line.back().end(), [&](std::uint32_t c) { return c > t; }))
      members.push_back(order[i]);
  }
  tr->meta["leave_one_out_order_" + key] = which ? "reverse" : "forward";
  tr->meta["leave_one_out_lines_" + key] = std::to_string(s);
  tr->meta["leave_one_out_" + key] = evset_join_groups(per_line);
  return members;
}


// For one verified target: its class, the cyclic-read sweeps of the class followed by the set's own
// lines (after a thrash by the same lines), in that order and reversed, and the leave-one-out check,
// into the trace under `key` (the target's number); returns the class search's eviction tests and
// puts the leave-one-out's lines of the set into `members`.
// (On the H100 the class search ended at 16 - 18 lines in most runs, too few to overflow a set of
// 16 ways on its own; lines of either that are not in the set only delay a step, and the
// leave-one-out check counts the set's lines whatever else the sweep holds.)
std::uint32_t class_sweeps(EvsetOracle& o, const EvsetParams& p, std::uint64_t target, const std::vector<EvsetRange>& set,
                           const std::string& key, Trace* tr, std::vector<std::uint64_t>* members) {
  std::uint32_t class_tests = 0;
  const std::vector<std::uint64_t> extra = class_lines(o, p, target, set, &class_tests);
  std::vector<std::uint64_t> swept = extra;
  for (const auto& r : set)
    for (std::uint64_t q = r.begin; q < r.end; ++q) swept.push_back(o.pool().line(q));
  tr->meta["class_" + key] = slice_join(extra);
  tr->meta["class_tests_" + key] = std::to_string(class_tests);
  std::vector<std::vector<std::vector<std::uint32_t>>> sweeps(2);
  for (int rev = 0; rev < 2; ++rev) {
    std::vector<std::uint64_t> order = swept;
    if (rev) std::reverse(order.begin(), order.end());
    for (std::size_t n = 1; n <= order.size(); ++n)
      sweeps[rev].push_back(o.cycle(swept, std::vector<std::uint64_t>(order.begin(), order.begin() + n), p.cycle_rounds));
    tr->meta[(rev ? "cycles_reverse_" : "cycles_forward_") + key] = evset_join_groups(sweeps[rev]);
  }
  tr->meta["swept_" + key] = slice_join(swept);
  *members = leave_one_out(o, p, swept, sweeps, key, tr);
  return class_tests;
}

// The policy sequences over the set's lines (ways + 1 of them: the leave-one-out's), into the trace
// under `key`: policy_lines_<k>, policy_sequences_<k> (indices into the lines), policy_cycles_<k>.
void policy_runs(EvsetOracle& o, const EvsetParams& p, const std::vector<std::uint64_t>& members, const std::string& key,
                 Trace* tr) {
  const auto ways = static_cast<std::uint32_t>(members.size() - 1);
  const auto seqs = evset_policy_sequences(ways, p.policy_sequences, 0xC0FFEEull + ways);
  const auto cycles = o.sequences(members, seqs);
  tr->meta["policy_lines_" + key] = slice_join(members);
  tr->meta["policy_sequences_" + key] = evset_join_groups(seqs);
  tr->meta["policy_cycles_" + key] = evset_join_groups(cycles);
}

}  // namespace

std::uint64_t evset_count(const std::vector<EvsetRange>& r) {
  std::uint64_t n = 0;
  for (const auto& x : r) n += x.end - x.begin;
  return n;
}

std::vector<EvsetRange> evset_without(const std::vector<EvsetRange>& r, std::uint64_t a, std::uint64_t b) {
  std::vector<EvsetRange> out;
  std::uint64_t pos = 0;
  for (const auto& x : r) {
    const std::uint64_t lo = pos, hi = pos + (x.end - x.begin);
    pos = hi;
    if (x.end == x.begin) continue;
    if (hi <= a || lo >= b) {
      out.push_back(x);
      continue;
    }
    if (lo < a) out.push_back({x.begin, x.begin + (a - lo)});
    if (hi > b) out.push_back({x.begin + (b - lo), x.end});
  }
  return out;
}

LevelResult run_evsets(EvsetOracle& o, const EvsetParams& p) {
  LevelResult res;
  if (p.targets < 1 || p.passes < 1) return {"l2_evsets: targets and passes must be >= 1", {}, 0, {}};
  {
    const EvsetPool& pool = o.pool();
    Trace tr;
    tr.kind = Trace::Kind::fine;
    auto& c = res.counters;
    c["pool_lines"] = static_cast<double>(pool.lines);
    c["line_bytes"] = static_cast<double>(kEvsetLineBytes);
    c["targets"] = p.targets;
    c["passes"] = p.passes;
    std::string why;
    const bool readout = o.readout_works(&why);
    c["readout_ok"] = readout ? 1 : 0;
    std::vector<std::string> status;
    std::vector<std::uint64_t> sizes, target_lines;
    std::vector<std::string> placed;
    std::vector<std::uint32_t> tests;
    std::vector<int> backtracks;
    std::vector<double> verified;
    std::uint32_t total_tests = 0, max_tests = 0;
    int classes = 0, policies = 0;
    for (int k = 0; readout && k < p.targets; ++k) {
      const std::uint64_t t = o.target_line(k);
      TargetOutcome out;
      if (p.max_seconds > 0 && o.seconds() > p.max_seconds) {
        out.status = "budget";
      } else {
        if (std::string where = o.place(t); !where.empty()) placed.push_back(std::to_string(k) + "=" + where);
        out = Reduction(o, p, t, 1000003ull * static_cast<std::uint64_t>(k + 1)).run();
      }
      status.push_back(out.status);
      sizes.push_back(out.size);
      tests.push_back(out.tests);
      backtracks.push_back(out.backtracks);
      target_lines.push_back(t);
      total_tests += out.tests;
      max_tests = std::max(max_tests, out.tests);
      tr.index.push_back(static_cast<std::uint32_t>(k));
      tr.latency.push_back(static_cast<std::uint32_t>(t));
      tr.label.push_back(0);
      if (out.size <= kMaxVerifiedLines)
        for (const auto& r : out.set)
          for (std::uint64_t q = r.begin; q < r.end; ++q) {
            tr.index.push_back(static_cast<std::uint32_t>(k));
            tr.latency.push_back(static_cast<std::uint32_t>(pool.line(q)));
            tr.label.push_back(1);
          }
      if (out.status == "minimal") verified.push_back(static_cast<double>(out.size));
      if (out.status == "minimal" && classes < p.class_targets) {
        ++classes;
        std::vector<std::uint64_t> members;
        total_tests += class_sweeps(o, p, t, out.set, std::to_string(k), &tr, &members);
        if (members.size() >= 3 && members.size() <= static_cast<std::size_t>(kEvsetPolicyMaxLines) && policies < p.policy_targets) {
          ++policies;
          policy_runs(o, p, members, std::to_string(k), &tr);
        }
      }
    }
    c["minimal"] = static_cast<double>(verified.size());
    c["failed"] = readout ? p.targets - static_cast<double>(verified.size()) : p.targets;
    if (!verified.empty()) {
      c["set_size_min"] = *std::min_element(verified.begin(), verified.end());
      c["set_size_max"] = *std::max_element(verified.begin(), verified.end());
    }
    c["policy_targets"] = policies;
    c["tests"] = total_tests;
    c["tests_max_target"] = max_tests;
    tr.meta.insert({{"content", "l2_evset"},
               {"line_bytes", std::to_string(kEvsetLineBytes)},
               {"pool_lines", std::to_string(pool.lines)},
               {"targets", std::to_string(p.targets)},
               {"passes", std::to_string(p.passes)},
               {"readout_ok", readout ? "1" : "0"},
               {"status", slice_join(status)},
               {"sizes", slice_join(sizes)},
               {"tests", slice_join(tests)},
               {"backtracks", slice_join(backtracks)},
               {"target_lines", slice_join(target_lines)},
               {"cycle_rounds", std::to_string(p.cycle_rounds)},
               {"labels", "0 the target, 1 a line of its reduced set; index = target, latency = line number"}});
    if (!placed.empty()) {  // "k=sm:cycles,sm:cycles,...;..." (the chosen SM first)
      std::string v;
      for (const std::string& x : placed) v += (v.empty() ? "" : ";") + x;
      tr.meta["placed"] = v;
    }
    std::replace(why.begin(), why.end(), '\n', ' ');  // a trace header value is one line
    if (!readout) tr.meta["readout_reason"] = why;
    res.trace = std::move(tr);
    res.seconds = o.seconds();
  }
  return res;
}

}  // namespace memhier
