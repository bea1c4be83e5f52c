// The refinement round (analysis/core/refinement): never a chase the data holds, priorities, the budget.
#include <gtest/gtest.h>

#include "analysis/core/refinement.hpp"

using namespace memhier;
using namespace memhier::analysis;

namespace {
BenchRun run_with(const std::vector<std::string>& names) {
  BenchRun r;
  r.context = {{"sm_count", "2"}, {"memhier_version", "1"}, {"device_backend", "sim:a"}, {"gpu_name", "A"}};
  for (const auto& n : names) {
    BenchEntry e;
    e.name = e.run_name = n;
    e.params = *BenchName::parse(n);
    e.run_type = "iteration";
    e.iterations = 1;
    e.time_unit = "ms";
    e.real_time = 1;
    e.counters["accesses"] = 1000;
    r.entries.push_back(e);
  }
  return r;
}
ChaseWish wish(std::uint64_t bytes, const std::string& why) {
  return ChaseWish{"global_cg", "count", bytes, 128, bytes / 128, true, -1, why};
}
}  // namespace

TEST(Refinement, NeverAsksForWhatTheDataHolds) {
  Dataset d = Dataset::from_runs({run_with({"pchase/path:global_cg/mode:count/bytes:4096/stride:128/iters:32/warm:1"})});
  Requests w;
  w.add(wish(4096, "l2 size: narrowing"));
  w.add(wish(8192, "l2 size: narrowing"));
  const auto r = plan_round(d, w, {});
  ASSERT_EQ(r.requests["pchase"].size(), 1u);
  EXPECT_EQ(r.requests["pchase"][0]["bytes"], 8192);
  EXPECT_EQ(r.summary["dropped_already_measured"], 1);
}

TEST(Refinement, PriorityAndBudget) {
  Dataset d = Dataset::from_runs({run_with({"pchase/path:global_cg/mode:count/bytes:4096/stride:128/iters:32/warm:1"})});
  Requests w;
  for (int k = 1; k <= 10; ++k) w.add(wish(1 << (20 + k % 3), "l2 stage 2 (sets)"));
  w.add(wish(1 << 19, "l2 line: edge shift with stride"));
  RefinementBudget b;
  b.round_benchmarks = 2;
  const auto r = plan_round(d, w, b);
  ASSERT_EQ(r.requests["pchase"].size(), 2u);
  EXPECT_EQ(r.requests["pchase"][0]["bytes"], 1 << 19);  // the edge shift first
  EXPECT_GT(r.summary["deferred_chases"].get<int>(), 0);
  EXPECT_EQ(wish_priority("l1 fill granularity"), 0);
  EXPECT_EQ(wish_priority("l1 size: narrowing"), 1);
  EXPECT_EQ(wish_priority("l1 capacity: 50 % point"), 2);
  EXPECT_EQ(wish_priority("l1 size: narrowing (after the sequences)"), 3);
}

TEST(Refinement, StopsWhenTheRoundsAreSpent) {
  Dataset d = Dataset::from_runs({run_with({}), run_with({}), run_with({})});
  Requests w;
  w.add(wish(8192, "l2 size: narrowing"));
  RefinementBudget b;
  b.max_rounds = 2;
  const auto r = plan_round(d, w, b);
  EXPECT_TRUE(r.requests["pchase"].empty());
  EXPECT_TRUE(r.summary.contains("stopped"));
}

// TLB wishes keep their allocation mode, lines and recorded accesses (a run with other lines reads
// another data footprint, a longer run resolves stage 2): never-repeat tells them apart, and the
// TLB share of a round is taken even when the caches' wishes fill theirs.
TEST(Refinement, TlbWishesKeepTheirParametersAndShare) {
  Dataset d = Dataset::from_runs({run_with({"tlb/alloc:malloc/bytes:33554432/stride:2097152/lines:1024"})});
  Requests w;
  w.tlb_limit_vmm = 1ull << 40;  // VMM chases offered (context tlb_limit_bytes_vmm)
  w.add(TlbWish{33554432, 2097152, "l1_tlb reach", "malloc", 1024, 0});               // measured
  w.add(TlbWish{33554432, 2097152, "l1_tlb stage 2: longer runs", "malloc", 1024, 65536});  // longer
  w.add(TlbWish{33554432, 2097152, "level reach", "vmm_gap", 1024, 0});               // other mapping
  for (int k = 1; k <= 10; ++k) w.add(wish(1 << (20 + k), "l2 size: narrowing"));
  RefinementBudget b;
  b.round_benchmarks = 1;
  const auto r = plan_round(d, w, b);
  ASSERT_EQ(r.requests["tlb"].size(), 2u);
  EXPECT_EQ(r.requests["pchase"].size(), 1u);
  EXPECT_EQ(r.summary["dropped_already_measured"], 1);
  EXPECT_EQ(r.summary["next_round_tlb_chases"], 2);
  bool longer = false, gap = false;
  for (const auto& e : r.requests["tlb"]) {
    EXPECT_EQ(e["lines"], 1024);
    longer = longer || e.value("timed", 0) == 65536;
    gap = gap || e["alloc"] == "vmm_gap";
  }
  EXPECT_TRUE(longer);
  EXPECT_TRUE(gap);
  b.tlb_round_benchmarks = 1;
  EXPECT_EQ(plan_round(d, w, b).requests["tlb"].size(), 1u);
}
