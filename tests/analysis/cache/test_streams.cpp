// The replacement judged on random streams (analysis/cache/streams): cache_streams entries made here
// by running the contract's trials through whole simulated caches (every set a common/policy model,
// a hashed index, targets and a pool of lines), then read back as bench entries. The analyzer sees
// only the entries and the decided geometry; its Monte-Carlo model of one set is a separate reading.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "analysis/cache/streams.hpp"
#include "analysis/report/topology.hpp"
#include "common/policy.hpp"
#include "tests/analysis/bench_entries.hpp"

using namespace memhier;
using namespace memhier::analysis;

namespace {

constexpr std::uint64_t kLine = 128;

// A cache of `sets` x `ways` lines whose set is a hash of the line (as the H100's L1 index looks to a
// random stream), every set run by the policy model.
class SimCache {
 public:
  SimCache(std::uint32_t sets, std::uint32_t ways, const std::string& pol, std::uint64_t seed)
      : sets_(sets), ways_(ways), tag_(static_cast<std::size_t>(sets) * ways, -1) {
    for (std::uint32_t s = 0; s < sets; ++s) {
      policy::RandomParams rp;
      rp.seed = seed * 7919 + s;
      set_.push_back(policy::make_policy(pol, ways, rp));
    }
  }
  // Hit (true) or miss of line `line` (installed on a miss).
  bool access(std::int64_t line) {
    const std::uint32_t s = static_cast<std::uint32_t>(policy::splitmix64_mix(static_cast<std::uint64_t>(line) ^ 0xabcdefull) % sets_);
    std::int64_t* t = &tag_[static_cast<std::size_t>(s) * ways_];
    for (std::uint32_t w = 0; w < ways_; ++w)
      if (t[w] == line) {
        set_[s]->on_hit(w);
        return true;
      }
    const std::uint32_t v = set_[s]->victim();
    t[v] = line;
    set_[s]->on_fill(v);
    return false;
  }

 private:
  std::uint32_t sets_, ways_;
  std::vector<std::int64_t> tag_;
  std::vector<std::unique_ptr<policy::SetPolicy>> set_;
};

struct Spec {
  std::uint32_t sets = 512, ways = 4;
  std::string policy = "lru";
  std::uint64_t pool_bytes = 64ull << 20;
  std::vector<std::uint64_t> ks = {512, 1024, 2048, 4096};
  std::vector<std::string> variants = {"fresh", "reread1", "reread2", "mid", "two_ages"};
  unsigned trials = 250;
  std::uint64_t seed = 1;
  double fresh_lost = 0;  // variant fresh: this share of targets lost besides the stream (a path's own loss)
};

// The entries of one simulated L1 (one SM: the trials back to back, after a long warm stream).
std::vector<BenchEntry> simulate(const Spec& sp) {
  SimCache c(sp.sets, sp.ways, sp.policy, sp.seed);
  policy::SplitMix64 rng(sp.seed * 1000003);
  const std::uint64_t pool = std::max<std::uint64_t>(1, sp.pool_bytes / kLine);
  std::int64_t next_target = 1ll << 40;  // a region apart from the pool
  auto stream = [&](std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) c.access(static_cast<std::int64_t>(rng.next() % pool));
  };
  stream(std::max<std::uint64_t>(8ull * sp.sets * sp.ways, 4 * pool));  // a long random stream first
  std::vector<BenchEntry> out;
  for (const auto& v : sp.variants)
    for (auto k : sp.ks) {
      double evicted = 0, second = 0, mid_missed = 0;
      for (unsigned t = 0; t < sp.trials; ++t) {
        const std::int64_t T = next_target++;
        c.access(T);
        if (v == "reread1" || v == "reread2") c.access(T);
        if (v == "reread2") c.access(T);
        if (v == "mid") {
          stream(k / 2);
          mid_missed += c.access(T) ? 0 : 1;
          stream(k - k / 2);
          evicted += c.access(T) ? 0 : 1;
        } else if (v == "two_ages") {
          const std::int64_t T2 = next_target++;
          stream(k / 2);
          c.access(T2);
          stream(k - k / 2);
          evicted += c.access(T) ? 0 : 1;
          second += c.access(T2) ? 0 : 1;
        } else {
          stream(k);
          const bool lost = v == "fresh" && sp.fresh_lost > 0 &&  // no draw otherwise: the other tests' streams stay
                            static_cast<double>(rng.next() % 1000000) < sp.fresh_lost * 1e6;
          evicted += c.access(T) && !lost ? 0 : 1;
        }
      }
      std::map<std::string, double> ctr = {{"trials", sp.trials},
                                           {"evicted", evicted},
                                           {"p_evicted", evicted / sp.trials},
                                           {"pool_bytes", static_cast<double>(sp.pool_bytes)},
                                           {"line_bytes", static_cast<double>(kLine)},
                                           {"sms", 1},
                                           {"hit_cycles", 40},
                                           {"miss_cycles", 300},
                                           {"threshold_cycles", 170},
                                           {"carveout", 0}};
      if (v == "two_ages") ctr["evicted_second"] = second;
      if (v == "mid") ctr["mid_missed"] = mid_missed;
      out.push_back(test_support::bench_entry("cache_streams/cache:l1/path:global_ca/variant:" + v +
                                                  "/loads:dep/k:" + std::to_string(k),
                                              ctr));
    }
  return out;
}

