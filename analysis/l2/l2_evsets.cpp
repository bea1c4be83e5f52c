// The L2's ways and sets from minimal eviction sets (analysis/l2/l2_evsets.hpp).
// docs/methodology.md, section l2_evsets; docs/formats.md, topology section l2_sets.
#include "analysis/l2/l2_evsets.hpp"
#include "analysis/l2/l2_policy.hpp"


#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "analysis/core/field.hpp"

namespace memhier::analysis {
namespace {

using json = nlohmann::json;

const char* kMethod =
    "per target line (written dirty), group testing (Vila, Köpf, Morales, S&P 2019) reduced a pool of lines that one CTA "
    "reads to a set from which no line can be dropped, verified timer-free by Invalidate+Compare (discard.global.L2, then "
    "a read: the older value means the target stayed in the L2, the newer one that it was written back): it evicts the "
    "target in 5 of 5 tests and without any one of its lines in none of 3; a set is evicted once W of its lines pass "
    "through it, so a verified minimal set has W lines, or W + 1 where one way holds a line the reads never displace (under "
    "a policy that keeps lines by their history it need not: 11 to 18 lines by target on the H100). Where the trace holds "
    "cyclic-read sweeps (for up to 3 verified targets a class of lines that each take the place of one line of the set; "
    "one thread reads the first k of the class's lines followed by the set's own (older traces: the class alone) "
    "cyclically, k = 1, 2, ..., in that order and reversed, and the last "
    "round is timed) the ways are the last k before the loads miss at every larger k: k lines hit while they fit their "
    "set, whatever the policy. A load misses above 1.5 x the slowest one-line hit (the k = 1 loads): a miss pays the L2 "
    "lookup plus a DRAM access, while the hits of one set's lines, all in one slice, cost alike. At least 2 sweeps must "
    "show the step and none another; the minimal sets then stay evidence only. Where the trace holds leave-one-out checks "
    "they decide instead: a class line outside the set the reads fill only delays a sweep's step, so each of the "
    "earlier-stepping sweep's first s lines is left out once and the others read cyclically; the lines whose absence "
    "leaves no miss are the set's, ways + 1 of them. The checks must agree, and no sweep may step before ways + 1";

// What a target's status means (the trace's status list; docs/formats.md, content l2_evset).
std::string status_meaning(const std::string& s) {
  static const std::map<std::string, std::string> m = {
      {"minimal", "verified minimal"},
      {"not_minimal", "the reduced set failed the check: 5 of 5 evictions, none without any one of its lines"},
      {"budget", "a budget ran out: the tests per target, or the run's time before the target began"},
      {"ranges", "the candidate set grew too fragmented to send"},
      {"no_eviction", "the whole pool did not evict the target"}};
  const auto it = m.find(s);
  return it == m.end() ? "a status this analyzer does not know" : it->second;
}

template <class T>
std::string join(const std::vector<T>& v, const char* sep = ", ") {
  std::ostringstream o;
  for (std::size_t i = 0; i < v.size(); ++i) o << (i ? sep : "") << v[i];
  return o.str();
}

std::vector<std::uint64_t> numbers(const Trace& t, const std::string& key) {
  std::vector<std::uint64_t> out;
  for (const auto& s : trace_list(t, key)) out.push_back(std::stoull(s));
  return out;
}

// A whole non-negative decimal number (no sign, no trailing text); false otherwise.
bool whole_number(const std::string& x, std::uint64_t* v) {
  if (x.empty() || x.size() > 19 || x.find_first_not_of("0123456789") != std::string::npos) return false;
  *v = std::stoull(x);
  return true;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  std::size_t a = 0;
  for (std::size_t b; (b = s.find(sep, a)) != std::string::npos; a = b + 1) out.push_back(s.substr(a, b - a));
  out.push_back(s.substr(a));
  return out;
}

// The ','-separated whole numbers of `text` into `out`; false where one is not a whole number.
bool number_list(const std::string& text, std::vector<std::uint64_t>* out) {
  for (const auto& x : split(text, ',')) {
    std::uint64_t v = 0;
    if (!whole_number(x, &v)) return false;
    out->push_back(v);
  }
  return true;
}

// The ';'-separated groups of ','-separated whole numbers in `text`, group i holding size(i) of
// them, up to the first group that does not (its index in `bad`; npos when every group does).
std::vector<std::vector<std::uint64_t>> number_groups(const std::string& text,
                                                      const std::function<std::size_t(std::size_t)>& size, std::size_t* bad) {
  std::vector<std::vector<std::uint64_t>> out;
  *bad = std::string::npos;
  const std::vector<std::string> groups = split(text, ';');
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::vector<std::string> parts = split(groups[i], ',');
    std::vector<std::uint64_t> g(parts.size());
    bool ok = parts.size() == size(i);
    for (std::size_t j = 0; ok && j < parts.size(); ++j) ok = whole_number(parts[j], &g[j]);
    if (!ok) {
      *bad = i;
      break;
    }
    out.push_back(std::move(g));
  }
  return out;
}

// The sweeps of target k's class (header keys class_<k>, class_tests_<k>, cycles_forward_<k>,
// cycles_reverse_<k>) into `d`; a list that does not read is kept as the sweep's error.
void read_sweeps(const Trace& t, int k, EvsetData* d) {
  const std::string key = std::to_string(k);
  for (const char* order : {"forward", "reverse"}) {
    const auto it = t.meta.find(std::string("cycles_") + order + "_" + key);
    if (it == t.meta.end()) continue;
    EvsetSweep w;
    w.target = k;
    w.order = order;
    const std::string ck = "class_" + key;
    const bool has_class = t.meta.count(ck) > 0;
    if (!number_list(has_class ? t.meta.at(ck) : std::string(), &w.class_lines))
      w.error = "its header key " + ck + " is not a comma list of line numbers";
    if (t.meta.count("class_tests_" + key) && !whole_number(t.meta.at("class_tests_" + key), &w.class_tests) && w.error.empty())
      w.error = "its header key class_tests_" + key + " is not a number";
    if (w.error.empty()) {
      std::size_t bad = 0;
      w.cycles = number_groups(it->second, [](std::size_t i) { return i + 1; }, &bad);
      if (bad != std::string::npos)
        w.error = "its header key " + it->first + " does not hold k numbers in group k (group " + std::to_string(bad + 1) + ": '" +
                  split(it->second, ';')[bad].substr(0, 80) + "')";
    }
    if (w.error.empty() && !has_class)
      w.error = "the trace has no " + ck + " for its " + it->first;
    // swept_<k>: the lines the sweep read (the class, then the set's own lines); older traces swept
    // the class alone
    std::size_t swept = w.class_lines.size();
    if (t.meta.count("swept_" + key)) swept = split(t.meta.at("swept_" + key), ',').size();
    w.swept_lines = swept;
    if (w.error.empty() && has_class && w.cycles.size() != swept)
      w.error = "its header key " + it->first + " holds " + std::to_string(w.cycles.size()) + " groups for " +
                std::to_string(swept) + " swept lines";
    if (!w.error.empty()) w.cycles.clear();
    d->sweeps.push_back(std::move(w));
  }
}

// Target k's leave-one-out check into `d` (none where the trace has no leave_one_out_<k>).
void read_loo(const Trace& t, int k, EvsetData* d) {
  const std::string key = std::to_string(k);
  const auto it = t.meta.find("leave_one_out_" + key);
  if (it == t.meta.end()) return;
  EvsetLoo l;
  l.target = k;
  l.order = t.meta.count("leave_one_out_order_" + key) ? t.meta.at("leave_one_out_order_" + key) : "";
  std::uint64_t s = 0;
  if (!t.meta.count("leave_one_out_lines_" + key) || !whole_number(t.meta.at("leave_one_out_lines_" + key), &s) || s > 100000)
    l.error = "its header key leave_one_out_lines_" + key + " is missing or not a number";
  l.lines = static_cast<std::size_t>(s);
  const std::size_t n_groups = split(it->second, ';').size();
  if (l.error.empty() && n_groups != l.lines)
    l.error = "its header key " + it->first + " holds " + std::to_string(n_groups) + " groups for " + std::to_string(l.lines) + " lines";
  if (l.error.empty()) {
    std::size_t bad = 0;
    l.groups = number_groups(it->second, [&](std::size_t) { return l.lines - 1; }, &bad);
    if (bad != std::string::npos)
      l.error = "its header key " + it->first + " does not hold " + std::to_string(l.lines - 1) + " numbers in group " + std::to_string(bad + 1);
  }
  if (!l.error.empty()) l.groups.clear();
  d->loo.push_back(std::move(l));
}

// Target k's policy sequences into `d` (none where the trace has no policy_cycles_<k>).
void read_policy(const Trace& t, int k, EvsetData* d) {
  const std::string key = std::to_string(k);
  const auto it = t.meta.find("policy_cycles_" + key);
  if (it == t.meta.end()) return;
  EvsetPolicyRun r;
  r.target = k;
  std::size_t bad = 0;
  const std::string lk = "policy_lines_" + key, sk = "policy_sequences_" + key;
  if (!number_list(t.meta.count(lk) ? t.meta.at(lk) : std::string(), &r.lines))
    r.error = "its header key " + lk + " is missing or not a comma list of line numbers";
  if (r.error.empty() && r.lines.empty()) r.error = "the trace has no " + lk;
  if (r.error.empty()) {
    for (const auto& g : split(t.meta.count(sk) ? t.meta.at(sk) : std::string(), ';')) {
      std::vector<std::uint64_t> q;
      if (!number_list(g, &q) || std::any_of(q.begin(), q.end(), [&](std::uint64_t v) { return v >= r.lines.size(); })) {
        r.error = "its header key " + sk + " is missing or holds something other than indices into " + lk;
        break;
      }
      r.sequences.push_back(std::move(q));
    }
    if (r.sequences.empty() && r.error.empty()) r.error = "the trace has no " + sk;
  }
  if (r.error.empty()) {
    r.cycles = number_groups(it->second, [&](std::size_t i) { return i < r.sequences.size() ? r.sequences[i].size() : 0; }, &bad);
    if (bad != std::string::npos || r.cycles.size() != r.sequences.size())
      r.error = "its header key " + it->first + " does not hold one number per access of each sequence";
  }
  if (!r.error.empty()) r.sequences.clear(), r.cycles.clear();
  d->policy.push_back(std::move(r));
}

// The trace's header into `d`; false with the reason when it is not an l2_evset trace this reads.
bool read_trace(const Trace& t, EvsetData* d, std::string* why) {
  if (t.meta.count("content") && t.meta.at("content") != "l2_evset") {
    *why = "its trace holds content '" + t.meta.at("content") + "', not l2_evset";
    return false;
  }
  try {
    d->readout_ok = t.meta.count("readout_ok") && t.meta.at("readout_ok") == "1";
    if (t.meta.count("readout_reason")) d->readout_reason = t.meta.at("readout_reason");
    if (t.meta.count("targets")) d->targets = std::stoi(t.meta.at("targets"));
    if (t.meta.count("passes")) d->passes = std::stoi(t.meta.at("passes"));
    if (t.meta.count("pool_lines")) d->pool_lines = std::stoull(t.meta.at("pool_lines"));
    if (t.meta.count("line_bytes")) d->line_bytes = std::stoull(t.meta.at("line_bytes"));
    d->status = trace_list(t, "status");
    d->sizes = numbers(t, "sizes");
    d->tests = numbers(t, "tests");
    d->target_lines = numbers(t, "target_lines");
  } catch (const std::exception&) {
    *why = "its trace header holds a list or count that is not numbers";
    return false;
  }
  const std::size_t n = d->status.size();
  if (!t.meta.count("readout_ok") || d->line_bytes == 0 || d->sizes.size() != n || d->tests.size() != n ||
      (!d->target_lines.empty() && d->target_lines.size() != n) || (d->readout_ok && n != static_cast<std::size_t>(d->targets))) {
    *why = "its trace header is incomplete (readout_ok, line_bytes, and status, sizes and tests for each of the " +
           std::to_string(d->targets) + " targets expected)";
    return false;
  }
  for (std::size_t k = 0; k < n; ++k)
    if (d->status[k] == "minimal") ++d->minimal;
  for (std::size_t k = 0; k < n; ++k) read_sweeps(t, static_cast<int>(k), d);
  for (std::size_t k = 0; k < n; ++k) read_loo(t, static_cast<int>(k), d);
  for (std::size_t k = 0; k < n; ++k) read_policy(t, static_cast<int>(k), d);
  try {
    d->backtracks = numbers(t, "backtracks");
  } catch (const std::exception&) {
    d->backtracks.clear();
  }
  std::uint64_t rounds = 0;
  if (t.meta.count("cycle_rounds") && whole_number(t.meta.at("cycle_rounds"), &rounds) && rounds < 1000000)
    d->cycle_rounds = static_cast<int>(rounds);
  d->from_trace = true;
  return true;
}

// The counters stand in for the trace: no per-target status or size, only the verified count and
// the smallest and largest verified size.
EvsetData from_counters(const BenchEntry& e, const std::string& note) {
  EvsetData d;
  d.benchmark = e.params.str();
  d.trace_note = note;
  d.readout_ok = e.counter("readout_ok", 0) >= 1;
  d.targets = static_cast<int>(e.counter("targets", e.params.get_int_or("targets", 0)));
  d.passes = static_cast<int>(e.counter("passes", e.params.get_int_or("passes", 0)));
  d.pool_lines = static_cast<std::uint64_t>(e.counter("pool_lines", 0));
  d.line_bytes = static_cast<std::uint64_t>(e.counter("line_bytes", 128));
  d.minimal = static_cast<int>(e.counter("minimal", 0));
  d.set_size_min = e.counter("set_size_min", 0);
  d.set_size_max = e.counter("set_size_max", 0);
  d.tests_total = static_cast<std::uint64_t>(e.counter("tests", 0));
  d.tests_max_target = static_cast<std::uint64_t>(e.counter("tests_max_target", 0));
  return d;
}

}  // namespace

