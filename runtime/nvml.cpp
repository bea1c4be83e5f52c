#include "runtime/nvml.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>

namespace memhier {

namespace {

// The few NVML types used, as nvml.h declares them (no header needed to build).
using nvml_ret = int;
using nvml_dev = void*;
constexpr nvml_ret kSuccess = 0, kInsufficientSize = 7;
constexpr int kClockSm = 1, kClockMem = 2;
struct ProcessInfo {  // nvmlProcessInfo_v2_t, what the _v3 process queries fill
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id, compute_instance_id;
};
struct Utilization {  // nvmlUtilization_t
  unsigned gpu, memory;
};

template <typename F>
F sym(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

std::string enable_state(nvml_ret r, int v) {
  if (r != kSuccess) return "n/a";
  return v ? "enabled" : "disabled";
}

}  // namespace

struct NvmlDevice::Api {
  void* lib = nullptr;
  nvml_ret (*init)() = nullptr;
  nvml_ret (*shutdown)() = nullptr;
  const char* (*error_string)(nvml_ret) = nullptr;
  nvml_ret (*by_pci)(const char*, nvml_dev*) = nullptr;
  nvml_ret (*clock)(nvml_dev, int, unsigned*) = nullptr;
  nvml_ret (*reasons)(nvml_dev, unsigned long long*) = nullptr;
  nvml_ret (*processes)(nvml_dev, unsigned*, ProcessInfo*) = nullptr;
  nvml_ret (*utilization)(nvml_dev, Utilization*) = nullptr;
  nvml_ret (*serial)(nvml_dev, char*, unsigned) = nullptr;
  nvml_ret (*uuid)(nvml_dev, char*, unsigned) = nullptr;
  nvml_ret (*ecc)(nvml_dev, int*, int*) = nullptr;
  nvml_ret (*mig)(nvml_dev, unsigned*, unsigned*) = nullptr;
  nvml_ret (*persistence)(nvml_dev, int*) = nullptr;
  bool initialized = false;

