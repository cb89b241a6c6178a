// RMSNorm and LayerNorm, forward and backward (memory_kernels.hpp).
//
// A row of up to kMaxRowHidden elements is held in registers: each of up to 512 threads owns up
// to kRowVecs 16-byte vectors at indices threadIdx.x + k * blockDim.x, so global accesses of a warp
// are contiguous. The backward kernels keep x and dy packed (uint4) to stay within the 128
// registers per thread that 512-thread blocks allow.
#include <algorithm>

#include "sim/kernels/cuda_check.hpp"
#include "sim/kernels/memory_kernels.hpp"
#include "sim/kernels/row_launch.hpp"
#include "sim/kernels/vec_bf16.cuh"

namespace sim::kernels {

namespace {

// Calls f(k, vi, xf, df, wf) for each of this thread's vectors of a row, with x and dy unpacked
// from the packed registers xr/dyr (read from x_row/dy_row first when Load) and the weights w.
template <bool Load, class F>
__device__ __forceinline__ void for_row_vectors(const bf16* __restrict__ x_row, const bf16* __restrict__ dy_row,
                                                const bf16* __restrict__ w, int nvec, uint4 (&xr)[kRowVecs],
                                                uint4 (&dyr)[kRowVecs], F f) {
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
      if (Load) {
        xr[k] = load_raw(x_row + vi * kVec);
        dyr[k] = load_raw(dy_row + vi * kVec);
      }
      float xf[kVec], df[kVec], wf[kVec];
      unpack(xr[k], xf);
      unpack(dyr[k], df);
      load_vec(w + vi * kVec, wf);
      f(k, vi, xf, df, wf);
    }
  }
}

// Loads this thread's vectors of a row into registers; returns the sum of f over its elements.
template <class F>
__device__ __forceinline__ float load_row(const bf16* __restrict__ row, int nvec, float (&xv)[kRowVecs][kVec], F f) {
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
      load_vec(row + vi * kVec, xv[k]);
#pragma unroll
      for (int j = 0; j < kVec; ++j) acc += f(xv[k][j]);
    }
  }
  return acc;
}

__global__ void __launch_bounds__(kRowThreadsMax)
    rmsnorm_fwd_kernel(const bf16* __restrict__ x, const bf16* __restrict__ w, bf16* __restrict__ y,
                       float* __restrict__ rstd, int hidden, float eps) {
  __shared__ float scratch[32];
  const int nvec = hidden / kVec;
  const size_t base = static_cast<size_t>(blockIdx.x) * hidden;
  float xv[kRowVecs][kVec];
  const float ss = load_row(x + base, nvec, xv, [](float v) { return v * v; });
  const float r = rsqrtf(block_sum(ss, scratch) / hidden + eps);
  if (threadIdx.x == 0) rstd[blockIdx.x] = r;
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
      float wv[kVec], out[kVec];
      load_vec(w + vi * kVec, wv);
#pragma unroll
      for (int j = 0; j < kVec; ++j) out[j] = xv[k][j] * r * wv[j];
      store_vec(y + base + vi * kVec, out);
    }
  }
}

// dx = r*w*dy - x * r^3 * sum(dy*w*x)/hidden;  dw += dy*x*r over the block's rows.
__global__ void __launch_bounds__(kRowThreadsMax)
    rmsnorm_bwd_kernel(const bf16* __restrict__ dy, const bf16* __restrict__ x, const bf16* __restrict__ w,
                       const float* __restrict__ rstd, bf16* __restrict__ dx, float* __restrict__ partials,
                       int64_t rows, int hidden) {
  __shared__ float scratch[32];
  const int nvec = hidden / kVec;
  float dw[kRowVecs][kVec] = {};
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const size_t base = static_cast<size_t>(row) * hidden;
    const float r = rstd[row];
    uint4 xr[kRowVecs], dyr[kRowVecs];
    float dot = 0.0f;
    for_row_vectors<true>(x + base, dy + base, w, nvec, xr, dyr,
                          [&](int, int, const float(&xf)[kVec], const float(&df)[kVec], const float(&wf)[kVec]) {
#pragma unroll
                            for (int j = 0; j < kVec; ++j) dot += df[j] * wf[j] * xf[j];
                          });
    const float c = block_sum(dot, scratch) * r * r * r / hidden;
    for_row_vectors<false>(x + base, dy + base, w, nvec, xr, dyr,
                           [&](int k, int vi, const float(&xf)[kVec], const float(&df)[kVec], const float(&wf)[kVec]) {
                             float out[kVec];
#pragma unroll
                             for (int j = 0; j < kVec; ++j) {
                               out[j] = r * wf[j] * df[j] - xf[j] * c;
                               dw[k][j] += df[j] * xf[j] * r;
                             }
                             store_vec(dx + base + vi * kVec, out);
                           });
  }
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
      float4* p = reinterpret_cast<float4*>(partials + static_cast<size_t>(blockIdx.x) * hidden + vi * kVec);
      p[0] = make_float4(dw[k][0], dw[k][1], dw[k][2], dw[k][3]);
      p[1] = make_float4(dw[k][4], dw[k][5], dw[k][6], dw[k][7]);
    }
  }
}