bool load_evset_data(const Dataset& data, EvsetData* out) {
  const BenchEntry* first = nullptr;
  std::string first_note;
  for (std::size_t r = 0; r < data.runs().size(); ++r)
    for (const BenchEntry* e : data.runs()[r].family("l2_evsets")) {
      std::string why;
      const Trace* t = nullptr;
      try {
        t = data.trace(*e, r);
      } catch (const std::exception& x) {
        why = std::string("its trace is unreadable (") + x.what() + ")";
      }
      EvsetData d = from_counters(*e, "");
      if (t) {
        d.status.clear();
        d.minimal = 0;
        if (read_trace(*t, &d, &why)) {
          if (!e->has("tests")) {  // the counters hold every test (the per-target list: the reductions')
            d.tests_total = d.tests_max_target = 0;
            for (auto x : d.tests) d.tests_total += x, d.tests_max_target = std::max(d.tests_max_target, x);
          }
          *out = std::move(d);
          return true;
        }
      } else if (why.empty()) {
        why = "no trace was kept";
      }
      if (!first) first = e, first_note = why;
    }
  if (!first) return false;
  *out = from_counters(*first, first_note);
  return true;
}

EvsetWays evset_ways(const std::vector<std::uint64_t>& verified_sizes) {
  EvsetWays w;
  std::map<std::uint64_t, std::size_t> count;
  for (auto s : verified_sizes) ++count[s];
  if (count.empty()) {
    w.text = "no verified minimal eviction set";
    return w;
  }
  const std::uint64_t smallest = count.begin()->first;
  const std::size_t n = verified_sizes.size(), k = count.begin()->second;
  std::ostringstream sizes;
  for (const auto& [s, c] : count) sizes << (sizes.tellp() > 0 ? ", " : "") << s << " (" << c << (c == 1 ? " target)" : " targets)");
  if (2 * k <= n) {
    w.text = "the verified minimal sets disagree: sizes " + sizes.str() + "; the smallest, " + std::to_string(smallest) +
             ", is not a strict majority (" + std::to_string(k) + " of " + std::to_string(n) + ")";
    return w;
  }
  w.ways = static_cast<int>(smallest);
  w.confidence = k == n ? 0.9 : 0.7;
  w.text = "the smallest verified minimal eviction set, " + std::to_string(smallest) + " lines, in " + std::to_string(k) +
           " of " + std::to_string(n) + " verified sets (sizes " + sizes.str() + ")" +
           (k == n ? "" : ": a strict majority (a set one line larger is one where a way holds a line the reads never displace)");
  return w;
}

