// The L2's ways and sets from minimal eviction sets (analysis/memory/l2_evsets.hpp; issue 20 item
// 2) from built l2_evsets entries and their l2_evset traces: the ways where the verified sets agree
// or a strict majority has the smallest size, null with the reason where they disagree, where too
// few were verified or the readout does not work; the sets and the sets per slice, or why not; the
// report's section and the gate's structural fields.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/core/validate.hpp"
#include "analysis/gate/compare.hpp"
#include "analysis/memory/l2_evsets.hpp"
#include "analysis/report/sm_resources.hpp"
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
};

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
}

TEST(L2Sets, FamilyIsReadAndWaysAndSetsAreStructure) {
  for (const auto& w : unknown_family_warnings({test_support::bench_run({test_support::bench_entry(kName, {})}, {})}))
    ADD_FAILURE() << w;
  EXPECT_EQ(topology_class("l2_sets.ways"), FieldClass::structural);
  EXPECT_EQ(topology_class("l2_sets.sets"), FieldClass::structural);
  EXPECT_EQ(topology_class("l2_sets.sets_per_slice"), FieldClass::structural);
  EXPECT_EQ(topology_class("l2_sets.tests_by_target"), FieldClass::bookkeeping);
  EXPECT_EQ(topology_class("l2_sets.provenance.ways.confidence"), FieldClass::bookkeeping);
}
