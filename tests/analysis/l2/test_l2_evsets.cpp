// The L2's ways and sets from minimal eviction sets (analysis/l2/l2_evsets.hpp; issue 20 item
// 2) from built l2_evsets entries and their l2_evset traces: the ways where the verified sets agree
// or a strict majority has the smallest size, null with the reason where they disagree, where too
// few were verified or the readout does not work; the sets and the sets per slice, or why not; the
// report's section and the gate's structural fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analysis/core/validate.hpp"
#include "analysis/gate/compare.hpp"
#include "analysis/l2/l2_evsets.hpp"
#include "analysis/report/sm_resources.hpp"
#include "common/l2_evset_sequences.hpp"
#include "sim/l2_evsets.hpp"
#include "tests/analysis/bench_entries.hpp"

using namespace memhier;
using namespace memhier::analysis;
using json = nlohmann::json;

namespace {

constexpr std::uint64_t kH100L2 = 50ull << 20;  // 52428800 bytes: 25600 sets of 16 x 128 B
const std::string kName = "l2_evsets/targets:4/passes:2/pool:2";

struct EvsetsRun {
  std::vector<std::string> status;     // per target
  std::vector<std::uint64_t> sizes;    // per target: lines of its reduced set
  bool readout = true;
  std::string readout_reason;
  std::map<std::string, std::string> context = {{"l2_cache_bytes", std::to_string(kH100L2)}};
  bool trace = true;
  std::map<std::string, double> counters;  // replace the counters derived from status and sizes
  std::vector<std::uint64_t> tests;        // per target (empty: 300 + k)
  // Cyclic-read sweeps by target: the header values cycles_forward_<k> and cycles_reverse_<k> (a
  // value "" leaves the key out); class_<k> gets as many lines as the forward value has groups.
  std::map<int, std::pair<std::string, std::string>> sweeps;
  std::map<std::string, std::string> meta;  // header keys set last (as they are)
};

// A sweep's header value: group k (k = 1 ...) holds k loads, the last misses[k - 1] of them `miss`
// cycles, the others hits of `hit` cycles plus a little (k % 7).
std::string sweep(const std::vector<int>& misses, std::uint64_t hit = 350, std::uint64_t miss = 800) {
  std::string s;
  for (std::size_t k = 1; k <= misses.size(); ++k) {
    if (k > 1) s += ";";
    for (std::size_t i = 0; i < k; ++i) {
      const bool missed = i + static_cast<std::size_t>(misses[k - 1]) >= k;
      s += (i ? "," : "") + std::to_string(missed ? miss : hit + (k + i) % 7 * (k > 1));
    }
  }
  return s;
}

// Misses by k for `ways` ways, k = 1 ... n: none while k <= ways, then k - ways loads (an RRIP-like
// policy: some of them).
std::vector<int> step_at(int ways, int n = 24) {
  std::vector<int> m;
  for (int k = 1; k <= n; ++k) m.push_back(k <= ways ? 0 : k - ways);
  return m;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

// The entry and (unless r.trace is false) the trace the l2_evsets family writes for `r`.
Dataset evsets_data(const EvsetsRun& r) {
  const std::size_t n = r.readout ? r.status.size() : 0;
  std::map<std::string, double> c = {{"readout_ok", r.readout ? 1 : 0}, {"pool_lines", 819200}, {"line_bytes", 128},
                                     {"targets", static_cast<double>(r.status.size())}, {"passes", 2}};
  double minimal = 0, lo = 1e9, hi = 0, tests = 0;
  Trace t;
  t.benchmark = kName;
  std::vector<std::string> sizes, tests_list, targets;
  for (std::size_t k = 0; k < n; ++k) {
    const std::uint64_t line = 1000000 + k, tk = r.tests.empty() ? 300 + k : r.tests[k];
    sizes.push_back(std::to_string(r.sizes[k]));
    tests_list.push_back(std::to_string(tk));
    targets.push_back(std::to_string(line));
    tests += tk;
    t.index.push_back(static_cast<std::uint32_t>(k));
    t.latency.push_back(static_cast<std::uint32_t>(line));
    t.label.push_back(0);
    for (std::uint64_t j = 0; j < r.sizes[k]; ++j) {
      t.index.push_back(static_cast<std::uint32_t>(k));
      t.latency.push_back(static_cast<std::uint32_t>(k * 4096 + j * 25600));
      t.label.push_back(1);
    }
    if (r.status[k] == "minimal") {
      ++minimal;
      lo = std::min<double>(lo, r.sizes[k]);
      hi = std::max<double>(hi, r.sizes[k]);
    }
  }
  c["minimal"] = minimal;
  c["failed"] = static_cast<double>(r.status.size()) - minimal;
  if (minimal > 0) c["set_size_min"] = lo, c["set_size_max"] = hi;
  c["tests"] = tests;
  c["tests_max_target"] = n ? 300 + n - 1 : 0;
  for (const auto& [k, v] : r.counters) c[k] = v;
  t.meta = {{"content", "l2_evset"}, {"line_bytes", "128"}, {"pool_lines", "819200"},
            {"targets", std::to_string(r.status.size())}, {"passes", "2"}, {"readout_ok", r.readout ? "1" : "0"},
            {"status", join(r.readout ? r.status : std::vector<std::string>{})}, {"sizes", join(sizes)},
            {"tests", join(tests_list)}, {"target_lines", join(targets)}};
  if (!r.readout_reason.empty()) t.meta["readout_reason"] = r.readout_reason;
  if (!r.sweeps.empty()) t.meta["cycle_rounds"] = "8";
  for (const auto& [k, fr] : r.sweeps) {
    const std::string key = std::to_string(k);
    const std::string& f = fr.first.empty() ? fr.second : fr.first;
    std::vector<std::string> cls;
    if (!f.empty())
      for (std::size_t j = 0, n = 1 + static_cast<std::size_t>(std::count(f.begin(), f.end(), ';')); j < n; ++j)
        cls.push_back(std::to_string(2000000 + 100 * k + j));
    t.meta["class_" + key] = join(cls);
    t.meta["class_tests_" + key] = std::to_string(200 + k);
    if (!fr.first.empty()) t.meta["cycles_forward_" + key] = fr.first;
    if (!fr.second.empty()) t.meta["cycles_reverse_" + key] = fr.second;
  }
  for (const auto& [k, v] : r.meta) t.meta[k] = v;
  Dataset d = Dataset::from_runs({test_support::bench_run({test_support::bench_entry(kName, c)}, r.context)});
  if (r.trace) d.add_trace(kName, t);
  return d;
}

std::string reason(const json& s, const std::string& key) {
  return s["provenance"][key].value("reason", std::string());
}
double confidence(const json& s, const std::string& key) { return s["provenance"][key]["confidence"].get<double>(); }

EvsetsRun minimal_sets(const std::vector<std::uint64_t>& sizes) {
  EvsetsRun r;
  r.status.assign(sizes.size(), "minimal");
  r.sizes = sizes;
  return r;
}

}  // namespace

TEST(L2Sets, NoEntryNoSection) {
  Dataset d = Dataset::from_runs({test_support::bench_run({test_support::bench_entry("l2_slices/op:fingerprint", {})}, {})});
  EXPECT_TRUE(l2_sets_section(d, json::object()).is_null());
}

TEST(L2Sets, EveryVerifiedSetAgrees) {
  const json s = l2_sets_section(evsets_data(minimal_sets({16, 16, 16, 16})), json::object());
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["ways"], 16) << s.dump(1);
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.9);
  EXPECT_EQ(s["sets"], kH100L2 / (16 * 128));  // 25600
  EXPECT_DOUBLE_EQ(confidence(s, "sets"), 0.9);
  EXPECT_EQ(s["minimal_set_sizes"], json({16, 16, 16, 16}));
  EXPECT_EQ(s["targets"], 4);
  EXPECT_EQ(s["targets_minimal"], 4);
  EXPECT_EQ(s["status_by_target"], json({"minimal", "minimal", "minimal", "minimal"}));
  EXPECT_EQ(s["tests"], 300 + 301 + 302 + 303);
  EXPECT_EQ(s["tests_max_target"], 303);
  EXPECT_EQ(s["line_bytes"], 128);
  EXPECT_EQ(s["l2_bytes"], kH100L2);
  EXPECT_TRUE(s["readout_ok"].get<bool>());
  EXPECT_TRUE(s["from_trace"].get<bool>());
  EXPECT_EQ(s["benchmark"], kName);
  EXPECT_FALSE(s["method"].get<std::string>().empty());
  // no l2_slices section: no slice count to divide by
  EXPECT_TRUE(s["sets_per_slice"].is_null());
  EXPECT_NE(reason(s, "sets_per_slice").find("needs the total slice count: no l2_slices section"), std::string::npos);
}

