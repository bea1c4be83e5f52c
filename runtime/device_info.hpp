// Description of one CUDA device: every context key of DESIGN.md, the figures sweeps derive from,
// and the archive path components (sm tag, GPU slug, driver version).
#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace memhier {

struct DeviceDescription {
  int index = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;
  int mem_clock_khz = 0;
  int mem_bus_width_bits = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t smem_per_sm_bytes = 0;
  std::uint64_t smem_per_block_optin_bytes = 0;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t const_mem_bytes = 0;
  int max_threads_per_sm = 0;
  int cuda_driver_api = 0;  // cudaDriverGetVersion, e.g. 13000
  int cuda_runtime = 0;     // cudaRuntimeGetVersion
  std::string driver_version;  // the driver's own version string, e.g. 580.159.04
  std::string driver_version_source;  // nvml, procfs or cuda-api
  std::string uuid;  // the board's UUID as nvidia-smi writes it (GPU-...), from the CUDA runtime

  // 2 (DDR) × memory clock × bus width / 8, in bytes per second.
  double theoretical_dram_bytes_per_second() const;
  std::string sm_tag() const;  // e.g. sm_90
  std::string slug() const;    // e.g. nvidia-h100-80gb-hbm3
  std::map<std::string, std::string> context() const;
};

// Number of CUDA devices; 0 with the reason in *why when there is no usable driver or device.
int cuda_device_count(std::string* why);
// Throws memhier::CudaError / std::runtime_error with a clear message on a bad index.
DeviceDescription describe_device(int index);
// The driver version string: NVML when libnvidia-ml is present at run time, else
// /proc/driver/nvidia/version, else the CUDA driver API version. *source says which.
std::string read_driver_version(std::string* source);

}  // namespace memhier
