// Owning handles for device and pinned host memory (move-only; freed on destruction, so an
// exception anywhere in a suite releases what it allocated).
//
// Sizes are in bytes. A zero-byte buffer holds nullptr. Allocation failures throw CudaError.
#pragma once

#include <cstddef>
#include <utility>

#include "sim/kernels/cuda_check.hpp"

namespace sim::kernels {

// Owns `bytes` from Memory::allocate, returned by Memory::release on destruction.
template <class Memory>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t bytes) : bytes_(bytes) {
    if (bytes_) ptr_ = Memory::allocate(bytes_);
  }
  ~Buffer() {
    if (ptr_) Memory::release(ptr_);  // errors here are reported by the next checked call
  }
  Buffer(Buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  Buffer& operator=(Buffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

struct DeviceMemory {
  static void* allocate(size_t bytes) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) { cudaFree(p); }
};

// Page-locked, device-mapped host memory.
struct PinnedMemory {
  static void* allocate(size_t bytes) {
    void* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(&p, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    return p;
  }
  static void release(void* p) { cudaFreeHost(p); }
};

using DeviceBuffer = Buffer<DeviceMemory>;
using PinnedBuffer = Buffer<PinnedMemory>;

}  // namespace sim::kernels