TEST(L2Sets, StrictMajorityOfTheSmallest) {
  const json s = l2_sets_section(evsets_data(minimal_sets({16, 16, 16, 17})), json::object());
  EXPECT_EQ(s["ways"], 16) << s.dump(1);
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.7);
  EXPECT_DOUBLE_EQ(confidence(s, "sets"), 0.7);
  EXPECT_EQ(s["minimal_set_sizes"], json({16, 16, 16, 17}));
  // the strict majority counts among the verified sets only; a failed target's size is no vote
  EvsetsRun r = minimal_sets({17, 16, 40, 16});
  r.status[2] = "not_minimal";
  const json t = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(t["ways"], 16) << t.dump(1);
  EXPECT_DOUBLE_EQ(confidence(t, "ways"), 0.7);
  EXPECT_EQ(t["targets_minimal"], 3);
}

TEST(L2Sets, DisagreeingSizesStayNull) {
  const json s = l2_sets_section(evsets_data(minimal_sets({16, 17, 17})), json::object());
  EXPECT_TRUE(s["ways"].is_null()) << s.dump(1);
  const std::string why = reason(s, "ways");
  EXPECT_NE(why.find("16 (1 target)"), std::string::npos) << why;
  EXPECT_NE(why.find("17 (2 targets)"), std::string::npos) << why;
  EXPECT_NE(why.find("not a strict majority"), std::string::npos) << why;
  EXPECT_TRUE(s["sets"].is_null());
  EXPECT_EQ(reason(s, "sets"), "needs the ways");
  // a tie is no strict majority either
  const json tie = l2_sets_section(evsets_data(minimal_sets({15, 16, 15, 16})), json::object());
  EXPECT_TRUE(tie["ways"].is_null());
  EXPECT_NE(reason(tie, "ways").find("15 (2 targets), 16 (2 targets)"), std::string::npos) << reason(tie, "ways");
  // two verified sizes that disagree: too few, the reason names both sizes
  EvsetsRun r = minimal_sets({15, 16, 900, 70});
  r.status[2] = "no_eviction", r.status[3] = "budget";
  const json two = l2_sets_section(evsets_data(r), json::object());
  EXPECT_TRUE(two["ways"].is_null());
  EXPECT_NE(reason(two, "ways").find("verified sizes 15, 16"), std::string::npos) << reason(two, "ways");
}

TEST(L2Sets, FewerThanThreeVerifiedListsTheFailures) {
  EvsetsRun r = minimal_sets({16, 16, 512, 40});
  r.status[2] = "budget", r.status[3] = "ranges";
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_TRUE(s["ways"].is_null()) << s.dump(1);
  const std::string why = reason(s, "ways");
  EXPECT_NE(why.find("only 2 of 4 targets"), std::string::npos) << why;
  EXPECT_NE(why.find("target 2 budget (a budget ran out: the tests per target, or the run's time before the target began; 302 tests, reduced to 512 lines)"), std::string::npos) << why;
  EXPECT_NE(why.find("target 3 ranges (the candidate set grew too fragmented to send"), std::string::npos) << why;
  EXPECT_EQ(why.find("target 0"), std::string::npos) << why;  // the verified ones are not failures
  // a target the run's time budget left unbegun: no tests, no reduced size
  EvsetsRun late = minimal_sets({16, 16, 16, 0});
  late.status[1] = "not_minimal", late.status[3] = "budget";
  late.tests = {400, 700, 450, 0};
  const std::string w2 = reason(l2_sets_section(evsets_data(late), json::object()), "ways");
  EXPECT_NE(w2.find("target 1 not_minimal (the reduced set failed the check: 5 of 5 evictions, none without any one of its lines; "
                    "700 tests, reduced to 16 lines)"), std::string::npos) << w2;
  EXPECT_NE(w2.find("target 3 budget (a budget ran out: the tests per target, or the run's time before the target began; no test run)"),
            std::string::npos) << w2;
  EXPECT_EQ(s["minimal_set_sizes"], json({16, 16}));
  EXPECT_EQ(s["status_by_target"], json({"minimal", "minimal", "budget", "ranges"}));
  EXPECT_TRUE(s["sets"].is_null());
  EXPECT_TRUE(s["sets_per_slice"].is_null());
}

TEST(L2Sets, ReadoutThatDoesNotWork) {
  EvsetsRun r = minimal_sets({16, 16, 16, 16});
  r.readout = false;
  r.readout_reason = "the discarded dirty line read its newer value";
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_FALSE(s["readout_ok"].get<bool>());
  EXPECT_TRUE(s["ways"].is_null()) << s.dump(1);
  const std::string why = reason(s, "ways");
  EXPECT_NE(why.find("the readout does not work"), std::string::npos) << why;
  EXPECT_NE(why.find("the discarded dirty line read its newer value"), std::string::npos) << why;
  EXPECT_EQ(s["readout_reason"], r.readout_reason);
  EXPECT_EQ(s["minimal_set_sizes"], json::array());
  EXPECT_TRUE(s["sets"].is_null());
}

