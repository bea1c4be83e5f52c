// A small cache/TLB model for the analyzer tests: answers P-chase and tlb requests like
// memhier-bench would (counters + traces), so inference and the refinement loop can be checked
// against structures whose answer is known (000 Table 5).
#pragma once
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "analysis/core/dataset.hpp"
#include "analysis/core/requests.hpp"

namespace memhier::test {

struct FakeCache {
  std::uint64_t line = 32;
  std::vector<int> ways;                              // per set
  std::function<int(std::uint64_t line)> set_of;     // line index -> set
  std::vector<double> way_prob;                      // empty: LRU; else victim way probabilities
  double hit = 30, miss = 200;
  std::uint64_t size() const;
};

struct FakeTlb {
  std::uint64_t page = 2u << 20;
  int l1_entries = 16;                               // fully associative LRU
  std::vector<int> l2_ways;                          // per set
  std::function<int(std::uint64_t page)> l2_set_of;
  double hit = 200, l1_miss = 300, l2_miss = 600;
};

class FakeDevice {
 public:
  std::string path = "texture";
  FakeCache cache;
  FakeTlb tlb;
  bool with_tlb = false;
  std::uint32_t seed = 1;

  // The plan: a capacity sweep (count, stride 32) up to `hi` in `step`s and a stride-4 fine trace.
  void plan(std::uint64_t step, std::uint64_t hi);
  void tlb_plan();
  void run(const analysis::Requests& r);
  analysis::Dataset dataset() const;
  // plan, then infer / run requests until none is left (or `rounds` rounds); returns the topology.
  nlohmann::json characterize(int rounds = 12, int* rounds_used = nullptr);

  void chase(const std::string& mode, std::uint64_t bytes, std::uint64_t stride, std::uint64_t iters, bool warm);
  void tlb_chase(std::uint64_t bytes, std::uint64_t stride, const std::string& alloc = "malloc");

 private:
  std::vector<BenchEntry> entries_;
  std::vector<std::pair<std::string, Trace>> traces_;
};

}  // namespace memhier::test