namespace {

std::string number_text(double x) {
  std::ostringstream o;
  o << x;
  return o.str();
}

}  // namespace

EvsetCyclic evset_cyclic_reads(const std::vector<EvsetSweep>& sweeps, int cycle_rounds) {
  EvsetCyclic c;
  std::uint64_t h1 = 0;
  for (const auto& w : sweeps)
    if (!w.cycles.empty()) c.usable = true, h1 = std::max(h1, w.cycles[0][0]);
  const double threshold = kEvsetMissFactor * static_cast<double>(h1);
  c.cyclic = {{"cycle_rounds", cycle_rounds > 0 ? json(cycle_rounds) : json()},
              {"hit_cycles_k1_max", c.usable ? json(h1) : json()},
              {"miss_threshold_cycles", c.usable ? json(threshold) : json()},
              {"sweeps", json::array()}};
  std::vector<std::string> summary;  // per sweep: its ways and step, or why none
  std::map<int, std::size_t> agree;  // ways -> sweeps
  for (const auto& w : sweeps) {
    std::vector<std::size_t> misses;
    for (const auto& g : w.cycles)
      misses.push_back(static_cast<std::size_t>(
          std::count_if(g.begin(), g.end(), [&](std::uint64_t x) { return static_cast<double>(x) > threshold; })));
    std::size_t step = 0, clean_until = 0;  // the first k with a miss; the first k after it without one
    for (std::size_t k = 1; k <= misses.size(); ++k) {
      if (misses[k - 1] > 0 && step == 0) step = k;
      if (misses[k - 1] == 0 && step != 0 && clean_until == 0) clean_until = k;
    }
    const std::size_t n = w.cycles.size();
    std::string why;
    int ways = 0;
    if (!w.error.empty())
      why = "the sweep does not read: " + w.error;
    else if (n == 0)
      why = "the class is empty: no line of the pool took the place of one of the set's lines";
    else if (step == 0)
      why = "no load missed up to k = " + std::to_string(n) + ": more than " + std::to_string(n - 1) +
            " ways or the class is not one set";
    else if (clean_until != 0)
      why = "k = " + std::to_string(step) + " misses, k = " + std::to_string(clean_until) + " does not: no clean step";
    else
      ways = static_cast<int>(step - 1);
    json j = {{"target", w.target}, {"order", w.order}, {"class_lines", w.class_lines}, {"class_tests", w.class_tests},
              {"swept_lines", w.swept_lines},
              {"misses_by_k", misses}, {"step_k", step ? json(step) : json()}, {"ways", ways ? json(ways) : json()}};
    if (!why.empty()) j["reason"] = why;
    c.cyclic["sweeps"].push_back(j);
    const std::string name = "target " + std::to_string(w.target) + " " + w.order;
    if (ways) {
      ++agree[ways];
      summary.push_back(name + ": ways " + std::to_string(ways) + " (step at k = " + std::to_string(step) + ")");
    } else {
      summary.push_back(name + ": no ways (" + why + ")");
    }
  }
  const std::string each = join(summary, "; ");
  if (!c.usable) {
    c.text = "no sweep has a k = 1 group (no hit to set the miss threshold by): " + each;
    return c;
  }
  const std::string rule = "a load misses above " + number_text(threshold) + " cycles, " + number_text(kEvsetMissFactor) +
                           " x the slowest one-line hit of " + std::to_string(h1);
  if (agree.empty()) {
    c.text = "no cyclic-read sweep shows a clean step (" + rule + "): " + each;
    return c;
  }
  if (agree.size() > 1) {
    c.text = "the cyclic-read sweeps disagree (" + rule + "): " + each;
    return c;
  }
  const auto [ways, n] = *agree.begin();
  if (n < 2) {
    c.text = "only 1 of " + std::to_string(sweeps.size()) + " cyclic-read sweeps shows a clean step, 2 that agree needed (" +
             rule + "): " + each;
    return c;
  }
  c.ways = ways;
  c.confidence = n == sweeps.size() ? 0.9 : 0.8;
  c.text = "k lines of a class (lines that each take the place of one line of a verified minimal set) read cyclically by one "
           "thread hit while they fit their set; " +
           std::to_string(n) + " of " + std::to_string(sweeps.size()) + " sweeps first miss at k = " + std::to_string(ways + 1) +
           " and at every k after it (" + rule + "): " + each;
  return c;
}