TEST(L2Sets, SetsThatDoNotDivideStayNull) {
  // 15 ways of 128 B do not divide 50 MiB
  const json s = l2_sets_section(evsets_data(minimal_sets({15, 15, 15})), json::object());
  EXPECT_EQ(s["ways"], 15);
  EXPECT_TRUE(s["sets"].is_null()) << s.dump(1);
  EXPECT_NE(reason(s, "sets").find("do not divide into sets of 15 ways x 128 bytes"), std::string::npos) << reason(s, "sets");
  // no L2 size in the context
  EvsetsRun r = minimal_sets({16, 16, 16});
  r.context.clear();
  const json t = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(t["ways"], 16);
  EXPECT_TRUE(t["l2_bytes"].is_null());
  EXPECT_NE(reason(t, "sets").find("no l2_cache_bytes"), std::string::npos);
}

TEST(L2Sets, SetsPerSliceFromTheSliceCount) {
  const Dataset d = evsets_data(minimal_sets({16, 16, 16, 16}));
  const json decided = {{"l2_slices", {{"slices", 80}, {"provenance", {{"slices", {{"confidence", 0.6}}}}}}}};
  const json s = l2_sets_section(d, decided);
  EXPECT_EQ(s["sets_per_slice"], 320) << s.dump(1);     // 25600 sets / 80 slices
  EXPECT_DOUBLE_EQ(confidence(s, "sets_per_slice"), 0.6);  // the weaker of the ways' 0.9 and the slices' 0.6
  // the slice count null: its reason carried
  const json undecided = {{"l2_slices",
                           {{"slices", nullptr},
                            {"slices_per_partition", 40},
                            {"provenance", {{"slices", {{"confidence", 0}, {"reason", "needs the slices per partition"}}}}}}}};
  const json u = l2_sets_section(d, undecided);
  EXPECT_TRUE(u["sets_per_slice"].is_null());
  EXPECT_EQ(reason(u, "sets_per_slice"),
            "needs the total slice count: l2_slices.slices is null (needs the slices per partition)");
  EXPECT_EQ(u["sets"], 25600);
  // a count the sets do not divide among
  const json odd = {{"l2_slices", {{"slices", 96}, {"provenance", {{"slices", {{"confidence", 0.8}}}}}}}};
  const json o = l2_sets_section(d, odd);
  EXPECT_TRUE(o["sets_per_slice"].is_null());
  EXPECT_NE(reason(o, "sets_per_slice").find("25600 sets do not divide among the 96 slices"), std::string::npos);
}

TEST(L2Sets, CountersStandInForAMissingTrace) {
  EvsetsRun r = minimal_sets({16, 16, 16, 16});
  r.trace = false;
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_FALSE(s["from_trace"].get<bool>());
  EXPECT_EQ(s["trace_reason"], "no trace was kept");
  EXPECT_EQ(s["ways"], 16) << s.dump(1);  // set_size_min = set_size_max over 4 verified sets
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.9);
  EXPECT_FALSE(s.contains("status_by_target"));
  // sizes that differ: which is the majority needs the trace
  EvsetsRun m = minimal_sets({16, 16, 16, 17});
  m.trace = false;
  const json t = l2_sets_section(evsets_data(m), json::object());
  EXPECT_TRUE(t["ways"].is_null());
  EXPECT_NE(reason(t, "ways").find("16 to 17 lines"), std::string::npos) << reason(t, "ways");
  // too few: the reason says the trace would tell which failed
  EvsetsRun f = minimal_sets({16, 16, 30, 30});
  f.status[2] = f.status[3] = "budget";
  f.trace = false;
  const json u = l2_sets_section(evsets_data(f), json::object());
  EXPECT_NE(reason(u, "ways").find("only 2 of 4"), std::string::npos) << reason(u, "ways");
}

// The H100's case: minimal sets of 11 to 16 lines, the cyclic reads of two targets' classes step at
// k = 17 in both orders.
TEST(L2Sets, CyclicReadsDecideTheWays) {
  EvsetsRun r = minimal_sets({11, 13, 14, 15, 16});
  r.sweeps[0] = {sweep(step_at(16)), sweep(step_at(16))};
  r.sweeps[2] = {sweep(step_at(16)), sweep(step_at(16))};
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(s["ways"], 16) << s.dump(1);
  EXPECT_EQ(s["ways_from"], "cyclic reads");
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.9);
  EXPECT_EQ(s["minimal_set_sizes"], json({11, 13, 14, 15, 16}));  // kept as evidence
  EXPECT_FALSE(s["minimal_sets_match_ways"].get<bool>());
  EXPECT_EQ(s["sets"], 25600);
  EXPECT_DOUBLE_EQ(confidence(s, "sets"), 0.9);
  const std::string note = s["provenance"]["ways"].value("note", std::string());
  EXPECT_NE(note.find("4 of 4 sweeps first miss at k = 17"), std::string::npos) << note;
  EXPECT_NE(note.find("(a load misses above 525 cycles, 1.5 x the slowest one-line hit of 350): target 0 forward: ways 16"), std::string::npos) << note;
  EXPECT_NE(note.find("the minimal-set rule (evidence only beside sweeps): the verified minimal sets disagree"), std::string::npos)
      << note;
  const json& c = s["cyclic_reads"];
  EXPECT_EQ(c["cycle_rounds"], 8);
  EXPECT_EQ(c["hit_cycles_k1_max"], 350);
  EXPECT_DOUBLE_EQ(c["miss_threshold_cycles"].get<double>(), 525);
  ASSERT_EQ(c["sweeps"].size(), 4u);
  const json& w = c["sweeps"][1];
  EXPECT_EQ(w["target"], 0);
  EXPECT_EQ(w["order"], "reverse");
  EXPECT_EQ(w["class_lines"].size(), 24u);
  EXPECT_EQ(w["class_lines"][0], 2000000);
  EXPECT_EQ(w["class_tests"], 200);
  EXPECT_EQ(w["misses_by_k"].size(), 24u);
  EXPECT_EQ(w["misses_by_k"][15], 0);  // k = 16
  EXPECT_EQ(w["misses_by_k"][16], 1);  // k = 17
  EXPECT_EQ(w["misses_by_k"][23], 8);  // k = 24
  EXPECT_EQ(w["step_k"], 17);
  EXPECT_EQ(w["ways"], 16);
  EXPECT_FALSE(w.contains("reason"));
  EXPECT_EQ(c["sweeps"][2]["target"], 2);
  EXPECT_EQ(c["sweeps"][2]["order"], "forward");
  // the minimal sets agree with the sweeps
  EvsetsRun a = minimal_sets({16, 16, 16, 17});
  a.sweeps[1] = {sweep(step_at(16)), sweep(step_at(16))};
  const json t = l2_sets_section(evsets_data(a), json::object());
  EXPECT_EQ(t["ways"], 16) << t.dump(1);
  EXPECT_TRUE(t["minimal_sets_match_ways"].get<bool>());
  EXPECT_DOUBLE_EQ(confidence(t, "ways"), 0.9);  // the sweeps' confidence, not the minimal sets' 0.7
  // the sweeps override the minimal sets, also where too few were verified
  EvsetsRun b = minimal_sets({14, 18, 900, 900});
  b.status[2] = b.status[3] = "budget";
  b.sweeps[0] = {sweep(step_at(16)), sweep(step_at(16))};
  const json u = l2_sets_section(evsets_data(b), json::object());
  EXPECT_EQ(u["ways"], 16) << u.dump(1);
  EXPECT_FALSE(u["minimal_sets_match_ways"].get<bool>());
  EXPECT_NE(u["provenance"]["ways"].value("note", std::string()).find("only 2 of 4 targets"), std::string::npos);
}

