#include "bench/cli/conditions.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include <memory>
#include <mutex>
#include <sstream>

#include "runtime/nvml.hpp"

namespace memhier {

namespace {

struct State {
  std::mutex m;
  bool cuda = false;
  std::unique_ptr<NvmlDevice> dev;
  NvmlSample before;
  NvmlStatic statics;
  int self = -1;            // processes that are this one, as NVML counts them (0 or 1); -1 not yet known
  std::string last_family;  // the family of the previous benchmark
  std::map<std::string, NvmlSample> families;
  std::map<std::string, FamilyLook> looks;
};

State& state() {
  static State s;
  return s;
}

std::string family_of(const std::string& name) { return name.substr(0, name.find('/')); }

nlohmann::json sample_json(const NvmlSample& s, int others) {
  nlohmann::json j = {{"sm_clock_mhz", s.sm_clock_mhz}, {"mem_clock_mhz", s.mem_clock_mhz},
                      {"clock_event_reasons", nvml_reason_names(s.reasons)}};
  if (s.compute_processes >= 0) j["compute_processes"] = s.compute_processes;
  if (others >= 0) j["other_processes"] = others;
  if (s.gpu_utilization_pct >= 0) j["gpu_utilization_pct"] = s.gpu_utilization_pct;
  return j;
}

}  // namespace

void conditions_begin_cuda(int index) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  s.cuda = true;
  const std::string bus = cuda_pci_bus_id(index);
  s.dev = NvmlDevice::open(bus.empty() ? "?" : bus);
  if (!s.dev->available()) return;
  s.before = s.dev->sample();
  s.statics = s.dev->statics();
  // Said at once (the run is marked contended at its end): scripts/characterize.sh no longer looks
  // for itself unless asked to wait (--wait-idle), which saved a CUDA start per run.
  if (s.before.compute_processes > 0 || s.before.gpu_utilization_pct >= 10)
    std::fprintf(stderr,
                 "memhier-bench: warning: the GPU is busy before the plan (%d other compute process(es), GPU %d %% busy): "
                 "the run will be marked contended (characterize.sh --wait-idle waits until it is idle)\n",
                 std::max(0, s.before.compute_processes), std::max(0, s.before.gpu_utilization_pct));
}

void conditions_begin_sim() { state().cuda = false; }

void conditions_on_benchmark(const std::string& benchmark_name) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  if (!s.dev || !s.dev->available()) return;
  const std::string fam = family_of(benchmark_name);
  if (fam == s.last_family) return;
  s.last_family = fam;
  if (s.families.count(fam)) return;  // a family's first look stands (serve rounds come back to pchase)
  NvmlSample x = s.dev->sample();
  // The first look after the context exists tells whether NVML counts this process at all (in a
  // container it may see none): one more process than before the plan is this one.
  if (s.self < 0 && x.compute_processes >= 0 && s.before.compute_processes >= 0)
    s.self = x.compute_processes > s.before.compute_processes ? 1 : 0;
  FamilyLook look;
  look.reasons = x.reasons;
  look.sm_mhz = x.sm_clock_mhz;
  if (x.compute_processes >= 0 && s.self >= 0) look.others = std::max(0, x.compute_processes - s.self);
  s.families[fam] = x;
  s.looks[fam] = look;
}

ConditionsVerdict judge_conditions(bool nvml, int others_before, int util_before,
                                   const std::map<std::string, FamilyLook>& families, bool clock_check_throttled) {
  ConditionsVerdict v;
  std::vector<std::string> ev;
  std::ostringstream shared, slow;
  int busy_families = 0, slow_families = 0;
  for (const auto& [fam, l] : families) {
    if (l.others > 0) shared << (busy_families++ ? ", " : "") << fam << " (" << l.others << ")";
    if (l.reasons & nvml_reason::kThrottling)
      slow << (slow_families++ ? ", " : "") << fam << " (" << nvml_reason_names(l.reasons & nvml_reason::kThrottling)
           << ", SM " << l.sm_mhz << " MHz)";
  }
  if (others_before > 0) ev.push_back(std::to_string(others_before) + " other compute process(es) on the GPU before the plan");
  if (util_before >= 10) ev.push_back("the GPU " + std::to_string(util_before) + " % busy before the plan");
  if (busy_families) ev.push_back("other compute processes during " + shared.str());
  const bool contended = !ev.empty();
  if (slow_families) ev.push_back("clock-event reasons during " + slow.str());
  if (clock_check_throttled) ev.push_back("the SM clock below 90 % of nominal (clock64 against %globaltimer)");
  const bool throttled = slow_families > 0 || clock_check_throttled;
  v.contended = contended ? "true" : nvml ? "false" : "unknown";
  v.throttled = throttled ? "true" : nvml ? "false" : "unknown";
  for (std::size_t i = 0; i < ev.size(); ++i) v.evidence += (i ? "; " : "") + ev[i];
  return v;
}

std::map<std::string, std::string> conditions_context(bool clock_check_throttled) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.m);
  std::map<std::string, std::string> c;
  const bool nvml = s.dev && s.dev->available();
  c["nvml"] = !s.cuda ? "not applicable (simulated device)" : nvml ? "libnvidia-ml.so.1" : "absent: " + (s.dev ? s.dev->why() : "not opened");
  int others_before = -1, util_before = -1;
  if (nvml) {
    others_before = s.before.compute_processes;
    util_before = s.before.gpu_utilization_pct;
    c["gpu_serial"] = s.statics.serial;
    c["ecc_mode"] = s.statics.ecc;
    c["mig_mode"] = s.statics.mig;
    c["persistence_mode"] = s.statics.persistence;
  }
  const ConditionsVerdict v = judge_conditions(nvml, others_before, util_before, s.looks, clock_check_throttled);
  if (!s.cuda) return {{"nvml", c["nvml"]}};
  c["measurement_contended"] = v.contended;
  c["measurement_throttled"] = v.throttled;
  c["measurement_evidence"] = v.evidence;
  if (nvml) {
    nlohmann::json j;
    j["before"] = sample_json(s.before, others_before);
    j["this_process_counted_by_nvml"] = s.self < 0 ? nlohmann::json() : nlohmann::json(s.self == 1);
    for (const auto& [fam, x] : s.families) j["families"][fam] = sample_json(x, s.looks[fam].others);
    c["measurement_conditions"] = j.dump();
  }
  return c;
}

}  // namespace memhier