Dataset dataset_of(const Spec& sp) {
  return Dataset::from_runs({test_support::bench_run(simulate(sp), {{"device_name", "synthetic"}})});
}

const StreamFit* find(const std::vector<StreamFit>& v, const std::string& p) {
  for (const auto& f : v)
    if (f.policy == p) return &f;
  return nullptr;
}

nlohmann::json cache_json(const Spec& sp, const nlohmann::json& replacement) {
  nlohmann::json c = {{"sets", sp.sets}, {"ways", std::vector<std::uint32_t>(sp.sets, sp.ways)}};
  c["replacement"] = replacement;
  c["provenance"]["replacement"] = {{"confidence", 0.85}, {"evidence", {"cache_sequences/cache:l1"}}};
  return c;
}

}  // namespace

TEST(Streams, PointsFromEntries) {
  Spec sp;
  sp.ks = {256};
  sp.trials = 20;
  const Dataset d = dataset_of(sp);
  std::string note;
  const auto pts = stream_points(d, "l1", 0, &note);
  // one point per variant, plus two_ages' second target and mid's re-read
  ASSERT_EQ(pts.size(), 7u);
  EXPECT_EQ(pts.front().variant, "fresh");
  EXPECT_EQ(pts.front().trials, 20);
  EXPECT_TRUE(note.empty());
  EXPECT_TRUE(stream_points(d, "texture", 0).empty());
}

// The contract's names (loads:dep, loads:indep) pass the input screen, which reads `loads` of other
// families as a count.
TEST(Streams, ContractNamesAreRead) {
  const std::string path = std::string(MEMHIER_BINARY_DIR) + "/test_streams_names.json";
  {
    std::ofstream f(path);
    f << R"({"context": {"memhier_version": "test", "gpu_name": "synthetic"}, "benchmarks": [)";
    const char* names[] = {"cache_streams/cache:l1/path:global_ca/variant:fresh/loads:dep/k:512",
                           "cache_streams/cache:l1/path:global_ca/variant:fresh/loads:indep/k:512"};
    for (int i = 0; i < 2; ++i)
      f << (i ? "," : "") << R"({"name": ")" << names[i] << R"(", "run_name": ")" << names[i]
        << R"(", "run_type": "iteration", "iterations": 1, "real_time": 1, "cpu_time": 1, "time_unit": "us",)"
        << R"( "trials": 100, "evicted": 10, "p_evicted": 0.1, "pool_bytes": 67108864, "line_bytes": 128, "sms": 1,)"
        << R"( "hit_cycles": 33, "miss_cycles": 280, "threshold_cycles": 156, "carveout": 0})";
    f << "]}";
  }
  const Dataset d = Dataset::load({path});
  EXPECT_EQ(stream_points(d, "l1", 0).size(), 2u);
  EXPECT_TRUE(d.warnings().empty());  // a family the analyzer reads
}

TEST(Streams, ChiSquareQuantile) {
  EXPECT_NEAR(chi2_quantile(1, 0.001), 10.83, 0.6);  // Wilson-Hilferty is rough at 1 dof
  EXPECT_NEAR(chi2_quantile(10, 0.001), 29.59, 0.3);
  EXPECT_NEAR(chi2_quantile(40, 0.001), 73.40, 0.3);
}