TEST(L2Sets, WithoutSweepsTheMinimalSetsDecide) {
  const json s = l2_sets_section(evsets_data(minimal_sets({16, 16, 16, 16})), json::object());
  EXPECT_EQ(s["ways_from"], "minimal sets");
  EXPECT_FALSE(s.contains("cyclic_reads"));
  EXPECT_FALSE(s.contains("minimal_sets_match_ways"));
  EXPECT_EQ(s["ways"], 16);
}

TEST(L2Sets, CyclicReadsThatDisagreeStayNull) {
  EvsetsRun r = minimal_sets({16, 16, 16, 16});
  r.sweeps[0] = {sweep(step_at(16)), sweep(step_at(16))};
  r.sweeps[1] = {sweep(step_at(17)), sweep(step_at(17))};
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_TRUE(s["ways"].is_null()) << s.dump(1);
  EXPECT_EQ(s["ways_from"], "cyclic reads");
  const std::string why = reason(s, "ways");
  EXPECT_NE(why.find("the cyclic-read sweeps disagree"), std::string::npos) << why;
  EXPECT_NE(why.find("target 0 forward: ways 16 (step at k = 17)"), std::string::npos) << why;
  EXPECT_NE(why.find("target 1 reverse: ways 17 (step at k = 18)"), std::string::npos) << why;
  // the minimal sets say 16 but never override the sweeps
  EXPECT_NE(why.find("the minimal-set rule (evidence only beside sweeps): the smallest verified minimal eviction set, 16"),
            std::string::npos) << why;
  EXPECT_FALSE(s["minimal_sets_match_ways"].get<bool>());
  EXPECT_TRUE(s["sets"].is_null());
  EXPECT_EQ(reason(s, "sets"), "needs the ways");
  // one sweep with a step is not enough
  EvsetsRun one = minimal_sets({16, 16, 16, 16});
  one.sweeps[0] = {sweep(step_at(16)), sweep(std::vector<int>(24, 0))};
  const json o = l2_sets_section(evsets_data(one), json::object());
  EXPECT_TRUE(o["ways"].is_null()) << o.dump(1);
  EXPECT_NE(reason(o, "ways").find("only 1 of 2 cyclic-read sweeps shows a clean step, 2 that agree needed"), std::string::npos)
      << reason(o, "ways");
}

TEST(L2Sets, ASweepWithoutAMissLowersTheConfidence) {
  EvsetsRun r = minimal_sets({11, 13, 14, 15, 16});
  r.sweeps[0] = {sweep(std::vector<int>(24, 0)), sweep(step_at(16))};
  r.sweeps[1] = {sweep(step_at(16)), sweep(step_at(16))};
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(s["ways"], 16) << s.dump(1);
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.8);
  EXPECT_DOUBLE_EQ(confidence(s, "sets"), 0.8);
  const json& w = s["cyclic_reads"]["sweeps"][0];
  EXPECT_EQ(w["order"], "forward");
  EXPECT_TRUE(w["step_k"].is_null());
  EXPECT_TRUE(w["ways"].is_null());
  EXPECT_EQ(w["reason"], "no load missed up to k = 24: more than 23 ways or the class is not one set");
  EXPECT_EQ(w["misses_by_k"], json(std::vector<int>(24, 0)));
  EXPECT_NE(s["provenance"]["ways"].value("note", std::string()).find("3 of 4 sweeps first miss at k = 17"), std::string::npos);
}

TEST(L2Sets, ASweepWithoutACleanStep) {
  std::vector<int> m = step_at(16);
  m[17] = 0;  // k = 17 misses, k = 18 does not
  EvsetsRun r = minimal_sets({16, 16, 16});
  r.sweeps[0] = {sweep(m), sweep(step_at(16))};
  r.sweeps[1] = {sweep(step_at(16)), sweep(step_at(16))};
  const json s = l2_sets_section(evsets_data(r), json::object());
  const json& w = s["cyclic_reads"]["sweeps"][0];
  EXPECT_EQ(w["step_k"], 17) << w.dump();
  EXPECT_TRUE(w["ways"].is_null());
  EXPECT_EQ(w["reason"], "k = 17 misses, k = 18 does not: no clean step");
  EXPECT_EQ(s["ways"], 16);  // the other three agree
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.8);
  // alone with one clean sweep: no decision, the reason names both
  EvsetsRun t = minimal_sets({16, 16, 16});
  t.sweeps[0] = {sweep(m), sweep(step_at(16))};
  const std::string why = reason(l2_sets_section(evsets_data(t), json::object()), "ways");
  EXPECT_NE(why.find("target 0 forward: no ways (k = 17 misses, k = 18 does not: no clean step)"), std::string::npos) << why;
  EXPECT_NE(why.find("target 0 reverse: ways 16 (step at k = 17)"), std::string::npos) << why;
}

