// Element-wise kernels (memory_kernels.hpp): GELU (tanh approximation, as Megatron-LM's
// bias_gelu), SwiGLU, residual add and an SM copy. Grid-stride loops over 16-byte vectors with
// min(vectors/256, 16 x SMs) blocks of 256 threads.
#include <algorithm>

#include "sim/kernels/cuda_check.hpp"
#include "sim/kernels/memory_kernels.hpp"
#include "sim/kernels/vec_bf16.cuh"

namespace sim::kernels {

namespace {

constexpr int kThreads = 256;
constexpr float kGeluC = 0.7978845608028654f;  // sqrt(2/pi)
constexpr float kGeluA = 0.044715f;

__device__ __forceinline__ float gelu(float x) { return 0.5f * x * (1.0f + tanhf(kGeluC * (x + kGeluA * x * x * x))); }

__device__ __forceinline__ float gelu_grad(float x) {
  const float t = tanhf(kGeluC * (x + kGeluA * x * x * x));
  return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * kGeluC * (1.0f + 3.0f * kGeluA * x * x);
}

__device__ __forceinline__ float sigmoid(float x) { return 1.0f / (1.0f + __expf(-x)); }

__device__ __forceinline__ size_t thread_index() { return blockIdx.x * size_t(blockDim.x) + threadIdx.x; }
__device__ __forceinline__ size_t grid_stride() { return size_t(gridDim.x) * blockDim.x; }

__global__ void gelu_fwd_kernel(const bf16* __restrict__ x, bf16* __restrict__ y, size_t vecs) {
  for (size_t v = thread_index(); v < vecs; v += grid_stride()) {
    float f[kVec];
    load_vec(x + v * kVec, f);
#pragma unroll
    for (int j = 0; j < kVec; ++j) f[j] = gelu(f[j]);
    store_vec(y + v * kVec, f);
  }
}

// out = op(a, b) elementwise: the gelu backward (dx = dy * gelu'(x)) and the residual add.
template <class Op>
__global__ void binary_kernel(const bf16* __restrict__ a, const bf16* __restrict__ b, bf16* __restrict__ out,
                              size_t vecs, Op op) {
  for (size_t v = thread_index(); v < vecs; v += grid_stride()) {
    float af[kVec], bf[kVec];
    load_vec(a + v * kVec, af);
    load_vec(b + v * kVec, bf);
#pragma unroll
    for (int j = 0; j < kVec; ++j) af[j] = op(af[j], bf[j]);
    store_vec(out + v * kVec, af);
  }
}

struct GeluBackward {
  __device__ float operator()(float x, float dy) const { return dy * gelu_grad(x); }
};
struct Add {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// y = silu(gate) * up
__global__ void swiglu_fwd_kernel(const bf16* __restrict__ x, bf16* __restrict__ y, size_t vecs, int64_t hidden) {
  const size_t row_vecs = static_cast<size_t>(hidden) / kVec;
  for (size_t v = thread_index(); v < vecs; v += grid_stride()) {
    const size_t row = v / row_vecs, col = (v % row_vecs) * kVec;
    const bf16* gate = x + row * 2 * hidden + col;
    float g[kVec], u[kVec];
    load_vec(gate, g);
    load_vec(gate + hidden, u);
#pragma unroll
    for (int j = 0; j < kVec; ++j) g[j] = g[j] * sigmoid(g[j]) * u[j];
    store_vec(y + row * hidden + col, g);
  }
}

// dgate = dy * up * s * (1 + gate * (1 - s)), dup = dy * gate * s, with s = sigmoid(gate)
__global__ void swiglu_bwd_kernel(const bf16* __restrict__ x, const bf16* __restrict__ dy, bf16* __restrict__ dx,
                                  size_t vecs, int64_t hidden) {
  const size_t row_vecs = static_cast<size_t>(hidden) / kVec;
  for (size_t v = thread_index(); v < vecs; v += grid_stride()) {
    const size_t row = v / row_vecs, col = (v % row_vecs) * kVec;
    const size_t in = row * 2 * hidden + col;
    float g[kVec], u[kVec], d[kVec], dg[kVec], du[kVec];
    load_vec(x + in, g);
    load_vec(x + in + hidden, u);
    load_vec(dy + row * hidden + col, d);
#pragma unroll
    for (int j = 0; j < kVec; ++j) {
      const float s = sigmoid(g[j]);
      dg[j] = d[j] * u[j] * s * (1.0f + g[j] * (1.0f - s));
      du[j] = d[j] * g[j] * s;
    }
    store_vec(dx + in, dg);
    store_vec(dx + in + hidden, du);
  }
}

__global__ void copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst, size_t vecs) {
  for (size_t v = thread_index(); v < vecs; v += grid_stride()) dst[v] = __ldg(src + v);
}

unsigned grid_for(size_t vecs, int sms) {
  return static_cast<unsigned>(std::clamp<size_t>((vecs + kThreads - 1) / kThreads, 1, size_t(16) * sms));
}

}  // namespace

void gelu_fwd(const bf16* x, bf16* y, int64_t count, int sms, cudaStream_t stream) {
  const size_t vecs = static_cast<size_t>(count) / kVec;
  gelu_fwd_kernel<<<grid_for(vecs, sms), kThreads, 0, stream>>>(x, y, vecs);
  CUDA_CHECK_LAUNCH();
}

void gelu_bwd(const bf16* x, const bf16* dy, bf16* dx, int64_t count, int sms, cudaStream_t stream) {
  const size_t vecs = static_cast<size_t>(count) / kVec;
  binary_kernel<<<grid_for(vecs, sms), kThreads, 0, stream>>>(x, dy, dx, vecs, GeluBackward{});
  CUDA_CHECK_LAUNCH();
}

void residual_add(const bf16* a, const bf16* b, bf16* out, int64_t count, int sms, cudaStream_t stream) {
  const size_t vecs = static_cast<size_t>(count) / kVec;
  binary_kernel<<<grid_for(vecs, sms), kThreads, 0, stream>>>(a, b, out, vecs, Add{});
  CUDA_CHECK_LAUNCH();
}

void swiglu_fwd(const bf16* x, bf16* y, int64_t rows, int64_t hidden, int sms, cudaStream_t stream) {
  const size_t vecs = static_cast<size_t>(rows * hidden) / kVec;
  swiglu_fwd_kernel<<<grid_for(vecs, sms), kThreads, 0, stream>>>(x, y, vecs, hidden);
  CUDA_CHECK_LAUNCH();
}

void swiglu_bwd(const bf16* x, const bf16* dy, bf16* dx, int64_t rows, int64_t hidden, int sms, cudaStream_t stream) {
  const size_t vecs = static_cast<size_t>(rows * hidden) / kVec;
  swiglu_bwd_kernel<<<grid_for(vecs, sms), kThreads, 0, stream>>>(x, dy, dx, vecs, hidden);
  CUDA_CHECK_LAUNCH();
}

void copy_sm(const void* src, void* dst, size_t bytes, int sms, cudaStream_t stream) {
  const size_t vecs = bytes / sizeof(uint4);
  copy_kernel<<<grid_for(vecs, sms), kThreads, 0, stream>>>(static_cast<const uint4*>(src), static_cast<uint4*>(dst),
                                                            vecs);
  CUDA_CHECK_LAUNCH();
}

}  // namespace sim::kernels