// Built like the hardware (512 sets x 4 ways): the true policy fits, SLRU (a fresh line gone at the
// second miss of its set) does not.
TEST(Streams, LruLikeTheHardwareFits) {
  Spec sp;
  const Dataset d = dataset_of(sp);
  const auto pts = stream_points(d, "l1", 0);
  const auto t0 = std::chrono::steady_clock::now();
  const auto fits = fit_streams(pts, sp.sets, sp.ways, policy::candidates_in_decision_order(sp.ways), 0);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("fit_streams over %zu candidates, %zu points: %.3f s\n", fits.size(), pts.size(), secs);
  ASSERT_NE(find(fits, "lru"), nullptr);
  if (std::getenv("MEMHIER_DEBUG_STREAMS"))
    for (std::size_t i = 0; i < pts.size(); ++i)
      std::printf("%s %s k=%llu obs %.3f lru %.3f z %.2f\n", pts[i].variant.c_str(), pts[i].measure.c_str(),
                  (unsigned long long)pts[i].k, pts[i].observed / pts[i].trials, find(fits, "lru")->predicted[i],
                  find(fits, "lru")->z[i]);
  EXPECT_TRUE(find(fits, "lru")->fits) << "lru worst z " << find(fits, "lru")->worst_z << " chi2 " << find(fits, "lru")->chi2;
  EXPECT_FALSE(find(fits, "slru")->fits);
  EXPECT_GT(find(fits, "slru")->worst_z, 4);
}

// SLRU 2 of 4: named where the sequences say slru; where they said lru (the streams contradict),
// replacement is null and the reason names the nearest candidates.
TEST(Streams, SlruJoinedWithTheSequences) {
  Spec sp;
  sp.policy = "slru";
  sp.seed = 2;
  const Dataset d = dataset_of(sp);
  if (std::getenv("MEMHIER_DEBUG_STREAMS")) {
    const auto pts = stream_points(d, "l1", 0);
    const auto f = fit_streams(pts, sp.sets, sp.ways, {"slru"}, 0);
    for (std::size_t i = 0; i < pts.size(); ++i)
      std::printf("%s %s k=%llu obs %.3f slru %.3f z %.2f\n", pts[i].variant.c_str(), pts[i].measure.c_str(),
                  (unsigned long long)pts[i].k, pts[i].observed / pts[i].trials, f[0].predicted[i], f[0].z[i]);
  }
  nlohmann::json c = cache_json(sp, "slru");
  judge_streams(c, d, "l1", 0, 0, {true, {"slru"}, "access sequences"});
  EXPECT_EQ(c["replacement"], "slru") << c["streams"]["reason"];
  EXPECT_EQ(c["streams"]["named"], "slru");
  EXPECT_EQ(c["streams"]["sets"], 512);
  EXPECT_EQ(c["streams"]["curves"].size(), 28u);
  EXPECT_TRUE(c["streams"]["curves"][0]["predicted"].contains("slru"));
  // report.md: per variant and loads a table observed vs the named policy, and the verdict
  nlohmann::json t;
  t["schema"] = "memhier-topology/2";
  t["device"] = {{"gpu_name", "test"}};
  t["caches"]["l1"] = c;
  t["caches"]["l1"]["present"] = true;
  const std::string r = render_report(t);
  EXPECT_NE(r.find("Random streams (cache_streams"), std::string::npos) << r;
  EXPECT_NE(r.find("Observed / predicted by slru per k; 250 trials a point."), std::string::npos) << r;
  EXPECT_NE(r.find("| k | fresh, dep |"), std::string::npos) << r;
  EXPECT_NE(r.find("| 1024 | "), std::string::npos) << r;
  EXPECT_NE(r.find("- Streams verdict: named \"slru\""), std::string::npos) << r;
  nlohmann::json wrong = cache_json(sp, "lru");
  judge_streams(wrong, d, "l1", 0, 0, {true, {"lru"}, "access sequences"});
  EXPECT_TRUE(wrong["replacement"].is_null());
  EXPECT_TRUE(wrong["streams"]["named"].is_null());
  const std::string why = wrong["provenance"]["replacement"]["reason"];
  EXPECT_NE(why.find("does not predict the streams"), std::string::npos) << why;
  EXPECT_NE(why.find("slru"), std::string::npos) << why;  // the nearest, with its misses
  bool slru_listed = false;
  for (const auto& k : wrong["streams"]["candidates"])
    if (k["policy"] == "slru") {
      slru_listed = true;
      EXPECT_TRUE(k["fits_streams"].get<bool>());
      EXPECT_FALSE(k["fits_sequences"].get<bool>());
    }
  EXPECT_TRUE(slru_listed);
  // No sequence verdict: the streams report, the replacement is left alone.
  nlohmann::json open = cache_json(sp, nullptr);
  judge_streams(open, d, "l1", 0, 0, {});
  EXPECT_TRUE(open["replacement"].is_null());
  EXPECT_TRUE(open["streams"]["named"].is_null());
  EXPECT_TRUE(open["streams"]["candidates"][0]["fits_sequences"].is_null());
}