TEST(L2Sets, MissThresholdFromTheOneLineHits) {
  // hits of 1000 cycles, misses of 1600: a threshold from the H100's hits would call every load a
  // miss; 1.5 x the k = 1 hit puts it at 1500
  EvsetsRun r = minimal_sets({16, 16, 16});
  r.sweeps[0] = {sweep(step_at(20), 1000, 1600), sweep(step_at(20), 1000, 1600)};
  r.sweeps[1] = {sweep(step_at(20), 1000, 1600), sweep(step_at(20), 1000, 1600)};
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(s["ways"], 20) << s.dump(1);
  EXPECT_EQ(s["cyclic_reads"]["hit_cycles_k1_max"], 1000);
  EXPECT_DOUBLE_EQ(s["cyclic_reads"]["miss_threshold_cycles"].get<double>(), 1500);
  EXPECT_EQ(s["cyclic_reads"]["sweeps"][3]["step_k"], 21);
  EXPECT_FALSE(s["minimal_sets_match_ways"].get<bool>());
  EXPECT_EQ(s["sets"], 20480);  // 50 MiB / (20 x 128 B)
  // the slowest k = 1 value of any sweep sets it: one at 1100 moves the threshold to 1650, above the
  // 1600-cycle misses
  r.sweeps[1].second = "1100;" + sweep(step_at(20), 1000, 1600).substr(5);
  const json t = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(t["cyclic_reads"]["hit_cycles_k1_max"], 1100);
  EXPECT_TRUE(t["ways"].is_null()) << t.dump(1);
  EXPECT_NE(reason(t, "ways").find("no cyclic-read sweep shows a clean step (a load misses above 1650 cycles"), std::string::npos)
      << reason(t, "ways");
}

TEST(L2Sets, SweepsThatDoNotRead) {
  // an empty class and a list that is not k numbers in group k: the minimal sets decide where no
  // sweep has a k = 1 group
  EvsetsRun r = minimal_sets({16, 16, 16});
  r.meta = {{"class_1", ""}, {"cycles_forward_1", ""}, {"class_2", "5,6"}, {"cycles_reverse_2", "350;350"}};
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(s["ways_from"], "minimal sets") << s.dump(1);
  EXPECT_EQ(s["ways"], 16);
  EXPECT_FALSE(s.contains("minimal_sets_match_ways"));
  const json& c = s["cyclic_reads"];
  EXPECT_TRUE(c["hit_cycles_k1_max"].is_null());
  EXPECT_TRUE(c["miss_threshold_cycles"].is_null());
  ASSERT_EQ(c["sweeps"].size(), 2u);
  EXPECT_EQ(c["sweeps"][0]["reason"], "the class is empty: no line of the pool took the place of one of the set's lines");
  EXPECT_NE(c["sweeps"][1]["reason"].get<std::string>().find("cycles_reverse_2 does not hold k numbers in group k (group 2: '350')"),
            std::string::npos) << c["sweeps"][1].dump();
  // a sweep that does not read beside ones that do: it counts as one without ways
  EvsetsRun m = minimal_sets({16, 16, 16});
  m.sweeps[0] = {sweep(step_at(16)), sweep(step_at(16))};
  m.meta = {{"class_2", "5,6"}, {"cycles_forward_2", "350;x,350"}};
  const json t = l2_sets_section(evsets_data(m), json::object());
  EXPECT_EQ(t["ways"], 16) << t.dump(1);
  EXPECT_DOUBLE_EQ(confidence(t, "ways"), 0.8);
  EXPECT_NE(t["cyclic_reads"]["sweeps"][2]["reason"].get<std::string>().find("the sweep does not read"), std::string::npos);
}

TEST(L2Sets, ReportSection) {
  json t = {{"l2_sets", l2_sets_section(evsets_data(minimal_sets({16, 16, 16, 17})), json::object())}};
  const std::string md = render_sm_resources_markdown(t);
  EXPECT_NE(md.find("## L2 sets (eviction sets)"), std::string::npos) << md;
  EXPECT_NE(md.find("| ways (the smallest verified minimal eviction set) | 16 (confidence 0.70) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| sets (L2 bytes / (ways × line)) | 25600 (confidence 0.70) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| sets per slice (sets / l2_slices.slices) | not determined — needs the total slice count"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| targets with a verified minimal set | 4 of 4 |"), std::string::npos) << md;
  EvsetsRun r = minimal_sets({16, 16, 512, 40});
  r.status[2] = "budget", r.status[3] = "no_eviction";
  t["l2_sets"] = l2_sets_section(evsets_data(r), json::object());
  const std::string m2 = render_sm_resources_markdown(t);
  EXPECT_NE(m2.find("| ways (the smallest verified minimal eviction set) | not determined — only 2 of 4"), std::string::npos) << m2;
  EXPECT_NE(m2.find("| targets without one | target 2: budget, target 3: no_eviction |"), std::string::npos) << m2;
  EXPECT_EQ(m2.find("| cyclic-read sweeps"), std::string::npos) << m2;
  // ways from the cyclic reads
  EvsetsRun c = minimal_sets({11, 13, 16});
  c.sweeps[0] = {sweep(std::vector<int>(24, 0)), sweep(step_at(16))};
  c.sweeps[1] = {sweep(step_at(16)), sweep(step_at(16))};
  t["l2_sets"] = l2_sets_section(evsets_data(c), json::object());
  const std::string m3 = render_sm_resources_markdown(t);
  EXPECT_NE(m3.find("| ways (cyclic reads: the last k lines of a class that hit) | 16 (confidence 0.80) |"), std::string::npos) << m3;
  EXPECT_NE(m3.find("| the minimal-set rule gives the same ways | no |"), std::string::npos) << m3;
  EXPECT_NE(m3.find("| cyclic-read sweeps (ways each; a miss above 525 cycles) | target 0 forward: none, target 0 reverse: 16, "
                    "target 1 forward: 16, target 1 reverse: 16 |"),
            std::string::npos) << m3;
}

TEST(L2Sets, FamilyIsReadAndWaysAndSetsAreStructure) {
  for (const auto& w : unknown_family_warnings({test_support::bench_run({test_support::bench_entry(kName, {})}, {})}))
    ADD_FAILURE() << w;
  EXPECT_EQ(topology_class("l2_sets.ways"), FieldClass::structural);
  EXPECT_EQ(topology_class("l2_sets.sets"), FieldClass::structural);
  EXPECT_EQ(topology_class("l2_sets.sets_per_slice"), FieldClass::structural);
  EXPECT_EQ(topology_class("l2_sets.tests_by_target"), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("l2_sets.provenance.ways.confidence"), FieldClass::bookkeeping);
  // the sweeps behind the ways: a sweep's own ways or class lines are no structure of their own
  EXPECT_EQ(topology_class("l2_sets.cyclic_reads.sweeps.0.ways"), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("l2_sets.cyclic_reads.sweeps.1.class_lines.3"), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("l2_sets.cyclic_reads.miss_threshold_cycles"), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("l2_sets.minimal_sets_match_ways"), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("l2_sets.ways_from", true), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("l2_sets.replacement", true), FieldClass::structural);
  EXPECT_EQ(topology_class("l2_sets.policy_sequences.miss_threshold_cycles"), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("l2_sets.policy_sequences.slower_l2_answers"), FieldClass::bookkeeping);
}

namespace {

// A leave-one-out header value over s lines: group i holds s - 1 loads; a group of a line in
// `outside` keeps one miss (its absence leaves the overflow), the others hit.
std::string loo(std::size_t s, const std::vector<std::size_t>& outside, std::uint64_t hit = 350, std::uint64_t miss = 800) {
  std::string v;
  for (std::size_t i = 0; i < s; ++i) {
    if (i) v += ";";
    const bool out = std::find(outside.begin(), outside.end(), i) != outside.end();
    for (std::size_t j = 0; j + 1 < s; ++j) v += (j ? "," : "") + std::to_string(out && j == 0 ? miss : hit + j % 5);
  }
  return v;
}

void add_loo(EvsetsRun& r, int k, std::size_t s, const std::vector<std::size_t>& outside, const char* order = "reverse",
             std::uint64_t hit = 350, std::uint64_t miss = 800) {
  const std::string key = std::to_string(k);
  r.meta["leave_one_out_" + key] = loo(s, outside, hit, miss);
  r.meta["leave_one_out_lines_" + key] = std::to_string(s);
  r.meta["leave_one_out_order_" + key] = order;
}

}  // namespace

// The H100's case: sweeps stepping late by lines outside the set (forward 20), the leave-one-out
// checks counting 17 of the set's lines among the first s: 16 ways.
TEST(L2Sets, LeaveOneOutDecidesTheWays) {
  EvsetsRun r = minimal_sets({17, 11, 13});
  r.sweeps[0] = {sweep(step_at(19)), sweep(step_at(16))};
  r.sweeps[1] = {sweep(step_at(18)), sweep(step_at(20))};
  r.sweeps[2] = {sweep(step_at(16)), sweep(step_at(16))};
  add_loo(r, 0, 17, {});
  add_loo(r, 1, 19, {3, 12}, "forward");
  add_loo(r, 2, 17, {});
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(s["ways"], 16) << s.dump(1);
  EXPECT_EQ(s["ways_from"], "leave-one-out");
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.9);
  EXPECT_EQ(s["sets"], 25600);
  const json& l = s["cyclic_reads"]["leave_one_out"];
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(l[1]["members"], 17);
  EXPECT_EQ(l[1]["outside"], json({3, 12}));
  EXPECT_EQ(l[1]["ways"], 16);
  EXPECT_EQ(l[1]["sweep_step_k"], 19);
  EXPECT_FALSE(l[0].contains("note")) << l[0].dump();  // s is each sweep's first miss here too
  EXPECT_FALSE(s["minimal_sets_match_ways"].get<bool>());
}

// Every line of the first 17 a member in all 3 checks, while a forward sweep steps only at 20.
TEST(L2Sets, LeaveOneOutWithEveryLineAMember) {
  EvsetsRun r = minimal_sets({16, 16, 16});
  for (int k = 0; k < 3; ++k) r.sweeps[k] = {sweep(step_at(k == 1 ? 19 : 16)), sweep(step_at(16))};
  for (int k = 0; k < 3; ++k) add_loo(r, k, 17, {});
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(s["ways"], 16) << s.dump(1);
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.9);
  EXPECT_EQ(s["cyclic_reads"]["sweeps"][2]["ways"], 19);  // a bound only
  for (const auto& c : s["cyclic_reads"]["leave_one_out"]) EXPECT_EQ(c["outside"], json::array());
}

