// Measurement conditions of a run (docs/methodology.md, "Measurement conditions"): before the
// plan, and at the start of every family, a look at the device through NVML (runtime/nvml.hpp):
// other compute processes, utilization, SM and memory clocks, clock-event reasons; once, ECC, MIG,
// persistence and the board's serial. The run is `contended` when another process shared the GPU
// (a compute process besides this one, or the GPU busy before the plan started) and `throttled`
// when power, thermal or hardware-slowdown reasons were active (or the clock64 check saw the SM
// clock below 90 % of nominal). Each verdict keeps its evidence; `unknown` where NVML is absent.
#pragma once
#include <map>
#include <string>

namespace memhier {

// Opens NVML for CUDA device `index` and takes the before-the-plan look; call before this process
// creates its CUDA context on the device (the look calibrates which process is this one).
void conditions_begin_cuda(int index);
// A simulated device: no conditions to measure (context says so).
void conditions_begin_sim();
// A look at the start of a family (the guard calls it for every benchmark; only a family's first
// benchmark in a row of its own is sampled).
void conditions_on_benchmark(const std::string& benchmark_name);
// The context keys: measurement_contended / measurement_throttled (true, false or unknown),
// measurement_evidence, measurement_conditions (JSON: before, per family), nvml, gpu_serial,
// ecc_mode, mig_mode, persistence_mode. `clock_check_throttled`: the clock64 check's verdict.
std::map<std::string, std::string> conditions_context(bool clock_check_throttled);

// The verdicts from samples, for tests: `others_before` other processes and `util_before` % busy
// before the plan (-1 unknown); per family its other processes (-1 unknown) and reason bits.
struct ConditionsVerdict {
  std::string contended, throttled;  // "true", "false", "unknown"
  std::string evidence;              // "" when both are false
};
struct FamilyLook {
  int others = -1;
  unsigned long long reasons = 0;
  unsigned sm_mhz = 0;
};
ConditionsVerdict judge_conditions(bool nvml, int others_before, int util_before,
                                   const std::map<std::string, FamilyLook>& families, bool clock_check_throttled);

}  // namespace memhier