// Unlike the hardware: 64 sets x 8 ways, FIFO: FIFO fits; SLRU (4 of 8 protected: a fresh line gone
// at the fourth miss of its set, not the eighth) and random do not.
TEST(Streams, Fifo64x8) {
  Spec sp;
  sp.sets = 64, sp.ways = 8, sp.policy = "fifo", sp.seed = 3;
  sp.pool_bytes = 64ull * 1024 * kLine;  // 1024 lines per set
  sp.ks = {128, 256, 512, 1024};
  sp.trials = 300;
  const Dataset d = dataset_of(sp);
  const auto pts = stream_points(d, "l1", 0);
  const auto fits = fit_streams(pts, sp.sets, sp.ways, {"lru", "fifo", "slru", "random"}, 0);
  EXPECT_TRUE(find(fits, "fifo")->fits) << find(fits, "fifo")->worst_z;
  EXPECT_FALSE(find(fits, "slru")->fits) << find(fits, "slru")->worst_z;
  EXPECT_FALSE(find(fits, "random")->fits) << find(fits, "random")->worst_z;
}

// Without a decided geometry the streams are not judged, and say why; no entries: nothing written.
TEST(Streams, NeedsTheGeometry) {
  Spec sp;
  sp.ks = {256};
  sp.trials = 10;
  const Dataset d = dataset_of(sp);
  nlohmann::json c = {{"sets", nullptr}, {"ways", nullptr}, {"replacement", "slru"}};
  ASSERT_TRUE(judge_streams(c, d, "l1", 0, 0, {true, {"slru"}, "access sequences"}));
  EXPECT_EQ(c["replacement"], "slru");
  EXPECT_NE(c["streams"]["reason"].get<std::string>().find("needs the cache's sets"), std::string::npos);
  nlohmann::json t = cache_json(sp, "slru");
  EXPECT_FALSE(judge_streams(t, d, "texture", 0, 0, {true, {"slru"}, "access sequences"}));
  EXPECT_FALSE(t.contains("streams"));
}

// Property: over a few geometries and policies, the cache's own policy fits its streams and the one
// most unlike it (by construction) does not.
TEST(Streams, TruePolicyFitsOverGeometries) {
  struct Case {
    std::uint32_t sets, ways;
    std::string truth, other;
    std::uint64_t lines_per_set;
  };
  // Pools of hundreds of lines per set, as on the hardware (the model takes every set's share of the
  // pool as exactly pool / S lines).
  const std::vector<Case> cases = {{16, 2, "lru", "slru_p1", 512},  {128, 4, "slru", "lru", 512},
                                   {32, 8, "srrip", "random", 256}, {64, 4, "random", "slru", 256},
                                   {256, 2, "fifo", "random", 256}};
  for (const auto& cs : cases) {
    Spec sp;
    sp.sets = cs.sets, sp.ways = cs.ways, sp.policy = cs.truth;
    sp.pool_bytes = cs.lines_per_set * cs.sets * kLine;
    sp.ks.clear();
    for (double a : {0.5, 1.0, 2.0, 4.0}) sp.ks.push_back(static_cast<std::uint64_t>(a * cs.ways * cs.sets));
    sp.variants = {"fresh", "reread1", "mid", "two_ages"};
    sp.trials = 200;
    sp.seed = cs.sets + cs.ways;
    const Dataset d = dataset_of(sp);
    const auto fits = fit_streams(stream_points(d, "l1", 0), cs.sets, cs.ways, {cs.truth, cs.other}, 0);
    EXPECT_TRUE(find(fits, cs.truth)->fits) << cs.truth << " " << cs.sets << "x" << cs.ways << " worst z "
                                            << find(fits, cs.truth)->worst_z << " chi2 " << find(fits, cs.truth)->chi2
                                            << " / " << find(fits, cs.truth)->dof;
    EXPECT_FALSE(find(fits, cs.other)->fits) << cs.other << " on a " << cs.truth << " cache " << cs.sets << "x" << cs.ways;
    // the fresh and mid curves of a cache that loses nothing else agree under its own policy
    EXPECT_EQ(own_curves_disagree(stream_points(d, "l1", 0), fits).sentence, "") << cs.truth << " " << cs.sets << "x" << cs.ways;
  }
}

