// The verdicts on a run's measurement conditions (bench/cli/conditions.hpp) from NVML looks: another
// compute process or a busy GPU makes it contended, power/thermal/slowdown reasons throttled;
// idle, applications clocks and sync boost do not; without NVML both are unknown.
#include <gtest/gtest.h>

#include "bench/cli/conditions.hpp"
#include "runtime/nvml.hpp"

using namespace memhier;

TEST(Conditions, CleanRunIsNeitherContendedNorThrottled) {
  std::map<std::string, FamilyLook> f = {{"pchase", {0, nvml_reason::kApplicationsClocks | nvml_reason::kGpuIdle, 1980}},
                                         {"tlb", {0, nvml_reason::kSyncBoost, 1980}}};
  const ConditionsVerdict v = judge_conditions(true, 0, 0, f, false);
  EXPECT_EQ(v.contended, "false");
  EXPECT_EQ(v.throttled, "false");
  EXPECT_EQ(v.evidence, "");
}

TEST(Conditions, AnotherProcessOrABusyGpuIsContendedWithItsEvidence) {
  std::map<std::string, FamilyLook> f = {{"gmem_throughput", {1, 0, 1980}}, {"pchase", {0, 0, 1980}}};
  ConditionsVerdict v = judge_conditions(true, 0, 0, f, false);
  EXPECT_EQ(v.contended, "true");
  EXPECT_EQ(v.throttled, "false");
  EXPECT_NE(v.evidence.find("other compute processes during gmem_throughput (1)"), std::string::npos) << v.evidence;
  v = judge_conditions(true, 1, 97, {}, false);
  EXPECT_EQ(v.contended, "true");
  EXPECT_NE(v.evidence.find("1 other compute process(es) on the GPU before the plan"), std::string::npos) << v.evidence;
  EXPECT_NE(v.evidence.find("97 % busy before the plan"), std::string::npos) << v.evidence;
}

TEST(Conditions, PowerThermalOrTheClockCheckIsThrottled) {
  std::map<std::string, FamilyLook> f = {{"l2_throughput", {0, nvml_reason::kSwPowerCap, 1755}}};
  ConditionsVerdict v = judge_conditions(true, 0, 0, f, false);
  EXPECT_EQ(v.throttled, "true");
  EXPECT_EQ(v.contended, "false");
  EXPECT_NE(v.evidence.find("l2_throughput (sw_power_cap, SM 1755 MHz)"), std::string::npos) << v.evidence;
  v = judge_conditions(false, -1, -1, {}, true);
  EXPECT_EQ(v.throttled, "true");  // the clock64 check needs no NVML
  EXPECT_EQ(v.contended, "unknown");
}

TEST(Conditions, WithoutNvmlBothAreUnknown) {
  const ConditionsVerdict v = judge_conditions(false, -1, -1, {}, false);
  EXPECT_EQ(v.contended, "unknown");
  EXPECT_EQ(v.throttled, "unknown");
}

TEST(Conditions, ReasonBitsHaveNames) {
  EXPECT_EQ(nvml_reason_names(0), "none");
  EXPECT_EQ(nvml_reason_names(nvml_reason::kSwPowerCap | nvml_reason::kHwThermal), "sw_power_cap,hw_thermal");
}
