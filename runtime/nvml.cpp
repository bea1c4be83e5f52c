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
constexpr unsigned kMaxNvLinks = 36;
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
  nvml_ret (*pcie_gen_max)(nvml_dev, unsigned*) = nullptr;
  nvml_ret (*pcie_width_max)(nvml_dev, unsigned*) = nullptr;
  nvml_ret (*pcie_gen_cur)(nvml_dev, unsigned*) = nullptr;
  nvml_ret (*pcie_width_cur)(nvml_dev, unsigned*) = nullptr;
  nvml_ret (*nvlink_state)(nvml_dev, unsigned, int*) = nullptr;         // nvmlEnableState_t
  nvml_ret (*nvlink_version)(nvml_dev, unsigned, unsigned*) = nullptr;  // nvmlNvlinkVersion_t
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
  api->pcie_gen_max = sym<decltype(api->pcie_gen_max)>(api->lib, "nvmlDeviceGetMaxPcieLinkGeneration");
  api->pcie_width_max = sym<decltype(api->pcie_width_max)>(api->lib, "nvmlDeviceGetMaxPcieLinkWidth");
  api->pcie_gen_cur = sym<decltype(api->pcie_gen_cur)>(api->lib, "nvmlDeviceGetCurrPcieLinkGeneration");
  api->pcie_width_cur = sym<decltype(api->pcie_width_cur)>(api->lib, "nvmlDeviceGetCurrPcieLinkWidth");
  api->nvlink_state = sym<decltype(api->nvlink_state)>(api->lib, "nvmlDeviceGetNvLinkState");
  api->nvlink_version = sym<decltype(api->nvlink_version)>(api->lib, "nvmlDeviceGetNvLinkVersion");
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

NvmlLinks NvmlDevice::links() const {
  NvmlLinks l;
  if (!available()) return l;
  const Api& a = *api_;
  auto get = [&](nvml_ret (*f)(nvml_dev, unsigned*), unsigned* out) {
    unsigned v = 0;
    if (f && f(handle_, &v) == kSuccess) *out = v;
  };
  get(a.pcie_gen_max, &l.pcie_gen_max);
  get(a.pcie_width_max, &l.pcie_width_max);
  get(a.pcie_gen_cur, &l.pcie_gen_current);
  get(a.pcie_width_cur, &l.pcie_width_current);
  if (a.nvlink_state) {
    // NVML_NVLINK_MAX_LINKS is 18 in the headers of the H100's drivers and 36 in later ones; a link
    // the device lacks answers an error (invalid argument or not supported) and is skipped.
    for (unsigned link = 0; link < kMaxNvLinks; ++link) {
      int active = 0;
      if (a.nvlink_state(handle_, link, &active) != kSuccess || active != 1) continue;
      ++l.nvlink_active;
      unsigned v = 0;
      if (l.nvlink_version == 0 && a.nvlink_version && a.nvlink_version(handle_, link, &v) == kSuccess)
        l.nvlink_version = v;
    }
  }
  return l;
}

double pcie_bytes_per_second(unsigned gen, unsigned width) {
  static const double gts[] = {0, 2.5e9, 5e9, 8e9, 16e9, 32e9, 64e9};
  if (gen == 0 || gen >= sizeof gts / sizeof gts[0] || width == 0) return 0;
  const double encoding = gen < 3 ? 8.0 / 10.0 : 128.0 / 130.0;
  return width * gts[gen] * encoding / 8.0;
}

std::string pcie_link_text(unsigned gen, unsigned width) {
  return "PCIe gen" + std::to_string(gen) + " x" + std::to_string(width);
}

std::string nvlink_version_text(unsigned v) {
  static const char* names[] = {"", "1", "2", "2.2", "3", "3.1", "4", "5"};
  return v < sizeof names / sizeof names[0] ? names[v] : "";
}

double nvlink_bytes_per_second_per_link(unsigned v) {
  // NVLink 1.0: 8 lanes x 20 Gb/s per direction; 2.x: 8 x 25 Gb/s; 3.x: 4 x 50 Gb/s; 4.0: 2 x
  // 100 Gb/s (PAM4) — 25 GB/s per link and direction from 2.0 to 4.0 (V100: 6 links, 300 GB/s both
  // ways; A100: 12, 600 GB/s; H100: 18, 900 GB/s); 5.0: 50 GB/s (B200: 18 links, 1.8 TB/s).
  if (v == 1) return 20e9;
  if (v >= 2 && v <= 6) return 25e9;
  if (v == 7) return 50e9;
  return 0;
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
