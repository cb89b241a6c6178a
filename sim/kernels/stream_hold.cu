#include "sim/kernels/stream_hold.hpp"

namespace sim::kernels {

namespace {

__device__ __forceinline__ uint64_t global_ns() {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void spin_kernel(volatile uint32_t* flag, uint32_t generation, uint64_t timeout_ns) {
  const uint64_t start = global_ns();
  while (flag[0] < generation) {
    if (global_ns() - start > timeout_ns) {
      flag[1] = 1;
      return;
    }
    __nanosleep(200);
  }
}

__global__ void clock_probe_kernel(uint64_t window_ns, unsigned long long* out) {
  const uint64_t t0 = global_ns();
  const long long c0 = clock64();
  uint64_t t1 = t0;
  while (t1 - t0 < window_ns) t1 = global_ns();
  const long long c1 = clock64();
  out[0] = static_cast<unsigned long long>(c1 - c0);
  out[1] = t1 - t0;
}

}  // namespace

StreamHold::StreamHold() : flag_(2 * sizeof(uint32_t)) {
  flag_.as<uint32_t>()[0] = 0;
  flag_.as<uint32_t>()[1] = 0;
}

void StreamHold::hold(cudaStream_t stream, double timeout_s) {
  ++generation_;
  uint32_t* device_flag = nullptr;
  CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flag), flag_.get(), 0));
  spin_kernel<<<1, 1, 0, stream>>>(device_flag, generation_, static_cast<uint64_t>(timeout_s * 1e9));
  CUDA_CHECK_LAUNCH();
}

void StreamHold::release() { __atomic_store_n(&flag_.as<uint32_t>()[0], generation_, __ATOMIC_SEQ_CST); }

bool StreamHold::timed_out() {
  uint32_t* f = flag_.as<uint32_t>();
  return __atomic_exchange_n(&f[1], 0u, __ATOMIC_SEQ_CST) != 0;
}

double measure_sm_clock_mhz(cudaStream_t stream, double window_s) {
  DeviceBuffer out(2 * sizeof(unsigned long long));
  clock_probe_kernel<<<1, 1, 0, stream>>>(static_cast<uint64_t>(window_s * 1e9), out.as<unsigned long long>());
  CUDA_CHECK_LAUNCH();
  unsigned long long host[2] = {0, 0};
  CUDA_CHECK(cudaMemcpyAsync(host, out.get(), sizeof host, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return host[1] ? static_cast<double>(host[0]) * 1e3 / static_cast<double>(host[1]) : 0.0;
}

}  // namespace sim::kernels