__global__ void __launch_bounds__(kRowThreadsMax)
    layernorm_fwd_kernel(const bf16* __restrict__ x, const bf16* __restrict__ gamma, const bf16* __restrict__ beta,
                         bf16* __restrict__ y, float* __restrict__ mean_out, float* __restrict__ rstd_out, int hidden,
                         float eps) {
  __shared__ float scratch[32];
  const int nvec = hidden / kVec;
  const size_t base = static_cast<size_t>(blockIdx.x) * hidden;
  float xv[kRowVecs][kVec];
  const float sum = load_row(x + base, nvec, xv, [](float v) { return v; });
  const float mean = block_sum(sum, scratch) / hidden;
  float var = 0.0f;
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
#pragma unroll
      for (int j = 0; j < kVec; ++j) var += (xv[k][j] - mean) * (xv[k][j] - mean);
    }
  }
  const float r = rsqrtf(block_sum(var, scratch) / hidden + eps);
  if (threadIdx.x == 0) {
    mean_out[blockIdx.x] = mean;
    rstd_out[blockIdx.x] = r;
  }
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
      float g[kVec], b[kVec], out[kVec];
      load_vec(gamma + vi * kVec, g);
      load_vec(beta + vi * kVec, b);
#pragma unroll
      for (int j = 0; j < kVec; ++j) out[j] = (xv[k][j] - mean) * r * g[j] + b[j];
      store_vec(y + base + vi * kVec, out);
    }
  }
}

// xhat = (x - mean) * r, g = gamma * dy:
// dx = r * (g - mean(g) - xhat * mean(g * xhat));  dgamma += dy * xhat;  dbeta += dy.
__global__ void __launch_bounds__(kRowThreadsMax)
    layernorm_bwd_kernel(const bf16* __restrict__ dy, const bf16* __restrict__ x, const bf16* __restrict__ gamma,
                         const float* __restrict__ mean, const float* __restrict__ rstd, bf16* __restrict__ dx,
                         float* __restrict__ partials, int64_t rows, int hidden) {
  __shared__ float2 scratch[32];
  const int nvec = hidden / kVec;
  float dg[kRowVecs][kVec] = {}, db[kRowVecs][kVec] = {};
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const size_t base = static_cast<size_t>(row) * hidden;
    const float mu = mean[row], r = rstd[row];
    uint4 xr[kRowVecs], dyr[kRowVecs];
    float2 sums = make_float2(0.0f, 0.0f);  // sum(g), sum(g * xhat)
    for_row_vectors<true>(x + base, dy + base, gamma, nvec, xr, dyr,
                          [&](int, int, const float(&xf)[kVec], const float(&df)[kVec], const float(&gf)[kVec]) {
#pragma unroll
                            for (int j = 0; j < kVec; ++j) {
                              const float g = gf[j] * df[j];
                              sums.x += g;
                              sums.y += g * (xf[j] - mu) * r;
                            }
                          });
    sums = block_sum2(sums, scratch);
    const float mean_g = sums.x / hidden, mean_gx = sums.y / hidden;
    for_row_vectors<false>(x + base, dy + base, gamma, nvec, xr, dyr,
                           [&](int k, int vi, const float(&xf)[kVec], const float(&df)[kVec], const float(&gf)[kVec]) {
                             float out[kVec];
#pragma unroll
                             for (int j = 0; j < kVec; ++j) {
                               const float xhat = (xf[j] - mu) * r;
                               out[j] = r * (gf[j] * df[j] - mean_g - xhat * mean_gx);
                               dg[k][j] += df[j] * xhat;
                               db[k][j] += df[j];
                             }
                             store_vec(dx + base + vi * kVec, out);
                           });
  }
  const size_t plane = static_cast<size_t>(gridDim.x) * hidden;