// 2 of 3 class targets have a check (the third's sweeps never missed): 0.8.
TEST(L2Sets, LeaveOneOutFromTwoOfThreeClassTargets) {
  EvsetsRun r = minimal_sets({16, 16, 16});
  r.sweeps[0] = {sweep(step_at(16)), sweep(step_at(16))};
  r.sweeps[1] = {sweep(step_at(17)), sweep(step_at(16))};
  r.sweeps[2] = {sweep(std::vector<int>(20, 0)), sweep(std::vector<int>(20, 0))};
  add_loo(r, 0, 17, {}, "forward");
  add_loo(r, 1, 17, {});
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(s["ways"], 16) << s.dump(1);
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.8);
}

// The producer picks s by the target's own sweeps' k = 1 hits; the analyzer's threshold is over
// every sweep. Target 1's slower hits (560: threshold 840) make target 0's 800-cycle loads hits
// here: its check (no absence misses) shows no overflow and gives nothing, with the note; target
// 2's check whose absences miss at 900 still counts, noted.
TEST(L2Sets, LeaveOneOutUsesTheAnalyzersThreshold) {
  EvsetsRun r = minimal_sets({16, 16, 16});
  r.sweeps[0] = {sweep(step_at(16)), sweep(step_at(16))};
  r.sweeps[1] = {sweep(step_at(16), 560, 1300), sweep(step_at(16), 560, 1300)};
  r.sweeps[2] = {sweep(step_at(17), 350, 800), sweep(step_at(17), 350, 800)};
  add_loo(r, 0, 17, {});
  add_loo(r, 1, 17, {}, "reverse", 560, 1300);
  add_loo(r, 2, 18, {4}, "forward", 350, 900);
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(s["ways"], 16) << s.dump(1);
  const json& l = s["cyclic_reads"]["leave_one_out"];
  ASSERT_EQ(l.size(), 3u);
  EXPECT_TRUE(l[0]["ways"].is_null());
  EXPECT_NE(l[0].value("reason", std::string()).find("nothing shows that they overflow"), std::string::npos) << l[0].dump();
  EXPECT_NE(l[0].value("note", std::string()).find("is not the reverse sweep's first miss under this analyzer's threshold (none)"),
            std::string::npos)
      << l[0].dump();
  EXPECT_FALSE(l[1].contains("note"));
  EXPECT_EQ(l[2]["ways"], 16);
  EXPECT_TRUE(l[2]["sweep_step_k"].is_null());
  EXPECT_TRUE(l[2].contains("note"));
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.8);  // 2 checks of 3 class targets
  EXPECT_NE(s["provenance"]["ways"].value("note", std::string()).find("is not the reverse sweep's first miss"), std::string::npos);
}

TEST(L2Sets, LeaveOneOutChecksThatDisagreeStayNull) {
  EvsetsRun r = minimal_sets({16, 16, 16});
  r.sweeps[0] = {sweep(step_at(16)), sweep(step_at(16))};
  r.sweeps[1] = {sweep(step_at(17)), sweep(step_at(17))};
  add_loo(r, 0, 17, {});
  add_loo(r, 1, 18, {});
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_TRUE(s["ways"].is_null());
  EXPECT_NE(reason(s, "ways").find("the leave-one-out checks disagree"), std::string::npos) << reason(s, "ways");
  EXPECT_TRUE(s["sets"].is_null());
}

