#include "runtime/vmm.hpp"

#include "runtime/cu_check.hpp"
#include "runtime/cuda_check.hpp"

namespace memhier {

namespace {

// The driver functions used here, fetched once (runtime/cu_check.hpp).
struct Driver {
  decltype(&::cuDeviceGet) device_get = MEMHIER_DRIVER_FN(cuDeviceGet);
  decltype(&::cuDeviceGetAttribute) device_attribute = MEMHIER_DRIVER_FN(cuDeviceGetAttribute);
  decltype(&::cuMemGetAllocationGranularity) granularity = MEMHIER_DRIVER_FN(cuMemGetAllocationGranularity);
  decltype(&::cuMemAddressReserve) reserve = MEMHIER_DRIVER_FN(cuMemAddressReserve);
  decltype(&::cuMemAddressFree) address_free = MEMHIER_DRIVER_FN(cuMemAddressFree);
  decltype(&::cuMemCreate) create = MEMHIER_DRIVER_FN(cuMemCreate);
  decltype(&::cuMemRelease) release = MEMHIER_DRIVER_FN(cuMemRelease);
  decltype(&::cuMemMap) map = MEMHIER_DRIVER_FN(cuMemMap);
  decltype(&::cuMemUnmap) unmap = MEMHIER_DRIVER_FN(cuMemUnmap);
  decltype(&::cuMemSetAccess) set_access = MEMHIER_DRIVER_FN(cuMemSetAccess);
};
const Driver& drv() {
  static const Driver d;  // throws (once per call until it succeeds) when the driver lacks a function
  return d;
}

CUmemAllocationProp device_prop(CUdevice d) {
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = d;
  return prop;
}

CUdevice device_of(int device) {
  MEMHIER_CUDA(cudaFree(nullptr));  // the runtime initialises the driver and the primary context
  CUdevice d = 0;
  MEMHIER_CU(drv().device_get(&d, device));
  return d;
}

}  // namespace

std::uint64_t vmm_granularity(int device, std::string* why) {
  try {
    const CUdevice d = device_of(device);
    int supported = 0;
    MEMHIER_CU(drv().device_attribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, d));
    if (!supported) {
      if (why) *why = "the device does not support CUDA virtual memory management";
      return 0;
    }
    const CUmemAllocationProp prop = device_prop(d);
    size_t g = 0;
    MEMHIER_CU(drv().granularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    return g;
  } catch (const std::exception& e) {
    if (why) *why = e.what();
    return 0;
  }
}

VmmMapping::VmmMapping(int device, std::uint64_t bytes, std::uint64_t chunk, std::uint64_t gap)
    : chunk_(chunk), gap_(gap) {
  if (chunk == 0) throw std::invalid_argument("VmmMapping: chunk must be positive");
  const CUdevice d = device_of(device);
  const CUmemAllocationProp prop = device_prop(d);
  const std::uint64_t n = (bytes + chunk - 1) / chunk;
  extent_ = n * (chunk + gap);
  MEMHIER_CU(drv().reserve(&base_, extent_, chunk, 0, 0));
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  try {
    for (std::uint64_t c = 0; c < n; ++c) {
      CUmemGenericAllocationHandle h = 0;
      MEMHIER_CU(drv().create(&h, chunk, &prop, 0));
      const CUresult mapped = drv().map(base_ + c * (chunk + gap), chunk, 0, h, 0);
      // The mapping keeps the memory alive: the handle is released at once either way.
      MEMHIER_CU_NOEXCEPT(drv().release(h));
      MEMHIER_CU(mapped);
      ++mapped_;
      if (gap) MEMHIER_CU(drv().set_access(base_ + c * (chunk + gap), chunk, &access, 1));
    }
    if (!gap) MEMHIER_CU(drv().set_access(base_, n * chunk, &access, 1));
  } catch (...) {
    release();
    throw;
  }
}

VmmMapping::~VmmMapping() { release(); }

void VmmMapping::release() noexcept {
  if (!base_) return;
  if (gap_ == 0 && mapped_) {
    MEMHIER_CU_NOEXCEPT(drv().unmap(base_, mapped_ * chunk_));
  } else {
    for (std::uint64_t c = 0; c < mapped_; ++c) MEMHIER_CU_NOEXCEPT(drv().unmap(base_ + c * (chunk_ + gap_), chunk_));
  }
  MEMHIER_CU_NOEXCEPT(drv().address_free(base_, extent_));
  base_ = 0;
  mapped_ = 0;
}

}  // namespace memhier
