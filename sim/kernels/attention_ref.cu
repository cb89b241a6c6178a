// Naive fp32 attention (attention.hpp): the reference the tiled kernels are checked against.
// One thread per query row (forward) or per output element (backward); O(S^2 D) work per row,
// meant for problems of a few hundred tokens.
#include <cmath>

#include "sim/kernels/attention.hpp"
#include "sim/kernels/cuda_check.hpp"

namespace sim::kernels {

namespace {

using bf16 = __nv_bfloat16;
constexpr int kMaxHeadDim = 256;
constexpr float kLog2e = 1.4426950408889634f;

struct RefGeometry {
  int B, S, H, D;
  bool causal;
  float scale_log2;
  __device__ size_t row(int b, int s, int h) const { return ((size_t(b) * S + s) * H + h) * D; }
  __device__ size_t stat(int b, int h, int s) const { return (size_t(b) * H + h) * S + s; }
  __device__ size_t pair(int b, int h, int i, int j) const { return ((size_t(b) * H + h) * S + i) * S + j; }
};

__device__ float dot(const bf16* a, const bf16* b, int D) {
  float s = 0.0f;
  for (int d = 0; d < D; ++d) s += __bfloat162float(a[d]) * __bfloat162float(b[d]);
  return s;
}

__global__ void ref_fwd_kernel(const bf16* q, const bf16* k, const bf16* v, float* o, float* lse, RefGeometry g) {
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= int64_t(g.B) * g.H * g.S) return;
  const int i = idx % g.S, h = (idx / g.S) % g.H, b = idx / (int64_t(g.S) * g.H);
  const int keys = g.causal ? i + 1 : g.S;
  const bf16* qi = q + g.row(b, i, h);
  float mx = -INFINITY;
  for (int j = 0; j < keys; ++j) mx = fmaxf(mx, dot(qi, k + g.row(b, j, h), g.D) * g.scale_log2);
  float acc[kMaxHeadDim];
  for (int d = 0; d < g.D; ++d) acc[d] = 0.0f;
  float l = 0.0f;
  for (int j = 0; j < keys; ++j) {
    const float p = exp2f(dot(qi, k + g.row(b, j, h), g.D) * g.scale_log2 - mx);
    l += p;
    const bf16* vj = v + g.row(b, j, h);
    for (int d = 0; d < g.D; ++d) acc[d] += p * __bfloat162float(vj[d]);
  }
  for (int d = 0; d < g.D; ++d) o[g.row(b, i, h) + d] = acc[d] / l;
  lse[g.stat(b, h, i)] = mx + log2f(l);
}

// P_ij and dP_ij = dO_i . V_j, one thread per (b, h, i, j).
__global__ void ref_p_kernel(const bf16* q, const bf16* k, const bf16* v, const bf16* dout, const float* lse, float* p,
                             float* dp, RefGeometry g) {
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= int64_t(g.B) * g.H * g.S * g.S) return;
  const int j = idx % g.S, i = (idx / g.S) % g.S, h = (idx / (int64_t(g.S) * g.S)) % g.H;
  const int b = idx / (int64_t(g.S) * g.S * g.H);
  const bool masked = g.causal && j > i;
  p[idx] =
      masked ? 0.0f : exp2f(dot(q + g.row(b, i, h), k + g.row(b, j, h), g.D) * g.scale_log2 - lse[g.stat(b, h, i)]);
  dp[idx] = dot(dout + g.row(b, i, h), v + g.row(b, j, h), g.D);
}

// dS_ij = P_ij (dP_ij - sum_j P_ij dP_ij), in place over dP; one thread per (b, h, i).
__global__ void ref_ds_kernel(const float* p, float* dp_to_ds, RefGeometry g) {
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= int64_t(g.B) * g.H * g.S) return;
  const float* prow = p + idx * g.S;
  float* drow = dp_to_ds + idx * g.S;
  float delta = 0.0f;
  for (int j = 0; j < g.S; ++j) delta += prow[j] * drow[j];
  for (int j = 0; j < g.S; ++j) drow[j] = prow[j] * (drow[j] - delta);
}

// dQ_s = scale sum_j dS_sj K_j, dK_s = scale sum_i dS_is Q_i, dV_s = sum_i P_is dO_i; one thread
// per (b, s, h, d).
__global__ void ref_grads_kernel(const bf16* q, const bf16* k, const bf16* dout, const float* p, const float* ds,
                                 float* dq, float* dk, float* dv, RefGeometry g, float scale) {
  const int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= int64_t(g.B) * g.S * g.H * g.D) return;
  const int d = idx % g.D, h = (idx / g.D) % g.H, s = (idx / (int64_t(g.D) * g.H)) % g.S;
  const int b = idx / (int64_t(g.D) * g.H * g.S);
  float aq = 0.0f, ak = 0.0f, av = 0.0f;
  for (int t = 0; t < g.S; ++t) {
    aq += ds[g.pair(b, h, s, t)] * __bfloat162float(k[g.row(b, t, h) + d]);
    ak += ds[g.pair(b, h, t, s)] * __bfloat162float(q[g.row(b, t, h) + d]);
    av += p[g.pair(b, h, t, s)] * __bfloat162float(dout[g.row(b, t, h) + d]);
  }
  dq[idx] = scale * aq;
  dk[idx] = scale * ak;
  dv[idx] = av;
}

RefGeometry geometry(const AttentionDims& d) {
  return {static_cast<int>(d.batch),
          static_cast<int>(d.seq_len),
          static_cast<int>(d.heads),
          static_cast<int>(d.head_dim),
          d.causal,
          kLog2e / std::sqrt(static_cast<float>(d.head_dim))};
}

unsigned blocks(int64_t threads) { return static_cast<unsigned>((threads + 127) / 128); }

}  // namespace

void attention_ref_fwd(const bf16* q, const bf16* k, const bf16* v, float* o_ref, float* lse_ref,
                       const AttentionDims& d, cudaStream_t stream) {
  ref_fwd_kernel<<<blocks(d.rows()), 128, 0, stream>>>(q, k, v, o_ref, lse_ref, geometry(d));
  CUDA_CHECK_LAUNCH();
}

void attention_ref_bwd(const bf16* q, const bf16* k, const bf16* v, const bf16* dout, const float* lse_ref, float* p,
                       float* ds, float* dq, float* dk, float* dv, const AttentionDims& d, cudaStream_t stream) {
  const RefGeometry g = geometry(d);
  ref_p_kernel<<<blocks(d.rows() * d.seq_len), 128, 0, stream>>>(q, k, v, dout, lse_ref, p, ds, g);
  CUDA_CHECK_LAUNCH();
  ref_ds_kernel<<<blocks(d.rows()), 128, 0, stream>>>(p, ds, g);
  CUDA_CHECK_LAUNCH();
  ref_grads_kernel<<<blocks(d.elements()), 128, 0, stream>>>(q, k, dout, p, ds, dq, dk, dv, g,
                                                             1.0f / std::sqrt(static_cast<float>(d.head_dim)));
  CUDA_CHECK_LAUNCH();
}

}  // namespace sim::kernels
