// Row softmax, forward and backward (memory_kernels.hpp); rows of `hidden` elements held in
// registers as in norm_kernels.cu.
#include "sim/kernels/cuda_check.hpp"
#include "sim/kernels/memory_kernels.hpp"
#include "sim/kernels/row_launch.hpp"
#include "sim/kernels/vec_bf16.cuh"

namespace sim::kernels {

namespace {

// y = exp(x - max x) / sum exp(x - max x)
__global__ void __launch_bounds__(kRowThreadsMax)
    softmax_fwd_kernel(const bf16* __restrict__ x, bf16* __restrict__ y, int hidden) {
  __shared__ float scratch[32];
  const int nvec = hidden / kVec;
  const size_t base = static_cast<size_t>(blockIdx.x) * hidden;
  float v[kRowVecs][kVec];
  float mx = -INFINITY;
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
      load_vec(x + base + vi * kVec, v[k]);
#pragma unroll
      for (int j = 0; j < kVec; ++j) mx = fmaxf(mx, v[k][j]);
    }
  }
  mx = block_max(mx, scratch);
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        v[k][j] = __expf(v[k][j] - mx);
        sum += v[k][j];
      }
    }
  }
  const float inv = 1.0f / block_sum(sum, scratch);
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
#pragma unroll
      for (int j = 0; j < kVec; ++j) v[k][j] *= inv;
      store_vec(y + base + vi * kVec, v[k]);
    }
  }
}

// dx = y * (dy - sum(y * dy))
__global__ void __launch_bounds__(kRowThreadsMax)
    softmax_bwd_kernel(const bf16* __restrict__ y, const bf16* __restrict__ dy, bf16* __restrict__ dx, int hidden) {
  __shared__ float scratch[32];
  const int nvec = hidden / kVec;
  const size_t base = static_cast<size_t>(blockIdx.x) * hidden;
  float yv[kRowVecs][kVec], dv[kRowVecs][kVec];
  float dot = 0.0f;
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
      load_vec(y + base + vi * kVec, yv[k]);
      load_vec(dy + base + vi * kVec, dv[k]);
#pragma unroll
      for (int j = 0; j < kVec; ++j) dot += yv[k][j] * dv[k][j];
    }
  }
  dot = block_sum(dot, scratch);
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
      float out[kVec];
#pragma unroll
      for (int j = 0; j < kVec; ++j) out[j] = yv[k][j] * (dv[k][j] - dot);
      store_vec(dx + base + vi * kVec, out);
    }
  }
}

}  // namespace

void softmax_fwd(const bf16* x, bf16* y, int64_t rows, int64_t hidden, cudaStream_t stream) {
  softmax_fwd_kernel<<<static_cast<unsigned>(rows), row_threads(hidden), 0, stream>>>(x, y, static_cast<int>(hidden));
  CUDA_CHECK_LAUNCH();
}

void softmax_bwd(const bf16* y, const bf16* dy, bf16* dx, int64_t rows, int64_t hidden, cudaStream_t stream) {
  softmax_bwd_kernel<<<static_cast<unsigned>(rows), row_threads(hidden), 0, stream>>>(y, dy, dx,
                                                                                      static_cast<int>(hidden));
  CUDA_CHECK_LAUNCH();
}

}  // namespace sim::kernels
