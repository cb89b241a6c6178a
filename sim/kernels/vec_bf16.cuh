// Device helpers shared by the memory-bound kernels: 16-byte bf16 vectors and block reductions.
#pragma once

#include <cuda_bf16.h>

namespace sim::kernels {

constexpr int kVec = 8;  // bf16 elements per 16-byte vector

__device__ __forceinline__ uint4 load_raw(const __nv_bfloat16* p) { return __ldg(reinterpret_cast<const uint4*>(p)); }

__device__ __forceinline__ void unpack(uint4 u, float (&f)[kVec]) {
  const __nv_bfloat162* h = reinterpret_cast<const __nv_bfloat162*>(&u);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 t = __bfloat1622float2(h[i]);
    f[2 * i] = t.x;
    f[2 * i + 1] = t.y;
  }
}

__device__ __forceinline__ void load_vec(const __nv_bfloat16* p, float (&f)[kVec]) { unpack(load_raw(p), f); }

__device__ __forceinline__ void store_vec(__nv_bfloat16* p, const float (&f)[kVec]) {
  uint4 u;
  __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&u);
#pragma unroll
  for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
  *reinterpret_cast<uint4*>(p) = u;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// Reductions over the whole block (blockDim.x a multiple of 32); every thread gets the result.
// `scratch` is 32 entries of shared memory; the leading barrier lets calls follow each other.
// `warp_reduce` is warp_sum or warp_max, `identity` its neutral element.
template <class WarpReduce>
__device__ __forceinline__ float block_reduce(float v, float* scratch, WarpReduce warp_reduce, float identity) {
  v = warp_reduce(v);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  const unsigned warps = blockDim.x >> 5;
  return warp_reduce((threadIdx.x & 31) < warps ? scratch[threadIdx.x & 31] : identity);
}

__device__ __forceinline__ float block_sum(float v, float* scratch) {
  return block_reduce(
      v, scratch, [](float x) { return warp_sum(x); }, 0.0f);
}

__device__ __forceinline__ float block_max(float v, float* scratch) {
  return block_reduce(
      v, scratch, [](float x) { return warp_max(x); }, -INFINITY);
}

__device__ __forceinline__ float2 block_sum2(float2 v, float2* scratch) {
  v.x = warp_sum(v.x);
  v.y = warp_sum(v.y);
  __syncthreads();
  if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
  __syncthreads();
  const unsigned warps = blockDim.x >> 5;
  float2 t = (threadIdx.x & 31) < warps ? scratch[threadIdx.x & 31] : make_float2(0.0f, 0.0f);
  return make_float2(warp_sum(t.x), warp_sum(t.y));
}

}  // namespace sim::kernels
