// Attention forward (attention.hpp): FlashAttention-2's loop order. Each warp owns 16 query rows;
// per 64-key tile it computes scores with WMMA into shared memory, applies the online softmax
// (two lanes per row), rescales its fp32 output rows in shared memory and adds P V with WMMA.
#include <cmath>

#include "sim/kernels/attention.hpp"
#include "sim/kernels/attention_tiles.cuh"
#include "sim/kernels/cuda_check.hpp"

namespace sim::kernels {

namespace {

using namespace attn;

template <int D>
struct FwdSmem {
  using L = Ld<D>;
  static constexpr size_t q = 0;
  static constexpr size_t k = q + sizeof(bf16) * kBr * L::kTile;
  static constexpr size_t v = k + sizeof(bf16) * kBc * L::kTile;
  static constexpr size_t s = v + sizeof(bf16) * kBc * L::kTile;
  static constexpr size_t p = s + sizeof(float) * kBr * L::kScore;
  static constexpr size_t o = p + sizeof(bf16) * kBr * L::kProb;
  static constexpr size_t bytes = o + sizeof(float) * kBr * L::kAcc;
};

template <int D>
__global__ void __launch_bounds__(kThreads)
    attention_fwd_kernel(const bf16* __restrict__ q, const bf16* __restrict__ k, const bf16* __restrict__ v,
                         bf16* __restrict__ o, float* __restrict__ lse, int S, int H, float scale_log2, bool causal) {
  using L = Ld<D>;
  using M = FwdSmem<D>;
  extern __shared__ __align__(128) unsigned char smem[];
  bf16* sQ = reinterpret_cast<bf16*>(smem + M::q);
  bf16* sK = reinterpret_cast<bf16*>(smem + M::k);
  bf16* sV = reinterpret_cast<bf16*>(smem + M::v);

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float* sS = reinterpret_cast<float*>(smem + M::s) + warp * 16 * L::kScore;
  bf16* sP = reinterpret_cast<bf16*>(smem + M::p) + warp * 16 * L::kProb;
  float* sO = reinterpret_cast<float*>(smem + M::o) + warp * 16 * L::kAcc;

  const int q0 = blockIdx.x * kBr;
  const int b = blockIdx.y / H, h = blockIdx.y % H;
  const int64_t row_stride = int64_t(H) * D;
  const size_t head = (size_t(b) * S * H + h) * D;

  load_tile<D, kBr>(sQ, L::kTile, q + head, row_stride, q0, S);
  // Two lanes per query row: lane/2 is the row within the warp's 16, lane%2 the half of the columns.
  const int r = lane >> 1, half = lane & 1;
  const int row_q = q0 + warp * 16 + r;
  for (int c = half * (D / 2); c < (half + 1) * (D / 2); ++c) sO[r * L::kAcc + c] = 0.0f;
  __syncthreads();

  FragA qf[D / 16];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) wmma::load_matrix_sync(qf[kk], sQ + warp * 16 * L::kTile + kk * 16, L::kTile);

  float m_i = -INFINITY, l_i = 0.0f;  // running max (log2 domain) and sum of the row
  const int kv_end = causal ? min(S, q0 + kBr) : S;
  for (int k0 = 0; k0 < kv_end; k0 += kBc) {
    __syncthreads();  // every warp is done with the previous K and V tiles
    load_tile<D, kBc>(sK, L::kTile, k + head, row_stride, k0, S);
    load_tile<D, kBc>(sV, L::kTile, v + head, row_stride, k0, S);
    __syncthreads();

#pragma unroll
    for (int j = 0; j < kBc / 16; ++j) {
      FragC acc;
      wmma::fill_fragment(acc, 0.0f);
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        FragBT kf;  // K^T: the K tile read column-major
        wmma::load_matrix_sync(kf, sK + j * 16 * L::kTile + kk * 16, L::kTile);
        wmma::mma_sync(acc, qf[kk], kf, acc);
      }
      wmma::store_matrix_sync(sS + j * 16, acc, L::kScore, wmma::mem_row_major);
    }
    __syncwarp();