namespace {

// One leave-one-out check: its entry of cyclic_reads.leave_one_out; its ways (if any) into `by_ways`,
// its line of the note or reason into `each`.
json loo_check(const EvsetLoo& l, double threshold, const json& sweeps, std::map<int, std::vector<int>>& by_ways,
             std::vector<std::string>& each) {
  json j = {{"target", l.target}, {"order", l.order}, {"lines", l.lines}};
  std::vector<std::size_t> outside;
  std::size_t members = 0;
  for (std::size_t i = 0; i < l.groups.size(); ++i) {
    const bool miss = std::any_of(l.groups[i].begin(), l.groups[i].end(),
                                  [&](std::uint64_t x) { return static_cast<double>(x) > threshold; });
    if (miss) outside.push_back(i); else ++members;
  }
  // The sweep the check came from, under this analyzer's threshold (over every sweep; the
  // producer chose s by the target's own two sweeps, so the first miss here can come later).
  const json* sw = nullptr;
  for (const auto& x : sweeps)
    if (x.value("target", -1) == l.target && x.value("order", std::string()) == l.order) sw = &x;
  const json step = sw && sw->contains("step_k") ? (*sw)["step_k"] : json();
  bool s_misses = false;  // the sweep's group k = s (the s lines together) has a load above the threshold
  if (sw && sw->contains("misses_by_k") && l.lines >= 1 && (*sw)["misses_by_k"].size() >= l.lines)
    s_misses = (*sw)["misses_by_k"][l.lines - 1].get<std::size_t>() > 0;
  std::string note;
  if (l.error.empty() && !(step.is_number() && step.get<std::size_t>() == l.lines))
    note = "the trace's s = " + std::to_string(l.lines) + " (1.5 x the slowest k = 1 hit of this target's two sweeps) is not the " +
           l.order + " sweep's first miss under this analyzer's threshold (" +
           (step.is_number() ? "k = " + std::to_string(step.get<std::size_t>()) : std::string(sw ? "none" : "no such sweep")) + ")";
  std::string why;
  if (!l.error.empty()) why = "the check does not read: " + l.error;
  else if (l.groups.empty()) why = "no line was left out";
  else if (members < 2) why = "fewer than 2 of the " + std::to_string(l.lines) + " lines leave no miss when left out";
  else if (outside.empty() && !s_misses)
    why = "no line's absence leaves a miss, and the " + l.order + " sweep's first " + std::to_string(l.lines) +
          " lines read together show none either under this analyzer's threshold: nothing shows that they overflow their set";
  j["members"] = members;
  j["outside"] = outside;
  j["sweep_step_k"] = step;
  if (!note.empty()) j["note"] = note;
  const std::string name = "target " + std::to_string(l.target);
  const std::string noted = note.empty() ? std::string() : " [" + note + "]";
  if (why.empty()) {
    const int w = static_cast<int>(members) - 1;
    j["ways"] = w;
    by_ways[w].push_back(l.target);
    each.push_back(name + ": " + std::to_string(members) + " of its first " + std::to_string(l.lines) + " " + l.order +
                   " lines are the set's (ways " + std::to_string(w) + ")" + noted);
  } else {
    j["ways"] = nullptr;
    j["reason"] = why;
    each.push_back(name + ": no ways (" + why + ")" + noted);
  }
  return j;
}

}  // namespace

