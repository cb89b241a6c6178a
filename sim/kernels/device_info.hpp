// The GPU being measured: what the suites size their problems by and provenance records.
#pragma once

#include <cstdint>
#include <string>

namespace sim::kernels {

struct DeviceInfo {
  int index = 0;
  std::string name;          // "NVIDIA H200"
  int major = 0, minor = 0;  // compute capability
  int sms = 0;               // streaming multiprocessors
  int64_t l2_bytes = 0;
  int64_t hbm_bytes = 0;    // total device memory
  int64_t smem_optin = 0;   // shared memory per block with opt-in, bytes
  int rated_clock_khz = 0;  // cudaDevAttrClockRate (the maximum, not the current clock)

  int sm_version() const { return major * 10 + minor; }  // 90 for sm_90
  bool has_fp8() const { return sm_version() >= 89; }
};

// Makes `index` the current device and describes it. Throws CudaError.
DeviceInfo query_device(int index);

// Free device memory on the current device, bytes.
int64_t free_device_memory();

}  // namespace sim::kernels
