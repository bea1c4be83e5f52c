#include "runtime/device_info.hpp"
#include "runtime/nvml.hpp"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>

#include "runtime/cuda_check.hpp"

namespace memhier {

double DeviceDescription::theoretical_dram_bytes_per_second() const {
  return 2.0 * static_cast<double>(mem_clock_khz) * 1e3 * mem_bus_width_bits / 8.0;
}

std::string DeviceDescription::sm_tag() const {
  return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor);
}

std::string DeviceDescription::slug() const {
  std::string s;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (!s.empty() && s.back() != '-')
      s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "unknown-gpu" : s;
}

std::map<std::string, std::string> DeviceDescription::context() const {
  std::map<std::string, std::string> c;
  c["device_backend"] = "cuda";
  c["device_index"] = std::to_string(index);
  c["gpu_name"] = name;
  c["gpu_slug"] = slug();
  c["compute_capability"] = std::to_string(cc_major) + "." + std::to_string(cc_minor);
  c["sm_tag"] = sm_tag();
  c["sm_count"] = std::to_string(sm_count);
  c["sm_clock_khz"] = std::to_string(sm_clock_khz);
  c["mem_clock_khz"] = std::to_string(mem_clock_khz);
  c["mem_bus_width_bits"] = std::to_string(mem_bus_width_bits);
  c["l2_cache_bytes"] = std::to_string(l2_bytes);
  c["smem_per_sm_bytes"] = std::to_string(smem_per_sm_bytes);
  c["smem_per_block_optin_bytes"] = std::to_string(smem_per_block_optin_bytes);
  c["global_mem_bytes"] = std::to_string(global_mem_bytes);
  c["driver_version"] = driver_version;
  c["driver_version_source"] = driver_version_source;
  if (!uuid.empty()) c["gpu_uuid"] = uuid;
  c["cuda_driver_api"] = std::to_string(cuda_driver_api);
  c["cuda_runtime"] = std::to_string(cuda_runtime);
  std::ostringstream bw;
  bw.precision(6);
  bw << std::scientific << theoretical_dram_bytes_per_second();
  c["theoretical_dram_bytes_per_second"] = bw.str();
  return c;
}

int cuda_device_count(std::string* why) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
    cudaGetLastError();
    return 0;
  }
  if (n == 0 && why) *why = "the CUDA driver reports no device";
  return n;
}

namespace {
int attr(cudaDeviceAttr a, int dev) {
  int v = 0;
  MEMHIER_CUDA(cudaDeviceGetAttribute(&v, a, dev));
  return v;
}

std::string driver_from_nvml() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) return {};
  using init_fn = int (*)();
  using ver_fn = int (*)(char*, unsigned);
  using shut_fn = int (*)();
  auto init = reinterpret_cast<init_fn>(dlsym(lib, "nvmlInit_v2"));
  auto ver = reinterpret_cast<ver_fn>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  auto shut = reinterpret_cast<shut_fn>(dlsym(lib, "nvmlShutdown"));
  std::string out;
  if (init && ver && init() == 0) {
    char buf[96] = {};
    if (ver(buf, sizeof buf) == 0) out = buf;
    if (shut) shut();
  }
  dlclose(lib);
  return out;
}

std::string driver_from_procfs() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  if (!f || !std::getline(f, line)) return {};
  std::smatch m;
  if (std::regex_search(line, m, std::regex(R"((\d+\.\d+(\.\d+)?))"))) return m[1];
  return {};
}
}  // namespace

std::string read_driver_version(std::string* source) {
  std::string v = driver_from_nvml();
  if (!v.empty()) {
    if (source) *source = "nvml";
    return v;
  }
  v = driver_from_procfs();
  if (!v.empty()) {
    if (source) *source = "procfs";
    return v;
  }
  int api = 0;
  cudaDriverGetVersion(&api);
  if (source) *source = "cuda-api";
  return "cuda-" + std::to_string(api / 1000) + "." + std::to_string((api % 1000) / 10);
}

DeviceDescription describe_device(int index) {
  std::string why;
  int n = cuda_device_count(&why);
  if (n == 0) throw std::runtime_error("no CUDA device: " + why);
  if (index < 0 || index >= n)
    throw std::runtime_error("device index " + std::to_string(index) + " out of range: this host has " +
                             std::to_string(n) + " CUDA device(s), cuda:0 to cuda:" + std::to_string(n - 1));
  cudaDeviceProp p{};
  MEMHIER_CUDA(cudaGetDeviceProperties(&p, index));
  DeviceDescription d;
  d.index = index;
  d.name = p.name;
  d.cc_major = p.major;
  d.cc_minor = p.minor;
  d.sm_count = p.multiProcessorCount;
  d.sm_clock_khz = attr(cudaDevAttrClockRate, index);
  d.mem_clock_khz = attr(cudaDevAttrMemoryClockRate, index);
  d.mem_bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth, index);
  d.l2_bytes = static_cast<std::uint64_t>(attr(cudaDevAttrL2CacheSize, index));
  d.smem_per_sm_bytes = static_cast<std::uint64_t>(attr(cudaDevAttrMaxSharedMemoryPerMultiprocessor, index));
  d.smem_per_block_optin_bytes = static_cast<std::uint64_t>(attr(cudaDevAttrMaxSharedMemoryPerBlockOptin, index));
  d.global_mem_bytes = p.totalGlobalMem;
  d.const_mem_bytes = p.totalConstMem;
  d.max_threads_per_sm = attr(cudaDevAttrMaxThreadsPerMultiProcessor, index);
  MEMHIER_CUDA(cudaDriverGetVersion(&d.cuda_driver_api));
  MEMHIER_CUDA(cudaRuntimeGetVersion(&d.cuda_runtime));
  d.driver_version = read_driver_version(&d.driver_version_source);
  d.uuid = cuda_uuid_text(reinterpret_cast<const unsigned char(&)[16]>(p.uuid.bytes));
  return d;
}

}  // namespace memhier