EvsetLooWays evset_leave_one_out(const std::vector<EvsetLoo>& loo, double threshold, const json& sweeps,
                                 std::size_t class_targets) {
  EvsetLooWays r;
  r.any = !loo.empty();
  std::map<int, std::vector<int>> by_ways;  // ways -> targets
  std::vector<std::string> each;
  for (const auto& l : loo) r.checks.push_back(loo_check(l, threshold, sweeps, by_ways, each));
  const std::string all = join(each, "; ");
  if (by_ways.empty()) {
    r.text = "no leave-one-out check gives the ways: " + all;
    return r;
  }
  if (by_ways.size() > 1) {
    r.text = "the leave-one-out checks disagree: " + all;
    return r;
  }
  const int w = by_ways.begin()->first;
  const std::size_t n = by_ways.begin()->second.size();
  for (const auto& sw : sweeps)  // a sweep's step can come late (a line outside the set), never early
    if (sw.contains("ways") && sw["ways"].is_number() && sw["ways"].get<int>() < w) {
      r.text = "the sweep of target " + std::to_string(sw.value("target", -1)) + " " + sw.value("order", std::string()) +
               " steps after " + std::to_string(sw["ways"].get<int>()) + " lines, fewer than the " + std::to_string(w) +
               " ways the leave-one-out checks give: " + all;
      return r;
    }
  r.ways = w;
  r.confidence = n >= 2 ? (n == class_targets ? 0.9 : 0.8) : 0.6;
  r.text = "the lines of a class that overflowed its set (the earlier-stepping sweep's first s lines), each left out once "
           "and the others read cyclically: the lines whose absence leaves no miss are the set's, ways + 1 of them; " +
           (n == 1 ? "only 1 check gives the ways (2 that agree give 0.8, all class targets' 0.9), " + std::to_string(w)
                   : std::to_string(n) + " checks agree on " + std::to_string(w)) +
           " ways: " + all;
  return r;
}