// A path that loses a share of its fresh targets besides the stream (as the H200's read-only path
// does against its own mid curve): the fresh curve lies above mid's re-read after the same lines, no
// candidate allows that, and the judgement says so in the reason of its null. Without the loss the
// same cache gives no such sentence.
TEST(Streams, OwnCurvesDisagreeWhereFreshTargetsGoElsewhere) {
  Spec sp;
  sp.policy = "slru";
  sp.ks = {256, 512, 1024, 2048, 4096};
  sp.variants = {"fresh", "reread1", "mid"};
  sp.trials = 528;
  sp.seed = 5;
  const std::vector<std::string> cands = {"slru", "lru", "slru_p1", "slru_p3", "fifo", "srrip", "random"};
  {
    const auto pts = stream_points(dataset_of(sp), "l1", 0);
    EXPECT_EQ(own_curves_disagree(pts, fit_streams(pts, sp.sets, sp.ways, cands, 0)).sentence, "");
  }
  sp.fresh_lost = 0.25;
  const Dataset d = dataset_of(sp);
  const auto pts = stream_points(d, "l1", 0);
  const std::string own = own_curves_disagree(pts, fit_streams(pts, sp.sets, sp.ways, cands, 0)).sentence;
  EXPECT_NE(own.find("own curves disagree"), std::string::npos) << own;
  EXPECT_NE(own.find("above mid"), std::string::npos) << own;
  nlohmann::json c = cache_json(sp, "slru");
  judge_streams(c, d, "l1", 0, 0, {true, {"slru"}, "access sequences"});
  EXPECT_TRUE(c["replacement"].is_null());
  EXPECT_TRUE(c["streams"]["own_curves"]["disagree"].is_string());
  EXPECT_GT(c["streams"]["own_curves"]["z_min"].get<double>(), 4);
  EXPECT_NE(c["streams"]["reason"].get<std::string>().find("own curves disagree"), std::string::npos)
      << c["streams"]["reason"];
}

namespace {
// The L2 path's entries of one simulated partition (the reader's): every stream line reaches its
// sets (the lines homed there and the copies of the other partition's), `sets` x 16 under `pol`; per
// k and variant `trials` targets homed there (near_*) and as many homed in the other partition,
// whose counters the judgement must not read (far_*: made up, and the mixed count with them).
Dataset l2_partition(std::uint32_t sets, const std::string& pol, bool split, std::uint64_t seed, bool with_mid = false) {
  SimCache c(sets, 16, pol, seed);
  policy::SplitMix64 rng(seed * 1000003);
  const std::uint64_t pool = 4ull * sets * 16 * 2;  // 4 x both partitions
  auto stream = [&](std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) c.access(static_cast<std::int64_t>(rng.next() % pool));
  };
  stream(8 * pool);
  std::int64_t next_target = 1ll << 40;
  std::vector<BenchEntry> out;
  const unsigned trials = 220;
  std::vector<std::string> variants = {"fresh", "reread1"};
  if (with_mid) variants.push_back("mid");
  for (const std::string& v : variants)
    for (std::uint64_t k : {8ull * sets, 16ull * sets, 32ull * sets}) {
      double evicted = 0, mid_missed = 0;
      for (unsigned t = 0; t < trials; ++t) {
        const std::int64_t T = next_target++;
        c.access(T);
        if (v == "reread1") c.access(T);
        if (v == "mid") {
          stream(k / 2);
          mid_missed += c.access(T) ? 0 : 1;
          stream(k - k / 2);
        } else {
          stream(k);
        }
        evicted += c.access(T) ? 0 : 1;
      }
      std::map<std::string, double> ctr = {{"trials", 2.0 * trials}, {"evicted", trials},  // the far half all "evicted"
                                           {"p_evicted", 0.5}, {"pool_bytes", static_cast<double>(pool * kLine)},
                                           {"line_bytes", static_cast<double>(kLine)}, {"sms", 1}, {"targets_per_trial", 1},
                                           {"hit_cycles", 290}, {"miss_cycles", 700}, {"threshold_cycles", 495}};
      if (v == "mid") ctr["mid_missed"] = trials;  // the mixed count: the far half all "missed"
      if (split) {
        for (const auto& [n, x] : std::map<std::string, double>{{"near_trials", trials}, {"near_evicted", evicted},
                                                                {"far_trials", trials}, {"far_near_lost", trials}, {"far_evicted", trials}})
          ctr[n] = x;
        if (v == "mid") ctr["near_mid_missed"] = mid_missed;
      }
      out.push_back(test_support::bench_entry("cache_streams/cache:l2/path:global_cg/variant:" + v + "/loads:dep/k:" + std::to_string(k), ctr));
    }
  return Dataset::from_runs({test_support::bench_run(out, {{"device_name", "synthetic"}})});
}