#pragma unroll
  for (int k = 0; k < kRowVecs; ++k) {
    const int vi = threadIdx.x + k * blockDim.x;
    if (vi < nvec) {
      float4* pg = reinterpret_cast<float4*>(partials + static_cast<size_t>(blockIdx.x) * hidden + vi * kVec);
      float4* pb = reinterpret_cast<float4*>(partials + plane + static_cast<size_t>(blockIdx.x) * hidden + vi * kVec);
      pg[0] = make_float4(dg[k][0], dg[k][1], dg[k][2], dg[k][3]);
      pg[1] = make_float4(dg[k][4], dg[k][5], dg[k][6], dg[k][7]);
      pb[0] = make_float4(db[k][0], db[k][1], db[k][2], db[k][3]);
      pb[1] = make_float4(db[k][4], db[k][5], db[k][6], db[k][7]);
    }
  }
}

// out[c] = sum over b of partials[b * hidden + c]; one thread per column, coalesced over columns.
__global__ void reduce_partials_kernel(const float* __restrict__ partials, int blocks, int hidden,
                                       bf16* __restrict__ out) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= hidden) return;
  float s = 0.0f;
  for (int b = 0; b < blocks; ++b) s += partials[static_cast<size_t>(b) * hidden + c];
  out[c] = __float2bfloat16(s);
}

void reduce_partials(const float* partials, int blocks, int64_t hidden, bf16* out, cudaStream_t stream) {
  const int threads = 256;
  reduce_partials_kernel<<<static_cast<unsigned>((hidden + threads - 1) / threads), threads, 0, stream>>>(
      partials, blocks, static_cast<int>(hidden), out);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

bool row_kernel_supports(int64_t hidden) { return hidden % kVec == 0 && hidden >= kVec && hidden <= kMaxRowHidden; }

int norm_bwd_blocks(int64_t rows, int sms) { return static_cast<int>(std::clamp<int64_t>(rows, 1, 2 * int64_t(sms))); }

void rmsnorm_fwd(const bf16* x, const bf16* w, bf16* y, float* rstd, int64_t rows, int64_t hidden, float eps,
                 cudaStream_t stream) {
  rmsnorm_fwd_kernel<<<static_cast<unsigned>(rows), row_threads(hidden), 0, stream>>>(x, w, y, rstd,
                                                                                      static_cast<int>(hidden), eps);
  CUDA_CHECK_LAUNCH();
}

void rmsnorm_bwd(const bf16* dy, const bf16* x, const bf16* w, const float* rstd, bf16* dx, bf16* dw, float* partials,
                 int64_t rows, int64_t hidden, int blocks, cudaStream_t stream) {
  rmsnorm_bwd_kernel<<<static_cast<unsigned>(blocks), row_threads(hidden), 0, stream>>>(dy, x, w, rstd, dx, partials,
                                                                                        rows, static_cast<int>(hidden));
  CUDA_CHECK_LAUNCH();
  reduce_partials(partials, blocks, hidden, dw, stream);
}

void layernorm_fwd(const bf16* x, const bf16* gamma, const bf16* beta, bf16* y, float* mean, float* rstd, int64_t rows,
                   int64_t hidden, float eps, cudaStream_t stream) {
  layernorm_fwd_kernel<<<static_cast<unsigned>(rows), row_threads(hidden), 0, stream>>>(x, gamma, beta, y, mean, rstd,
                                                                                        static_cast<int>(hidden), eps);
  CUDA_CHECK_LAUNCH();
}

void layernorm_bwd(const bf16* dy, const bf16* x, const bf16* gamma, const float* mean, const float* rstd, bf16* dx,
                   bf16* dgamma, bf16* dbeta, float* partials, int64_t rows, int64_t hidden, int blocks,
                   cudaStream_t stream) {
  layernorm_bwd_kernel<<<static_cast<unsigned>(blocks), row_threads(hidden), 0, stream>>>(
      dy, x, gamma, mean, rstd, dx, partials, rows, static_cast<int>(hidden));
  CUDA_CHECK_LAUNCH();
  reduce_partials(partials, blocks, hidden, dgamma, stream);
  reduce_partials(partials + static_cast<size_t>(blocks) * hidden, blocks, hidden, dbeta, stream);
}

}  // namespace sim::kernels