namespace {

// Why the ways are not decided where fewer than kEvsetMinVerified targets were verified: each other
// target's status, what it means, its tests and the size its reduction reached.
std::string too_few_reason(const EvsetData& d, const std::vector<std::uint64_t>& verified) {
  std::ostringstream o;
  o << "only " << d.minimal << " of " << d.targets << " targets have a verified minimal eviction set (" << kEvsetMinVerified
    << " needed)";
  if (!verified.empty()) o << "; verified sizes " << join(verified);
  if (!d.from_trace) {
    o << "; which targets failed and how is in the trace, and " << d.trace_note;
    return o.str();
  }
  std::vector<std::string> failed;
  for (std::size_t k = 0; k < d.status.size(); ++k)
    if (d.status[k] != "minimal")
      failed.push_back("target " + std::to_string(k) + " " + d.status[k] + " (" + status_meaning(d.status[k]) + "; " +
                       (d.tests[k] == 0 ? std::string("no test run")
                                        : std::to_string(d.tests[k]) + " tests, reduced to " + std::to_string(d.sizes[k]) + " lines") +
                       ")");
  if (!failed.empty()) o << "; " << join(failed, "; ");
  return o.str();
}

// The minimal-set rule: the ways (0 when not decided) with the note or the reason.
EvsetWays minimal_rule(const EvsetData& d, const std::vector<std::uint64_t>& verified) {
  if (d.minimal < kEvsetMinVerified) return {0, 0, too_few_reason(d, verified)};
  if (verified.empty()) {  // counters only, the sizes not all equal
    std::ostringstream o;
    o << "the " << d.minimal << " verified minimal sets hold " << d.set_size_min << " to " << d.set_size_max
      << " lines, and without the per-target sizes of the trace (" << d.trace_note
      << ") whether the smallest is a strict majority is not known";
    return {0, 0, o.str()};
  }
  return evset_ways(verified);
}

// The ways into `s` (value or null with the reason): from the cyclic-read sweeps where the trace
// holds one with a k = 1 group, else from the minimal sets; the decided ways (0 when null).
int decide_ways(const EvsetData& d, const Evidence& ev, json& s) {
  std::vector<std::uint64_t> verified;
  for (std::size_t k = 0; k < d.status.size(); ++k)
    if (d.status[k] == "minimal") verified.push_back(d.sizes[k]);
  if (!d.from_trace && d.minimal > 0 && d.set_size_min == d.set_size_max)
    verified.assign(d.minimal, static_cast<std::uint64_t>(d.set_size_min));
  s["minimal_set_sizes"] = verified;
  const EvsetCyclic c = d.sweeps.empty() ? EvsetCyclic{} : evset_cyclic_reads(d.sweeps, d.cycle_rounds);
  if (!d.sweeps.empty()) s["cyclic_reads"] = c.cyclic;
  s["ways_from"] = c.usable ? "cyclic reads" : "minimal sets";
  if (!d.readout_ok) {
    set_null(s, "ways",
             "the readout does not work here: a dirty line discarded from the L2 did not read its older value, or a "
             "written-back one its newer value" +
                 (d.readout_reason.empty() ? std::string() : " (" + d.readout_reason + ")") + "; no eviction test ran",
             ev);
    return 0;
  }
  const EvsetWays m = minimal_rule(d, verified);
  if (c.usable && !d.loo.empty()) {
    std::set<int> class_targets;
    for (const auto& w : d.sweeps) class_targets.insert(w.target);
    EvsetLooWays l = evset_leave_one_out(d.loo, c.cyclic.value("miss_threshold_cycles", 0.0), c.cyclic["sweeps"], class_targets.size());
    s["cyclic_reads"]["leave_one_out"] = l.checks;
    s["ways_from"] = "leave-one-out";
    s["minimal_sets_match_ways"] = l.ways > 0 && m.ways == l.ways;
    const std::string rest = "; the sweeps (bounds): " + c.text + "; the minimal-set rule (evidence only): " + m.text;
    if (l.ways == 0) {
      set_null(s, "ways", l.text + rest, ev);
      return 0;
    }
    set_value(s, "ways", l.ways, l.confidence, ev, l.text + rest);
    return l.ways;
  }
  if (c.usable) {
    s["minimal_sets_match_ways"] = c.ways > 0 && m.ways == c.ways;
    const std::string minimal = "; the minimal-set rule (evidence only beside sweeps): " + m.text;
    if (c.ways == 0) {
      set_null(s, "ways", c.text + minimal, ev);
      return 0;
    }
    set_value(s, "ways", c.ways, c.confidence, ev, c.text + minimal);
    return c.ways;
  }
  if (m.ways == 0) {
    set_null(s, "ways", m.text, ev);
    return 0;
  }
  set_value(s, "ways", m.ways, m.confidence, ev, m.text);
  return m.ways;
}

// sets = the L2's bytes / (ways x line); sets_per_slice = sets / l2_slices.slices.
void decide_sets(const json& topology, int ways, double ways_conf, std::uint64_t line, const Evidence& ev, json& s) {
  if (ways <= 0) {
    set_null(s, "sets", "needs the ways", ev);
    set_null(s, "sets_per_slice", "needs the sets", ev);
    return;
  }
  if (!s["l2_bytes"].is_number()) {
    set_null(s, "sets", "the run's context has no l2_cache_bytes (the device's L2 size)", ev);
    set_null(s, "sets_per_slice", "needs the sets", ev);
    return;
  }
  const auto l2 = s["l2_bytes"].get<std::uint64_t>(), unit = static_cast<std::uint64_t>(ways) * line;
  if (unit == 0 || l2 % unit != 0) {
    set_null(s, "sets",
             "the L2's " + std::to_string(l2) + " bytes do not divide into sets of " + std::to_string(ways) + " ways x " +
                 std::to_string(line) + " bytes (" + std::to_string(static_cast<double>(l2) / static_cast<double>(unit)) +
                 "): sets of unequal size, or not every byte of the L2 in its sets",
             ev);
    set_null(s, "sets_per_slice", "needs the sets", ev);
    return;
  }
  const std::uint64_t sets = l2 / unit;
  set_value(s, "sets", sets, ways_conf, ev,
            "the L2's bytes (context l2_cache_bytes) / (" + std::to_string(ways) + " ways x " + std::to_string(line) + " bytes)");
  const json sl = topology.is_object() && topology.contains("l2_slices") ? topology["l2_slices"] : json();
  if (!sl.is_object()) {
    set_null(s, "sets_per_slice", "needs the total slice count: no l2_slices section (the l2_slices family did not run)", ev);
    return;
  }
  const json prov = sl.contains("provenance") && sl["provenance"].contains("slices") ? sl["provenance"]["slices"] : json::object();
  if (!sl.contains("slices") || !sl["slices"].is_number() || sl["slices"].get<double>() <= 0) {
    const std::string why = prov.is_object() ? prov.value("reason", std::string()) : std::string();
    set_null(s, "sets_per_slice",
             "needs the total slice count: l2_slices.slices is null" + (why.empty() ? std::string() : " (" + why + ")"), ev);
    return;
  }
  const auto slices = sl["slices"].get<std::uint64_t>();
  if (sets % slices != 0) {
    set_null(s, "sets_per_slice",
             "the " + std::to_string(sets) + " sets do not divide among the " + std::to_string(slices) + " slices of l2_slices",
             ev);
    return;
  }
  const double slice_conf = prov.is_object() ? prov.value("confidence", 0.0) : 0.0;
  set_value(s, "sets_per_slice", sets / slices, std::min(ways_conf, slice_conf), ev,
            "sets / the " + std::to_string(slices) + " slices of l2_slices.slices");
}

// The index within a slice as a GF(2) matrix (issue 20 item 2): a linear map of address bits over
// GF(2) reaches 2^rank values, so where the sets per slice are no power of two no such matrix
// exists and the index takes a modulo or another non-linear step; where they are one, the
// eviction sets of a few targets (one set each) cannot give the matrix: that needs lines known to
// share and known not to share a set within one slice.
void decide_index(const Evidence& ev, json& s) {
  if (!s.contains("sets_per_slice") || !s["sets_per_slice"].is_number()) {
    set_null(s, "index_within_slice", "needs the sets per slice", ev);
    return;
  }
  const auto n = s["sets_per_slice"].get<std::uint64_t>();
  if (n == 0 || (n & (n - 1)) != 0) {
    set_value(s, "index_within_slice", "not linear over GF(2)", s["provenance"]["sets_per_slice"].value("confidence", 0.0), ev,
              std::to_string(n) + " sets per slice is not a power of two: a GF(2) matrix over address bits reaches 2^rank "
              "values, so the index within a slice takes a modulo or another non-linear step");
    return;
  }
  set_null(s, "index_within_slice",
           std::to_string(n) + " sets per slice is a power of two, but the eviction sets (one set per target) give no lines "
           "known to lie in other sets of the same slice, so no matrix is determined",
           ev);
}

}  // namespace

