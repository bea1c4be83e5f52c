// Latency spectrum labels (analysis/memory/spectrum): revisit groups by their steps on the same lines
// (placement cancelled), not by their own medians, which the near/far L2 halves move by more than
// a TLB penalty.
#include <gtest/gtest.h>

#include "analysis/memory/spectrum.hpp"

using namespace memhier;
using namespace memhier::analysis;

namespace {
BenchRun spectrum_run(const std::map<std::string, double>& counters) {
  BenchRun r;
  r.context = {{"sm_count", "2"}, {"memhier_version", "1"}, {"device_backend", "sim:a"}, {"gpu_name", "A"}};
  BenchEntry e;
  e.name = e.run_name = "latency_spectrum/path:global_cg/bytes:1073741824/far_pages:16/far_stride:67108864";
  e.params = *BenchName::parse(e.name);
  e.run_type = "iteration";
  e.iterations = 1;
  e.counters = counters;
  r.entries.push_back(e);
  return r;
}
std::string label_of(const nlohmann::json& list, const std::string& pattern) {
  for (const auto& e : list)
    if (e["pattern"] == pattern) return e["p"].is_null() ? "" : e["p"].get<std::string>();
  return "?";
}
}  // namespace

TEST(Spectrum, RevisitGroupsByTheirStepsOnTheSameLines) {
  // medians that placement moved: revisit_16 on the far half (+29), revisit_64 on the near half;
  // on the same lines revisit_64 is 10 cycles slower than revisit_16, which equals revisit_4
  Dataset d = Dataset::from_runs({spectrum_run({{"near_hit_cycles", 258}, {"cold_near_cycles", 700},
                                                {"revisit_4_cycles", 258}, {"revisit_16_cycles", 287},
                                                {"revisit_64_cycles", 268},
                                                {"revisit_16_paired_cycles", 272}, {"revisit_16_paired_before_cycles", 271.5},
                                                {"revisit_16_paired_pages", 4}, {"revisit_16_paired_sd_cycles", 3},
                                                {"revisit_64_paired_cycles", 281}, {"revisit_64_paired_before_cycles", 271},
                                                {"revisit_64_paired_pages", 16}, {"revisit_64_paired_sd_cycles", 3}})});
  Evidence ev;
  double dram = 0;
  const auto spec = spectrum_of(d, &ev, &dram);
  const auto& list = spec["global_cg"];
  EXPECT_EQ(label_of(list, "revisit_4"), "P1");
  EXPECT_EQ(label_of(list, "revisit_16"), "P1");  // its median alone (+29 over P1) would say P2
  EXPECT_EQ(label_of(list, "revisit_64"), "P2");
  EXPECT_EQ(dram, 700);
  for (const auto& e : list) EXPECT_EQ(e["pattern"].get<std::string>().find("paired"), std::string::npos);
}

TEST(Spectrum, AStepWithinThePairsNoiseIsNoLevel) {
  Dataset d = Dataset::from_runs({spectrum_run({{"near_hit_cycles", 258}, {"revisit_4_cycles", 258},
                                                {"revisit_16_cycles", 262},
                                                {"revisit_16_paired_cycles", 276}, {"revisit_16_paired_before_cycles", 271},
                                                {"revisit_16_paired_pages", 4}, {"revisit_16_paired_sd_cycles", 8}})});
  Evidence ev;
  double dram = 0;
  EXPECT_EQ(label_of(spectrum_of(d, &ev, &dram)["global_cg"], "revisit_16"), "P1");  // 5 +- 4: noise
}
