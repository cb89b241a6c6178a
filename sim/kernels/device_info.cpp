#include "sim/kernels/device_info.hpp"

#include "sim/kernels/cuda_check.hpp"

namespace sim::kernels {

DeviceInfo query_device(int index) {
  CUDA_CHECK(cudaSetDevice(index));
  cudaDeviceProp p{};
  CUDA_CHECK(cudaGetDeviceProperties(&p, index));
  DeviceInfo d;
  d.index = index;
  d.name = p.name;
  d.major = p.major;
  d.minor = p.minor;
  d.sms = p.multiProcessorCount;
  d.l2_bytes = p.l2CacheSize;
  d.hbm_bytes = static_cast<int64_t>(p.totalGlobalMem);
  d.smem_optin = static_cast<int64_t>(p.sharedMemPerBlockOptin);
  // CUDA 13 removed cudaDeviceProp::clockRate (CUDA 13.0 release notes, deprecated APIs).
  CUDA_CHECK(cudaDeviceGetAttribute(&d.rated_clock_khz, cudaDevAttrClockRate, index));
  return d;
}

int64_t free_device_memory() {
  size_t free_bytes = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return static_cast<int64_t>(free_bytes);
}

}  // namespace sim::kernels