    constexpr int kHalfBc = kBc / 2;
    float* srow = sS + r * L::kScore;
    float mx = -INFINITY;
    for (int c = half * kHalfBc; c < (half + 1) * kHalfBc; ++c) {
      const int key = k0 + c;
      const bool valid = key < S && (!causal || key <= row_q);
      const float s = valid ? srow[c] * scale_log2 : -INFINITY;
      srow[c] = s;
      mx = fmaxf(mx, s);
    }
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    const float m_new = fmaxf(m_i, mx);
    const float m_use = m_new == -INFINITY ? 0.0f : m_new;  // a row with no key yet keeps p = 0
    const float alpha = exp2f(m_i - m_use);
    float sum = 0.0f;
    bf16* prow = sP + r * L::kProb;
    for (int c = half * kHalfBc; c < (half + 1) * kHalfBc; ++c) {
      const float p = exp2f(srow[c] - m_use);
      prow[c] = __float2bfloat16(p);
      sum += p;
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    l_i = l_i * alpha + sum;
    m_i = m_new;
    float* orow = sO + r * L::kAcc;
    for (int c = half * (D / 2); c < (half + 1) * (D / 2); ++c) orow[c] *= alpha;
    __syncwarp();

#pragma unroll
    for (int n = 0; n < D / 16; ++n) {
      FragC acc;
      wmma::load_matrix_sync(acc, sO + n * 16, L::kAcc, wmma::mem_row_major);
#pragma unroll
      for (int kk = 0; kk < kBc / 16; ++kk) {
        FragA pf;
        FragB vf;
        wmma::load_matrix_sync(pf, sP + kk * 16, L::kProb);
        wmma::load_matrix_sync(vf, sV + kk * 16 * L::kTile + n * 16, L::kTile);
        wmma::mma_sync(acc, pf, vf, acc);
      }
      wmma::store_matrix_sync(sO + n * 16, acc, L::kAcc, wmma::mem_row_major);
    }
    __syncwarp();
  }

  if (row_q < S) {
    const float inv = l_i > 0.0f ? 1.0f / l_i : 0.0f;
    bf16* out = o + head + row_q * row_stride;
    for (int c = half * (D / 2); c < (half + 1) * (D / 2); c += 8) store8(out + c, sO + r * L::kAcc + c, inv);
    if (half == 0) lse[(size_t(b) * H + h) * S + row_q] = m_i + log2f(l_i);
  }
}

template <int D>
void launch_fwd(const bf16* q, const bf16* k, const bf16* v, bf16* o, float* lse, const AttentionDims& d,
                cudaStream_t stream) {
  constexpr size_t smem = FwdSmem<D>::bytes;
  static const cudaError_t configured = cudaFuncSetAttribute(
      attention_fwd_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  CUDA_CHECK(configured);
  const dim3 grid(static_cast<unsigned>((d.seq_len + kBr - 1) / kBr), static_cast<unsigned>(d.batch * d.heads));
  const float scale_log2 = kLog2e / std::sqrt(static_cast<float>(D));
  attention_fwd_kernel<D><<<grid, kThreads, smem, stream>>>(q, k, v, o, lse, static_cast<int>(d.seq_len),
                                                            static_cast<int>(d.heads), scale_log2, d.causal);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

int64_t attention_fwd_smem_bytes(int64_t head_dim) {
  return head_dim == 64 ? int64_t(FwdSmem<64>::bytes) : int64_t(FwdSmem<128>::bytes);
}

void attention_fwd(const bf16* q, const bf16* k, const bf16* v, bf16* o, float* lse, const AttentionDims& d,
                   cudaStream_t stream) {
  if (d.head_dim == 64)
    launch_fwd<64>(q, k, v, o, lse, d, stream);
  else
    launch_fwd<128>(q, k, v, o, lse, d, stream);
}

}  // namespace sim::kernels
