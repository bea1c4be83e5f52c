// Whole-L2 eviction sets on the GPU (bench/levels/l2_evsets_cuda.cu; ctest label gpu): the
// discard-and-read readout tells a dirty line still in the L2 from a written-back one, a pool of
// 3 x the L2 evicts a target and a pool of 64 KiB does not, and the search verifies a minimal set
// for at least one of four targets; where a class overflowed, its leave-one-out check finds lines
// of the set. Skips, visibly, without a device.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "tests/gpu/gpu_backend.hpp"
#include "tests/gpu/gpu_test_util.hpp"

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/levels/levels.hpp"

using namespace memhier;

namespace {

LevelResult run(const std::map<std::string, std::string>& params) {
  LevelRequest r;
  r.family = "l2_evsets";
  r.params = params;
  return gputest::gpu()->run_level(r);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, sep);) out.push_back(x);
  return out;
}

}  // namespace

TEST(L2EvsetsGpu, ReadoutWorksAndASmallPoolEvictsNothing) {
  REQUIRE_GPU();
  ASSERT_GT(gputest::gpu()->level_offer().l2_evsets_bytes, 0u);
  const LevelResult res = run({{"targets", "1"}, {"passes", "1"}, {"pool", "1"}, {"pool_lines", "512"}});
  ASSERT_TRUE(res.error.empty()) << res.error;
  EXPECT_EQ(res.counters.at("readout_ok"), 1) << (res.trace && res.trace->meta.count("readout_reason") ? res.trace->meta.at("readout_reason") : std::string());
  ASSERT_TRUE(res.trace.has_value());
  EXPECT_EQ(res.trace->meta.at("status"), "no_eviction") << "64 KiB of reads cannot evict a line of a 25-60 MiB L2";
}

TEST(L2EvsetsGpu, TheSearchVerifiesASetAndTheClassSteps) {
  REQUIRE_GPU();
  const LevelResult res = run({{"targets", "4"}, {"passes", "2"}, {"pool", "3"}});
  ASSERT_TRUE(res.error.empty()) << res.error;
  ASSERT_TRUE(res.trace.has_value());
  EXPECT_GE(res.counters.at("minimal"), 1) << "status " << res.trace->meta.at("status") << ", sizes " << res.trace->meta.at("sizes");
  // Where a class overflowed its set, the leave-one-out check finds at least 2 lines of the set
  // (their absence leaves no miss) and a one-line read hits.
  const auto& meta = res.trace->meta;
  for (int k = 0; k < 4; ++k) {
    const auto it = meta.find("leave_one_out_" + std::to_string(k));
    if (it == meta.end()) continue;
    const std::string sweep = meta.at("cycles_" + meta.at("leave_one_out_order_" + std::to_string(k)) + "_" + std::to_string(k));
    const double one = std::stod(split(split(sweep, ';')[0], ',')[0]);
    EXPECT_LT(one, 800) << "one line read 8 times in a row hits the L2";
    int members = 0;
    for (const std::string& g : split(it->second, ';')) {
      int misses = 0;
      for (const std::string& x : split(g, ',')) misses += std::stod(x) > 1.5 * one;
      members += misses == 0;
    }
    EXPECT_GE(members, 2) << "target " << k;
    // The policy sequences (where they ran): after the thrash and the discard the set is empty, so
    // the first access of each line in a sequence (DRAM) is slower than any access that repeats the
    // line before it (a hit of the set) by more than 10 %.
    const auto pc = meta.find("policy_cycles_" + std::to_string(k));
    if (pc == meta.end()) continue;
    const std::vector<std::string> seqs = split(meta.at("policy_sequences_" + std::to_string(k)), ';'),
                                   cycles = split(pc->second, ';');
    ASSERT_EQ(seqs.size(), cycles.size());
    double fastest_first = 1e9, slowest_repeat = 0;
    int first = 0;
    for (std::size_t q = 0; q < seqs.size(); ++q) {
      const std::vector<std::string> ids = split(seqs[q], ','), cyc = split(cycles[q], ',');
      ASSERT_EQ(ids.size(), cyc.size());
      std::vector<std::string> seen;
      for (std::size_t a = 0; a < ids.size(); ++a) {
        if (a > 0 && ids[a] == ids[a - 1]) slowest_repeat = std::max(slowest_repeat, std::stod(cyc[a]));
        if (std::find(seen.begin(), seen.end(), ids[a]) != seen.end()) continue;
        seen.push_back(ids[a]);
        ++first;
        fastest_first = std::min(fastest_first, std::stod(cyc[a]));
      }
    }
    const int first_hits = fastest_first > 1.1 * slowest_repeat ? 0 : 1;
    EXPECT_EQ(first_hits, 0) << "the fastest of " << first << " first accesses after the discard took " << fastest_first
                             << " cycles, the slowest repeated access " << slowest_repeat << ", target " << k;
  }
}

// Each target is searched from the SM whose cold read of it is fastest (its own L2 partition): the
// trace names per target the SMs timed, the chosen one first, and the chosen one is the fastest by a
// clear margin over at least one other SM (the other partition's crossing: ~180 cycles on an H100);
// every target's search then ends in a reduced set, most of them verified minimal. place:far (an
// experiment) runs as well and names its choice first; what it finds is printed, not asserted.
TEST(L2EvsetsGpu, EachTargetIsSearchedFromItsOwnPartition) {
  REQUIRE_GPU();
  for (const std::string place : {"near", "far"}) {
    const LevelResult res = run({{"targets", "6"}, {"passes", "2"}, {"pool", "3"}, {"place", place}});
    ASSERT_TRUE(res.error.empty()) << res.error;
    ASSERT_TRUE(res.trace.has_value());
    const auto& meta = res.trace->meta;
    ASSERT_TRUE(meta.count("placed")) << "no placement in the trace";
    std::cout << "place:" << place << " status " << meta.at("status") << " sizes " << meta.at("sizes") << " tests "
              << meta.at("tests") << "\n  placed " << meta.at("placed") << "\n";
    const std::vector<std::string> targets = split(meta.at("placed"), ';');
    EXPECT_EQ(targets.size(), 6u);
    for (const std::string& t : targets) {
      const std::vector<std::string> sms = split(t.substr(t.find('=') + 1), ',');
      ASSERT_GE(sms.size(), 2u) << t;
      std::vector<double> cyc;
      for (const std::string& x : sms) cyc.push_back(std::stod(x.substr(x.find(':') + 1)));
      const double lo = *std::min_element(cyc.begin(), cyc.end()), hi = *std::max_element(cyc.begin(), cyc.end());
      EXPECT_EQ(cyc.front(), place == "near" ? lo : hi) << t;
      EXPECT_GT(hi - lo, 0.1 * lo) << "no SM of another partition among those timed: " << t;
    }
    // From its own partition every target's search ends in a reduced set (the far SM's ends at the
    // test budget); the minimality check after it (5 of 5 evictions, none without any one line) is
    // one more timed experiment and fails now and then on a verified set (1 of 6 on 2026-12-03).
    if (place == "near") {
      for (const std::string& s : split(meta.at("status"), ','))
        EXPECT_TRUE(s == "minimal" || s == "not_minimal") << "a target's search did not end in a reduced set: " << meta.at("status");
      EXPECT_GT(res.counters.at("minimal"), 3) << "status " << meta.at("status");
    }
  }
}
