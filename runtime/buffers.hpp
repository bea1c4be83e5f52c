// RAII owners of device resources: device memory, pinned (optionally mapped) host memory, a texture
// object over linear memory, and a constant-memory symbol upload. Move-only.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "runtime/cuda_check.hpp"

namespace memhier {

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count) MEMHIER_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  void reset() noexcept {
    if (ptr_) MEMHIER_CUDA_NOEXCEPT(cudaFree(ptr_));
    ptr_ = nullptr;
    count_ = 0;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(const T* src, std::size_t count, std::size_t offset = 0) {
    MEMHIER_CUDA(cudaMemcpy(ptr_ + offset, src, count * sizeof(T), cudaMemcpyHostToDevice));
  }
  void upload(const std::vector<T>& v) { upload(v.data(), v.size()); }
  std::vector<T> download(std::size_t count, std::size_t offset = 0) const {
    std::vector<T> v(count);
    if (count) MEMHIER_CUDA(cudaMemcpy(v.data(), ptr_ + offset, count * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
  }
  std::vector<T> download() const { return download(count_); }
  void zero() {
    if (count_) MEMHIER_CUDA(cudaMemset(ptr_, 0, bytes()));
  }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

// Pinned (page-locked) host memory from cudaHostAlloc: copy engines move it without staging, and
// with cudaHostAllocMapped kernels reach it at device_ptr() over the host link (zero-copy).
template <typename T>
class PinnedHostBuffer {
 public:
  PinnedHostBuffer() = default;
  explicit PinnedHostBuffer(std::size_t count, unsigned flags = cudaHostAllocDefault) : count_(count) {
    if (!count) return;
    MEMHIER_CUDA(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T), flags));
    if (flags & cudaHostAllocMapped) {
      try {
        MEMHIER_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(&dev_), ptr_, 0));
      } catch (...) {
        reset();
        throw;
      }
    }
  }
  ~PinnedHostBuffer() { reset(); }
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer(PinnedHostBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), dev_(std::exchange(o.dev_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedHostBuffer& operator=(PinnedHostBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      dev_ = std::exchange(o.dev_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  void reset() noexcept {
    if (ptr_) MEMHIER_CUDA_NOEXCEPT(cudaFreeHost(ptr_));
    ptr_ = nullptr;
    dev_ = nullptr;
    count_ = 0;
  }
  T* get() const { return ptr_; }         // the host's address
  T* device_ptr() const { return dev_; }  // the device's address (mapped only; nullptr otherwise)
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  T* dev_ = nullptr;
  std::size_t count_ = 0;
};

// A texture object over linear device memory (tex1Dfetch); texture references are gone in CUDA 13.
class TextureObject {
 public:
  TextureObject() = default;
  template <typename T>
  TextureObject(const T* ptr, std::size_t count) {
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = const_cast<T*>(ptr);
    res.res.linear.desc = cudaCreateChannelDesc<T>();
    res.res.linear.sizeInBytes = count * sizeof(T);
    cudaTextureDesc td{};
    td.readMode = cudaReadModeElementType;
    MEMHIER_CUDA(cudaCreateTextureObject(&tex_, &res, &td, nullptr));
  }
  ~TextureObject() {
    if (tex_) MEMHIER_CUDA_NOEXCEPT(cudaDestroyTextureObject(tex_));
  }
  TextureObject(const TextureObject&) = delete;
  TextureObject& operator=(const TextureObject&) = delete;
  TextureObject(TextureObject&& o) noexcept : tex_(std::exchange(o.tex_, 0)) {}
  TextureObject& operator=(TextureObject&& o) noexcept {
    if (this != &o) {
      if (tex_) MEMHIER_CUDA_NOEXCEPT(cudaDestroyTextureObject(tex_));
      tex_ = std::exchange(o.tex_, 0);
    }
    return *this;
  }
  cudaTextureObject_t get() const { return tex_; }

 private:
  cudaTextureObject_t tex_ = 0;
};

// A __constant__ symbol holding data for one experiment: the constructor uploads (checking the
// size), the destructor clears what was uploaded, so no experiment finds the previous one's data.
// The symbol itself is static (it lives as long as the module).
template <typename T, std::size_t N>
class ConstantUpload {
 public:
  ConstantUpload(const T (&symbol)[N], const T* src, std::size_t count) : symbol_(symbol), count_(count) {
    if (count > N) throw std::length_error("constant-memory upload larger than its symbol");
    MEMHIER_CUDA(cudaMemcpyToSymbol(symbol_, src, count * sizeof(T)));
  }
  ~ConstantUpload() {
    std::vector<T> zeros(count_);
    MEMHIER_CUDA_NOEXCEPT(cudaMemcpyToSymbol(symbol_, zeros.data(), count_ * sizeof(T)));
  }
  ConstantUpload(const ConstantUpload&) = delete;
  ConstantUpload& operator=(const ConstantUpload&) = delete;

 private:
  const T (&symbol_)[N];
  std::size_t count_;
};

// Uploads host data into a __constant__ symbol (no clean-up); checks the size.
template <typename T, std::size_t N>
void upload_constant(const T (&symbol)[N], const T* src, std::size_t count) {
  if (count > N) throw std::length_error("constant-memory upload larger than its symbol");
  MEMHIER_CUDA(cudaMemcpyToSymbol(symbol, src, count * sizeof(T)));
}

}  // namespace memhier
