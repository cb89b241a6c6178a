#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <algorithm>

#include "sim/kernels/checks.hpp"
#include "sim/kernels/cuda_check.hpp"
#include "sim/kernels/host/dtype.hpp"

namespace sim::kernels {

namespace {

__device__ __forceinline__ uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class T>
__device__ __forceinline__ T convert(float v);
template <>
__device__ __forceinline__ __nv_bfloat16 convert<__nv_bfloat16>(float v) {
  return __float2bfloat16(v);
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 convert<__nv_fp8_e4m3>(float v) {
  return __nv_fp8_e4m3(v);
}
template <>
__device__ __forceinline__ float convert<float>(float v) {
  return v;
}

template <class T>
__global__ void fill_uniform_kernel(T* data, size_t count, uint64_t seed, float lo, float span) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    const uint64_t bits = splitmix64(seed * 0x2545f4914f6cdd1dull + i);
    const float u = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);  // 24 bits: [0, 1)
    data[i] = convert<T>(lo + span * u);
  }
}

__global__ void fill_rank_pattern_kernel(__nv_bfloat16* data, size_t count, int rank) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    data[i] = __float2bfloat16(static_cast<float>((i + static_cast<size_t>(rank)) % 3));
}

unsigned grid_for(size_t count) { return static_cast<unsigned>(std::clamp<size_t>((count + 255) / 256, 1, 65536)); }

}  // namespace

size_t dtype_bytes(DType t) {
  switch (t) {
    case DType::BF16: return 2;
    case DType::FP8_E4M3: return 1;
    case DType::F32: return 4;
  }
  return 0;
}

void fill_uniform(void* data, size_t count, DType t, uint64_t seed, float lo, float hi, cudaStream_t stream) {
  if (count == 0) return;
  switch (t) {
    case DType::BF16:
      fill_uniform_kernel<<<grid_for(count), 256, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count, seed, lo,
                                                               hi - lo);
      break;
    case DType::FP8_E4M3:
      fill_uniform_kernel<<<grid_for(count), 256, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(data), count, seed, lo,
                                                               hi - lo);
      break;
    case DType::F32:
      fill_uniform_kernel<<<grid_for(count), 256, 0, stream>>>(static_cast<float*>(data), count, seed, lo, hi - lo);
      break;
  }
  CUDA_CHECK_LAUNCH();
}

void fill_rank_pattern(void* data, size_t count, int rank, cudaStream_t stream) {
  if (count == 0) return;
  fill_rank_pattern_kernel<<<grid_for(count), 256, 0, stream>>>(static_cast<__nv_bfloat16*>(data), count, rank);
  CUDA_CHECK_LAUNCH();
}

std::vector<double> download(const void* data, size_t count, DType t) {
  std::vector<unsigned char> raw(count * dtype_bytes(t));
  if (!raw.empty()) CUDA_CHECK(cudaMemcpy(raw.data(), data, raw.size(), cudaMemcpyDeviceToHost));
  std::vector<double> out(count);
  for (size_t i = 0; i < count; ++i) {
    switch (t) {
      case DType::BF16: {
        uint16_t bits;
        std::memcpy(&bits, raw.data() + 2 * i, 2);
        out[i] = bf16_to_float(bits);
        break;
      }
      case DType::FP8_E4M3: out[i] = fp8_e4m3_to_float(raw[i]); break;
      case DType::F32: {
        float f;
        std::memcpy(&f, raw.data() + 4 * i, 4);
        out[i] = f;
        break;
      }
    }
  }
  return out;
}

}  // namespace sim::kernels
