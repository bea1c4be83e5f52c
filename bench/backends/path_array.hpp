// The array a runner's loads read (grown on demand, zero-filled once) and a texture object over the
// part of it a texture-path request reads. CUDA runtime header (the runners' .cu files).
#pragma once
#include <cstdint>
#include <memory>

#include "runtime/buffers.hpp"

namespace memhier {

struct PathArray {
  DeviceBuffer<std::uint32_t> array;
  std::unique_ptr<TextureObject> tex;
  std::uint64_t tex_elements = 0;

  // At least `bytes` (a new array rounded up to a multiple of `granule` bytes); with `texture`, the
  // texture object spans exactly `bytes`.
  void prepare(std::uint64_t bytes, bool texture, std::uint64_t granule = 4) {
    if (array.bytes() < bytes) {
      tex.reset();
      tex_elements = 0;
      array.reset();
      array = DeviceBuffer<std::uint32_t>((bytes + granule - 1) / granule * granule / 4);
      array.zero();
    }
    if (texture && tex_elements != bytes / 4) {
      tex.reset();
      tex = std::make_unique<TextureObject>(array.get(), bytes / 4);
      tex_elements = bytes / 4;
    }
  }
};

}  // namespace memhier