// A topology after merge_l2_story: l2_sets decided `sets` x 16 and policy `seq` over 2 partitions.
nlohmann::json l2_topology(std::uint32_t sets, const std::string& seq) {
  nlohmann::json t;
  t["caches"]["l2"] = {{"sets", 2 * sets}, {"ways", 16}, {"replacement", seq}};
  t["caches"]["l2"]["provenance"]["replacement"] = {{"confidence", 0.7}, {"evidence", {"l2_evsets/policy"}}};
  t["l2_sets"] = {{"sets", 2 * sets}, {"ways", 16}, {"replacement", seq}};
  t["l2_sets"]["replacement_consistent"]["class_members"] = {{seq}};
  t["l2_partitions"]["map"]["partitions"] = 2;
  return t;
}
}  // namespace

// The L2's streams are judged on the reader's partition (l2_sets' sets over the partitions, its
// ways) from the targets homed there: an LRU partition keeps l2_sets' lru; one that inserts a missed
// line one age below the top (a hit promotes it: a re-read target outlives a fresh one, as on the
// H200) refutes lru and leaves the replacement null with the nearest candidates; entries without the
// split are not judged and say why.
TEST(Streams, L2JudgedOnTheReadersPartition) {
  const std::uint32_t sets = 256;  // per partition
  {
    nlohmann::json t = l2_topology(sets, "lru");
    judge_l2_streams(t, l2_partition(sets, "lru", true, 11));
    const auto& st = t["caches"]["l2"]["streams"];
    EXPECT_EQ(st["sets"], sets);
    EXPECT_EQ(st["ways"], 16);
    EXPECT_EQ(st["named"], "lru") << st["reason"];
    EXPECT_EQ(t["caches"]["l2"]["replacement"], "lru");
    EXPECT_EQ(t["l2_sets"]["replacement"], "lru");
    EXPECT_EQ(st["curves"].size(), 6u);
    EXPECT_EQ(st["curves"][0]["trials"], 220);  // the near targets only
    EXPECT_NE(st["scope"].get<std::string>().find("reader's own L2 partition"), std::string::npos);
    EXPECT_NE(render_report([&] {
                nlohmann::json r = t;
                r["schema"] = "memhier-topology/2";
                r["device"] = {{"gpu_name", "test"}};
                r["caches"]["l2"]["present"] = true;
                return r;
              }()).find("Judged: the targets homed in the reader's own L2 partition"),
              std::string::npos);
  }
  {
    nlohmann::json t = l2_topology(sets, "lru");
    judge_l2_streams(t, l2_partition(sets, "qlru_h00_m1_r0_u1", true, 12));
    const auto& st = t["caches"]["l2"]["streams"];
    EXPECT_TRUE(st["named"].is_null());
    EXPECT_TRUE(t["caches"]["l2"]["replacement"].is_null());
    const std::string why = t["caches"]["l2"]["provenance"]["replacement"]["reason"];
    EXPECT_NE(why.find("does not predict the streams"), std::string::npos) << why;
    EXPECT_NE(why.find("nearest: "), std::string::npos) << why;
    // the l2_sets section says the same (one L2 story), its sequences' verdict kept beside
    EXPECT_TRUE(t["l2_sets"]["replacement"].is_null());
    EXPECT_EQ(t["l2_sets"]["replacement_sequences"], "lru");
    EXPECT_NE(t["l2_sets"]["provenance"]["replacement"]["reason"].get<std::string>().find("refute"), std::string::npos);
  }
  {
    nlohmann::json t = l2_topology(sets, "lru");
    judge_l2_streams(t, l2_partition(sets, "lru", false, 13));
    const auto& st = t["caches"]["l2"]["streams"];
    EXPECT_EQ(t["caches"]["l2"]["replacement"], "lru");
    EXPECT_NE(st["reason"].get<std::string>().find("did not split"), std::string::npos) << st["reason"];
  }
  {  // mid's re-read counted on the reader's partition too (near_mid_missed, not the mixed count)
    nlohmann::json t = l2_topology(sets, "lru");
    judge_l2_streams(t, l2_partition(sets, "lru", true, 15, true));
    const auto& st = t["caches"]["l2"]["streams"];
    EXPECT_EQ(st["named"], "lru") << st["reason"];
    std::size_t mids = 0;
    for (const auto& c : st["curves"])
      if (c["measure"] == "mid_missed") {
        ++mids;
        EXPECT_EQ(c["trials"], 220);
        EXPECT_LT(c["observed"].get<double>(), 0.9) << c;  // the mixed count would read 220 of 220 at least
      }
    EXPECT_EQ(mids, 3u);
  }
  {  // no partitions decided: not judged
    nlohmann::json t = l2_topology(sets, "lru");
    t["l2_partitions"] = nullptr;
    judge_l2_streams(t, l2_partition(sets, "lru", true, 14));
    EXPECT_NE(t["caches"]["l2"]["streams"]["reason"].get<std::string>().find("partitions"), std::string::npos);
    EXPECT_EQ(t["caches"]["l2"]["replacement"], "lru");
  }
}