json l2_sets_section(const Dataset& data, const json& topology) {
  EvsetData d;
  if (!load_evset_data(data, &d)) return nullptr;
  Evidence ev;
  ev.add(d.benchmark);
  json s = {{"benchmark", d.benchmark}, {"method", kMethod}, {"readout_ok", d.readout_ok}, {"targets", d.targets},
            {"targets_minimal", d.minimal}, {"passes", d.passes}, {"pool_lines", d.pool_lines},
            {"line_bytes", d.line_bytes}, {"from_trace", d.from_trace}};
  if (!d.from_trace) s["trace_reason"] = d.trace_note;
  if (!d.readout_reason.empty()) s["readout_reason"] = d.readout_reason;
  if (d.from_trace) {
    s["status_by_target"] = d.status;
    s["set_size_by_target"] = d.sizes;
    s["tests_by_target"] = d.tests;
    if (!d.backtracks.empty()) s["backtracks_by_target"] = d.backtracks;
  }
  s["tests"] = d.tests_total;
  s["tests_max_target"] = d.tests_max_target;
  const auto& ctx = data.context();
  const auto l2 = ctx.find("l2_cache_bytes");
  const double l2b = l2 == ctx.end() ? NAN : std::strtod(l2->second.c_str(), nullptr);
  s["l2_bytes"] = std::isfinite(l2b) && l2b > 0 ? json(static_cast<std::uint64_t>(l2b)) : json();
  if (s["l2_bytes"].is_number() && d.pool_lines > 0)
    s["pool_of_l2"] = std::round(1000.0 * static_cast<double>(d.pool_lines * d.line_bytes) / l2b) / 1000;
  const int ways = decide_ways(d, ev, s);
  const double conf = ways > 0 ? s["provenance"]["ways"]["confidence"].get<double>() : 0.0;
  decide_sets(topology, ways, conf, d.line_bytes, ev, s);
  decide_index(ev, s);
  decide_l2_policy(d, ways, ev, s);
  return s;
}

}  // namespace memhier::analysis