  std::string text(nvml_ret r) const {
    return error_string ? std::string(error_string(r)) : "NVML error " + std::to_string(r);
  }
  ~Api() {
    if (initialized && shutdown) shutdown();
    if (lib) dlclose(lib);
  }
};

std::string nvml_reason_names(std::uint64_t bits) {
  static const std::pair<std::uint64_t, const char*> names[] = {
      {nvml_reason::kGpuIdle, "gpu_idle"},         {nvml_reason::kApplicationsClocks, "applications_clocks"},
      {nvml_reason::kSwPowerCap, "sw_power_cap"},  {nvml_reason::kHwSlowdown, "hw_slowdown"},
      {nvml_reason::kSyncBoost, "sync_boost"},     {nvml_reason::kSwThermal, "sw_thermal"},
      {nvml_reason::kHwThermal, "hw_thermal"},     {nvml_reason::kHwPowerBrake, "hw_power_brake"},
      {nvml_reason::kDisplayClocks, "display_clocks"}};
  std::string s;
  for (const auto& [bit, name] : names)
    if (bits & bit) s += (s.empty() ? "" : ",") + std::string(name);
  return s.empty() ? "none" : s;
}

std::unique_ptr<NvmlDevice> NvmlDevice::open(const std::string& pci_bus_id) {
  std::unique_ptr<NvmlDevice> d(new NvmlDevice());
  auto api = std::make_shared<Api>();
  api->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!api->lib) {
    d->why_ = "libnvidia-ml.so.1 not found (no NVIDIA driver's NVML on this host)";
    return d;
  }
  api->init = sym<decltype(api->init)>(api->lib, "nvmlInit_v2");
  api->shutdown = sym<decltype(api->shutdown)>(api->lib, "nvmlShutdown");
  api->error_string = sym<decltype(api->error_string)>(api->lib, "nvmlErrorString");
  api->by_pci = sym<decltype(api->by_pci)>(api->lib, "nvmlDeviceGetHandleByPciBusId_v2");
  api->clock = sym<decltype(api->clock)>(api->lib, "nvmlDeviceGetClockInfo");
  api->reasons = sym<decltype(api->reasons)>(api->lib, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!api->reasons) api->reasons = sym<decltype(api->reasons)>(api->lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
  api->processes = sym<decltype(api->processes)>(api->lib, "nvmlDeviceGetComputeRunningProcesses_v3");
  api->utilization = sym<decltype(api->utilization)>(api->lib, "nvmlDeviceGetUtilizationRates");
  api->serial = sym<decltype(api->serial)>(api->lib, "nvmlDeviceGetSerial");
  api->uuid = sym<decltype(api->uuid)>(api->lib, "nvmlDeviceGetUUID");
  api->ecc = sym<decltype(api->ecc)>(api->lib, "nvmlDeviceGetEccMode");
  api->mig = sym<decltype(api->mig)>(api->lib, "nvmlDeviceGetMigMode");
  api->persistence = sym<decltype(api->persistence)>(api->lib, "nvmlDeviceGetPersistenceMode");
  if (!api->init || !api->by_pci) {
    d->why_ = "libnvidia-ml.so.1 lacks nvmlInit_v2 or nvmlDeviceGetHandleByPciBusId_v2";
    return d;
  }
  if (nvml_ret r = api->init(); r != kSuccess) {
    d->why_ = "nvmlInit failed: " + api->text(r);
    return d;
  }
  api->initialized = true;
  nvml_dev h = nullptr;
  if (nvml_ret r = api->by_pci(pci_bus_id.c_str(), &h); r != kSuccess || !h) {
    d->why_ = "NVML does not find the device at PCI " + pci_bus_id + ": " + api->text(r);
    return d;
  }
  d->api_ = api;
  d->handle_ = h;
  return d;
}

NvmlDevice::~NvmlDevice() = default;

NvmlSample NvmlDevice::sample() const {
  NvmlSample s;
  if (!available()) {
    s.error = why_;
    return s;
  }
  const Api& a = *api_;
  s.ok = true;
  if (a.clock) {
    a.clock(handle_, kClockSm, &s.sm_clock_mhz);
    a.clock(handle_, kClockMem, &s.mem_clock_mhz);
  }
  unsigned long long r = 0;
  if (a.reasons && a.reasons(handle_, &r) == kSuccess) s.reasons = r;
  if (a.processes) {
    ProcessInfo info[64];
    unsigned n = 64;
    const nvml_ret pr = a.processes(handle_, &n, info);
    if (pr == kSuccess) {
      s.compute_processes = static_cast<int>(n);
      for (unsigned i = 0; i < n; ++i) s.pids.push_back(info[i].pid);
    } else if (pr == kInsufficientSize) {
      s.compute_processes = static_cast<int>(n);  // more than 64: the count alone
    }
  }
  Utilization u{};
  if (a.utilization && a.utilization(handle_, &u) == kSuccess) {
    s.gpu_utilization_pct = static_cast<int>(u.gpu);
    s.memory_utilization_pct = static_cast<int>(u.memory);
  }
  return s;
}

NvmlStatic NvmlDevice::statics() const {
  NvmlStatic st{"", "", "n/a", "n/a", "n/a"};
  if (!available()) return st;
  const Api& a = *api_;
  char buf[96] = {0};
  if (a.serial && a.serial(handle_, buf, sizeof buf) == kSuccess) st.serial = buf;
  buf[0] = 0;
  if (a.uuid && a.uuid(handle_, buf, sizeof buf) == kSuccess) st.uuid = buf;
  int cur = 0, pending = 0;
  if (a.ecc) st.ecc = enable_state(a.ecc(handle_, &cur, &pending), cur);
  unsigned mc = 0, mp = 0;
  if (a.mig) st.mig = enable_state(a.mig(handle_, &mc, &mp), static_cast<int>(mc));
  int p = 0;
  if (a.persistence) st.persistence = enable_state(a.persistence(handle_, &p), p);
  return st;
}

std::string cuda_pci_bus_id(int index) {
  char buf[32] = {0};
  if (cudaDeviceGetPCIBusId(buf, sizeof buf, index) != cudaSuccess) return "";
  return buf;
}

std::string cuda_uuid_text(const unsigned char (&b)[16]) {
  char s[64];
  std::snprintf(s, sizeof s, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return s;
}

}  // namespace memhier