// restream (the trial's lines read before the target and again after it): under LRU a line read
// again after T ages T as a new line does, so the curve is fresh's at the same k; under a policy
// that inserts a missed line below a hit one (qlru_h00_m1: a hit goes to age 0, a miss to 1) the
// curves part (there T outlives more of the lines read again: they left older ways). The predictor
// says both.
TEST(Streams, RestreamIsFreshUnderLruNotUnderQlru) {
  std::vector<StreamPoint> pts;
  for (const std::string v : {"fresh", "restream"})
    for (std::uint64_t k : {512ull, 1024ull, 1536ull}) {
      StreamPoint p;
      p.variant = v, p.loads = "dep", p.measure = "evicted", p.k = k;
      p.pool_bytes = 64ull * 4096 * kLine, p.line_bytes = kLine, p.trials = 1000;
      pts.push_back(p);
    }
  const auto lru = predict_streams("lru", 64, 16, pts, 4000, 7);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(lru.p[i], lru.p[i + 3], 4 * std::sqrt(lru.var[i] + lru.var[i + 3]) + 0.01) << pts[i].k;
  EXPECT_GT(lru.p[2], 0.3);  // the curve rises over these ks
  EXPECT_LT(lru.p[0], 0.2);
  const auto q = predict_streams("qlru_h00_m1_r0_u1", 64, 16, pts, 4000, 7);
  EXPECT_GT(std::fabs(q.p[4] - q.p[1]), 0.05) << "restream " << q.p[4] << " fresh " << q.p[1];
}

// A launch that starts with an empty L1 (start_empty 1) is replayed trial by trial, and restream's
// earlier trials with their re-reads: under slru those hits fill the protected half, so a later
// trial's target has two ways left and restream lies far left of fresh (on an H200's L1 with 16
// trials per SM: 0.19 against 0.02 at k = 456); replayed as plain arrivals it would not.
TEST(Streams, RestreamReplaysItsEarlierTrials) {
  std::vector<StreamPoint> pts;
  for (const std::string v : {"fresh", "restream"}) {
    StreamPoint p;
    p.variant = v, p.loads = "dep", p.measure = "evicted", p.k = 456;
    p.pool_bytes = 16ull << 20, p.line_bytes = kLine, p.trials = 2112;
    p.start_empty = 1, p.warm_lines = 3648, p.trials_per_sm = 16;
    pts.push_back(p);
  }
  const auto pr = predict_streams("slru", 512, 4, pts, 4000, 3);
  EXPECT_LT(pr.p[0], 0.06) << pr.p[0];
  EXPECT_GT(pr.p[1], 0.12) << pr.p[1];
  EXPECT_GT(pr.p[1], 3 * pr.p[0]);
}