// A sweep can step late, never early: one that steps after 14 lines contradicts 16 ways.
TEST(L2Sets, ASweepBelowTheLeaveOneOutWaysContradicts) {
  EvsetsRun r = minimal_sets({16, 16, 16});
  r.sweeps[0] = {sweep(step_at(16)), sweep(step_at(14))};
  r.sweeps[1] = {sweep(step_at(16)), sweep(step_at(16))};
  add_loo(r, 0, 17, {});
  add_loo(r, 1, 17, {});
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_TRUE(s["ways"].is_null());
  EXPECT_NE(reason(s, "ways").find("steps after 14 lines, fewer than the 16 ways"), std::string::npos) << reason(s, "ways");
}

TEST(L2Sets, OneLeaveOneOutCheckIsLessSure) {
  EvsetsRun r = minimal_sets({16, 14, 12});
  r.sweeps[0] = {sweep(step_at(16)), sweep(step_at(16))};
  add_loo(r, 0, 17, {});
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(s["ways"], 16) << s.dump(1);
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.6);
  EXPECT_NE(s["provenance"]["ways"].value("note", std::string()).find("only 1 check gives the ways"), std::string::npos);
}

TEST(L2Sets, ALeaveOneOutWithoutTwoOfTheSetsLines) {
  EvsetsRun r = minimal_sets({16, 16, 16});
  r.sweeps[0] = {sweep(step_at(16)), sweep(step_at(16))};
  r.sweeps[1] = {sweep(step_at(16)), sweep(step_at(16))};
  add_loo(r, 0, 17, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  add_loo(r, 1, 17, {});
  r.meta["leave_one_out_2"] = "1,2;3";  // no lines count: does not read
  const json s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(s["ways"], 16) << s.dump(1);
  const json& l = s["cyclic_reads"]["leave_one_out"];
  EXPECT_NE(l[0].value("reason", std::string()).find("fewer than 2 of the 17 lines"), std::string::npos) << l.dump();
  EXPECT_DOUBLE_EQ(confidence(s, "ways"), 0.6);
}

// ---- The L2's policy from the policy sequences (analysis/l2/l2_policy.hpp; issue 20 item 3) ----

namespace {

// Sequences as the plan writes them (common/l2_evset_sequences.hpp), as line indices.
std::vector<std::vector<std::uint64_t>> policy_sequences(std::uint32_t ways, int count, std::uint64_t seed) {
  std::vector<std::vector<std::uint64_t>> out;
  for (const auto& q : evset_policy_sequences(ways, count, seed)) out.emplace_back(q.begin(), q.end());
  return out;
}

// A run whose leave-one-out checks give `ways` ways (hits 350 cycles, misses 800: threshold 525),
// with the policy sequences of target 0 simulated in one set of the whole-L2 model under `policy`
// (`sim_ways`: the set's ways in the model; 0: `ways`). `tweak` may change the cycles first.
EvsetsRun policy_run(const std::string& policy, std::uint32_t ways, std::uint32_t sim_ways = 0,
                     const std::function<void(std::vector<std::vector<std::uint64_t>>&,
                                              const std::vector<std::vector<std::uint64_t>>&)>& tweak = {}) {
  EvsetsRun r = minimal_sets({ways, ways, ways});
  for (int k = 0; k < 3; ++k) {
    r.sweeps[k] = {sweep(step_at(static_cast<int>(ways))), sweep(step_at(static_cast<int>(ways)))};
    add_loo(r, k, ways + 1, {});
  }
  r.context["l2_cache_bytes"] = std::to_string(static_cast<std::uint64_t>(ways) * 128 * 25600);
  sim::L2EvsetsModel m;
  m.present = true;
  m.ways = sim_ways ? sim_ways : ways;
  m.sets = 64;
  m.policy = policy;
  m.hit_cycles = 350;
  m.miss_cycles = 800;
  std::vector<std::uint64_t> lines;  // ways + 1 lines of set 5 (modulo index)
  for (std::uint64_t i = 0; i <= ways; ++i) lines.push_back(5 + 64 * (i + 1));
  const auto seqs = policy_sequences(ways, 48, 99);
  std::vector<std::vector<std::uint64_t>> as_lines;
  for (const auto& q : seqs) {
    as_lines.emplace_back();
    for (auto i : q) as_lines.back().push_back(lines[i]);
  }
  std::vector<std::vector<std::uint64_t>> cycles;
  for (const auto& c : sim::evset_sequences(m, as_lines, 1)) cycles.emplace_back(c.begin(), c.end());
  if (tweak) tweak(cycles, seqs);
  r.meta["policy_lines_0"] = evset_join_groups(std::vector<std::vector<std::uint64_t>>{lines});
  r.meta["policy_sequences_0"] = evset_join_groups(seqs);
  r.meta["policy_cycles_0"] = evset_join_groups(cycles);
  return r;
}

bool names(const json& v, const std::string& p) {
  if (v.is_string()) return v == p;
  return v.is_array() && std::find(v.begin(), v.end(), json(p)) != v.end();
}

}  // namespace

// Known policies with 16 and 8 ways: the named policy, or the class that holds it, or the list
// where the sequences leave several classes; never "none" and never a list without it.
TEST(L2Policy, SequencesFromAnEmptySetNameTheSimulatedPolicy) {
  for (std::uint32_t w : {16u, 8u})
    for (const std::string p : {"lru", "fifo", "plru", "srrip", "qlru_h11_m1_r0_u0", "qlru_h21_m2_r0_u0_umo", "bit_plru", "nru",
                                "slru", "slru_p1"}) {
      const json s = l2_sets_section(evsets_data(policy_run(p, w)), json::object());
      ASSERT_EQ(s["ways"], w);
      ASSERT_TRUE(s.contains("replacement")) << s.dump(1);
      const json& v = s["replacement"];
      const json members = s["replacement_consistent"]["class_members"];
      bool in_class = names(v, p);
      for (const auto& c : members) in_class = in_class || names(c, p);
      EXPECT_TRUE(in_class) << p << " " << w << ": " << v.dump() << " " << s["provenance"]["replacement"].dump();
      EXPECT_EQ(s["policy_sequences"]["miss_threshold_cycles"], 575);  // between the hits (350) and DRAM (800)
      EXPECT_EQ(s["policy_sequences"]["slower_l2_answers"], 0);
      EXPECT_DOUBLE_EQ(s["policy_sequences"]["spurious_misses_per_access"].get<double>(), 0.0);
    }
}

// LRU's class is LRU alone with 16 ways (the sequences tell it from FIFO, the PLRUs, the QLRUs and
// segmented LRU with one protected line, which only the protection sequences separate from it).
TEST(L2Policy, LruIsOneClass) {
  const json s = l2_sets_section(evsets_data(policy_run("lru", 16)), json::object());
  EXPECT_EQ(s["replacement"], "lru") << s["provenance"]["replacement"].dump() << s["replacement_consistent"].dump();
  EXPECT_DOUBLE_EQ(s["provenance"]["replacement"]["confidence"].get<double>(), 0.85);
  EXPECT_EQ(s["replacement_gpgpusim"]["nearest"], "lru");
  const json p1 = l2_sets_section(evsets_data(policy_run("slru_p1", 16)), json::object());
  EXPECT_EQ(p1["replacement"], "slru_p1") << p1["replacement_consistent"].dump();
}

// Random replacement: random is consistent, no deterministic candidate is.
TEST(L2Policy, RandomIsRandom) {
  const json s = l2_sets_section(evsets_data(policy_run("random", 16)), json::object());
  EXPECT_TRUE(names(s["replacement"], "random")) << s["replacement"].dump() << s["provenance"]["replacement"].dump();
  EXPECT_EQ(s["replacement_consistent"]["classes"], 1);
}

// A 12-way LRU set measured as 16 ways (a wrong way count): no candidate with 16 ways predicts the
// records, so no policy is named.
TEST(L2Policy, AWrongWayCountNamesNone) {
  const json s = l2_sets_section(evsets_data(policy_run("lru", 16, 12)), json::object());
  EXPECT_EQ(s["replacement"], "none of the known policies") << s["replacement"].dump();
  EXPECT_TRUE(s.contains("hit_probability_by_age"));
}

// A first access after the discard as fast as a hit: the set was not empty, no model applies: null.
TEST(L2Policy, AResetThatLeftALineStaysNull) {
  const json s = l2_sets_section(evsets_data(policy_run("lru", 16, 0, [](auto& c, auto&) { c[3][0] = 350; })), json::object());
  EXPECT_TRUE(s["replacement"].is_null());
  EXPECT_NE(reason(s, "replacement").find("(350 cycles) is not above the slowest repeated access (350"), std::string::npos)
      << reason(s, "replacement");
  EXPECT_NE(reason(s, "replacement").find("did not leave the set empty"), std::string::npos);
}

// The H100's three classes: hits of ~275 cycles, DRAM from ~525, and ~450 for some lines the set
// had evicted (a copy elsewhere in the L2): the threshold lies in the gap above the hits, so the
// slower answers are misses of the set (LRU fits), counted apart.
TEST(L2Policy, SlowerL2AnswersAreMissesOfTheSet) {
  int slower = 0;
  const json s = l2_sets_section(evsets_data(policy_run("lru", 16, 0, [&](auto& c, auto& seqs) {
                                   for (std::size_t q = 0; q < c.size(); ++q)
                                     for (std::size_t p = 0; p < c[q].size(); ++p) {
                                       const bool seen = std::find(seqs[q].begin(), seqs[q].begin() + p, seqs[q][p]) !=
                                                         seqs[q].begin() + p;
                                       const bool refill = c[q][p] == 800 && seen && (p + q) % 2 == 0;
                                       c[q][p] = c[q][p] == 350 ? 275 : refill ? 450 : 527 + p % 40;
                                       slower += refill;
                                     }
                                 })),
                                 json::object());
  ASSERT_GT(slower, 0);
  EXPECT_EQ(s["replacement"], "lru") << s["replacement"].dump() << s["policy_sequences"].dump();
  const double t = s["policy_sequences"]["miss_threshold_cycles"].get<double>();
  EXPECT_GT(t, 275);
  EXPECT_LT(t, 450);
  EXPECT_EQ(s["policy_sequences"]["slower_l2_answers"], slower);
}

// Spurious slow hits in one of the two runs of a sequence: the noise the runs' differences show
// lets LRU through; the same misses in both runs of every sequence are no noise.
TEST(L2Policy, NoiseFromTheRepeatedRuns) {
  const json s = l2_sets_section(evsets_data(policy_run("lru", 16, 0, [](auto& c, auto&) { c[2][40] = 800; c[7][30] = 800; })),
                                 json::object());
  EXPECT_GT(s["policy_sequences"]["spurious_misses_per_access"].get<double>(), 0);
  EXPECT_TRUE(names(s["replacement"], "lru")) << s["replacement"].dump();
}

// No ways, no sequences, broken lists: null with the reason.
TEST(L2Policy, WhatItNeeds) {
  EvsetsRun r = policy_run("lru", 16);
  EXPECT_EQ(reason(l2_sets_section(evsets_data(minimal_sets({16, 16, 16})), json::object()), "replacement").substr(0, 40),
            std::string("the trace holds no policy sequences (the").substr(0, 40));
  EvsetsRun bad = r;
  bad.meta["policy_cycles_0"] = "1,2,3";
  const json b = l2_sets_section(evsets_data(bad), json::object());
  EXPECT_TRUE(b["replacement"].is_null());
  EXPECT_NE(b["policy_sequences"]["runs"][0].value("error", std::string()).find("one number per access"), std::string::npos);
  EvsetsRun disagree = r;
  add_loo(disagree, 1, 19, {});  // 19 members: ways 18 against 16: the ways stay null
  const json d = l2_sets_section(evsets_data(disagree), json::object());
  EXPECT_TRUE(d["ways"].is_null());
  EXPECT_EQ(reason(d, "replacement"), "needs the ways");
}

// The index within a slice: 320 sets a slice (the H100's) is no power of two, so no GF(2) matrix
// maps address bits onto them; 256 would be one, and the eviction sets do not give the matrix.
TEST(L2Sets, IndexWithinASlice) {
  auto with_slices = [](double slices) {
    return json{{"l2_slices", {{"slices", slices}, {"provenance", {{"slices", {{"confidence", 0.8}}}}}}}};
  };
  EvsetsRun r = minimal_sets({16, 16, 16});
  json s = l2_sets_section(evsets_data(r), with_slices(80));
  ASSERT_EQ(s["sets_per_slice"], 320);
  EXPECT_EQ(s["index_within_slice"], "not linear over GF(2)");
  EXPECT_NE(s["provenance"]["index_within_slice"]["note"].get<std::string>().find("320 sets per slice is not a power of two"),
            std::string::npos);
  s = l2_sets_section(evsets_data(r), with_slices(100));
  ASSERT_EQ(s["sets_per_slice"], 256);
  EXPECT_TRUE(s["index_within_slice"].is_null());
  EXPECT_NE(reason(s, "index_within_slice").find("256 sets per slice is a power of two"), std::string::npos);
  s = l2_sets_section(evsets_data(r), json::object());
  EXPECT_EQ(reason(s, "index_within_slice"), "needs the sets per slice");
}
