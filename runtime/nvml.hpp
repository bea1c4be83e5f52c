// Measurement conditions through NVML, loaded at run time with dlopen (no NVML header or library is
// needed to build; where libnvidia-ml.so.1 is absent the binary runs and says so): other compute
// processes on the device, GPU utilization, SM and memory clocks, the clock-event (throttle)
// reasons, ECC, MIG and persistence modes, the board's serial. docs/methodology.md, "Measurement
// conditions".
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace memhier {

// Clock-event ("throttle") reason bits as NVML defines them (nvmlClocksEventReasons).
namespace nvml_reason {
constexpr std::uint64_t kGpuIdle = 0x1;
constexpr std::uint64_t kApplicationsClocks = 0x2;
constexpr std::uint64_t kSwPowerCap = 0x4;
constexpr std::uint64_t kHwSlowdown = 0x8;
constexpr std::uint64_t kSyncBoost = 0x10;
constexpr std::uint64_t kSwThermal = 0x20;
constexpr std::uint64_t kHwThermal = 0x40;
constexpr std::uint64_t kHwPowerBrake = 0x80;
constexpr std::uint64_t kDisplayClocks = 0x100;
// The reasons that lower the clock below what the run asked for: power and thermal limits and
// hardware slowdown. Idle, applications clocks, sync boost and display clocks are settings or
// states, recorded but not a throttled measurement.
constexpr std::uint64_t kThrottling = kSwPowerCap | kHwSlowdown | kSwThermal | kHwThermal | kHwPowerBrake;
}  // namespace nvml_reason
// "sw_power_cap,hw_thermal" for a set of reason bits ("none" for 0).
std::string nvml_reason_names(std::uint64_t bits);

// One look at the device.
struct NvmlSample {
  bool ok = false;              // false: see `error`
  std::string error;
  unsigned sm_clock_mhz = 0, mem_clock_mhz = 0;
  std::uint64_t reasons = 0;    // clock-event reason bits
  int compute_processes = -1;   // every compute process on the device (this one included), -1 unknown
  std::vector<unsigned> pids;   // their pids as NVML gives them (the host's pid namespace)
  int gpu_utilization_pct = -1, memory_utilization_pct = -1;  // over NVML's last sample period
};

// What does not change during a run.
struct NvmlStatic {
  std::string serial, uuid;                        // "" when NVML does not say
  std::string ecc, mig, persistence;               // "enabled" / "disabled" / "n/a"
};

// The device's links as NVML reports them (host link: PCIe; GPU-to-GPU: NVLink). A field NVML
// refused (a VM may refuse PCIe queries) stays 0.
struct NvmlLinks {
  unsigned pcie_gen_max = 0, pcie_width_max = 0;          // the most the device and system allow
  unsigned pcie_gen_current = 0, pcie_width_current = 0;  // now (an idle GPU may have trained down)
  int nvlink_active = 0;         // NVLinks in state active
  unsigned nvlink_version = 0;   // nvmlNvlinkVersion_t of the first active link (0: none)
};

// PCIe theoretical bytes per second per direction: lanes x GT/s x encoding / 8 (8b/10b for gen 1
// and 2, 128b/130b from gen 3); 0 for an unknown generation or no lanes.
double pcie_bytes_per_second(unsigned gen, unsigned width);
// "PCIe gen5 x16"
std::string pcie_link_text(unsigned gen, unsigned width);
// nvmlNvlinkVersion_t (1: 1.0, 2: 2.0, 3: 2.2, 4: 3.0, 5: 3.1, 6: 4.0, 7: 5.0) as text ("4", "3.1"),
// "" when unknown.
std::string nvlink_version_text(unsigned version);
// Data rate of one NVLink per direction for an nvmlNvlinkVersion_t: 20 GB/s (1.0), 25 GB/s (2.x,
// 3.x, 4.0), 50 GB/s (5.0); 0 when unknown.
double nvlink_bytes_per_second_per_link(unsigned version);

// One CUDA device seen through NVML. open() never throws: an absent library, a failed nvmlInit or
// a device NVML does not find give a handle with available() false and the reason in why().
class NvmlDevice {
 public:
  static std::unique_ptr<NvmlDevice> open(const std::string& pci_bus_id);
  ~NvmlDevice();
  bool available() const { return handle_ != nullptr; }
  const std::string& why() const { return why_; }
  NvmlSample sample() const;
  NvmlStatic statics() const;
  NvmlLinks links() const;

 private:
  NvmlDevice() = default;
  struct Api;
  std::shared_ptr<Api> api_;
  void* handle_ = nullptr;
  std::string why_;
};

// The PCI bus id of CUDA device `index` ("0000:18:00.0"), "" on error.
std::string cuda_pci_bus_id(int index);
// A CUDA device's UUID (cudaDeviceProp::uuid) as nvidia-smi writes it ("GPU-8e6d...-...").
std::string cuda_uuid_text(const unsigned char (&bytes)[16]);

}  // namespace memhier
