#include <gtest/gtest.h>

#include "runtime/device_info.hpp"

using namespace memhier;

TEST(DeviceContext, FillsEveryDesignKeyAndArchiveNames) {
  DeviceDescription d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.sm_clock_khz = 1980000;
  d.mem_clock_khz = 2619000;
  d.mem_bus_width_bits = 5120;
  d.l2_bytes = 50u << 20;
  d.smem_per_sm_bytes = 233472;
  d.driver_version = "580.159.04";
  d.cuda_driver_api = 13000;
  d.cuda_runtime = 13000;
  auto c = d.context();
  for (const char* k : {"device_backend", "gpu_name", "compute_capability", "sm_count", "sm_clock_khz",
                        "mem_clock_khz", "mem_bus_width_bits", "l2_cache_bytes", "smem_per_sm_bytes",
                        "driver_version", "cuda_driver_api", "cuda_runtime", "theoretical_dram_bytes_per_second"})
    EXPECT_TRUE(c.count(k)) << k;
  EXPECT_EQ(c["device_backend"], "cuda");
  EXPECT_EQ(c["compute_capability"], "9.0");
  EXPECT_EQ(d.sm_tag(), "sm_90");
  EXPECT_EQ(d.slug(), "nvidia-h100-80gb-hbm3");
  // 2 x 2619 MHz x 5120 bit / 8 = 3.352 TB/s
  EXPECT_NEAR(d.theoretical_dram_bytes_per_second(), 3.35232e12, 1e8);
  EXPECT_NEAR(std::stod(c["theoretical_dram_bytes_per_second"]), 3.35232e12, 1e8);
}

TEST(DeviceContext, DriverVersionHasASource) {
  std::string source;
  std::string v = read_driver_version(&source);
  EXPECT_FALSE(v.empty());
  EXPECT_TRUE(source == "nvml" || source == "procfs" || source == "cuda-api") << source;
}

TEST(DeviceContext, NoDeviceOrBadIndexIsAClearError) {
  std::string why;
  int n = cuda_device_count(&why);
  try {
    describe_device(n + 3);
    FAIL() << "describe_device accepted an index past the last device";
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_TRUE(m.find("out of range") != std::string::npos || m.find("no CUDA device") != std::string::npos) << m;
  }
}
