// Attention backward (attention.hpp): FlashAttention-2's loop order. A block owns 64 keys and
// loops over 64-query tiles, recomputing P = exp2(s - lse) from the forward's log-sum-exp:
//   dV += P^T dO,  dP = dO V^T,  dS = P o (dP - delta),  dK += scale dS^T Q,  dQ += scale dS K
// with delta_i = dO_i . O_i from a first kernel. Each warp keeps the dK and dV rows of its 16 keys
// in WMMA accumulators for the whole loop; dQ goes to an fp32 buffer through atomics.
#include <algorithm>
#include <cmath>

#include "sim/kernels/attention.hpp"
#include "sim/kernels/attention_tiles.cuh"
#include "sim/kernels/cuda_check.hpp"

namespace sim::kernels {

namespace {

using namespace attn;

template <int D>
struct BwdSmem {
  using L = Ld<D>;
  static constexpr size_t k = 0;
  static constexpr size_t v = k + sizeof(bf16) * kBc * L::kTile;
  static constexpr size_t q = v + sizeof(bf16) * kBc * L::kTile;
  static constexpr size_t dout = q + sizeof(bf16) * kBr * L::kTile;
  // fp32 scratch: scores then P (first half) and dP (second half); later the dQ partial tile and
  // the dK / dV staging tiles.
  static constexpr size_t f = dout + sizeof(bf16) * kBr * L::kTile;
  static constexpr size_t f_bytes =
      sizeof(float) * std::max<size_t>(size_t(2) * kBr * L::kScore, size_t(std::max(kBr, kBc)) * L::kAcc);
  static constexpr size_t p = f + f_bytes;
  static constexpr size_t ds = p + sizeof(bf16) * kBr * L::kProb;
  static constexpr size_t lse = ds + sizeof(bf16) * kBr * L::kProb;
  static constexpr size_t delta = lse + sizeof(float) * kBr;
  static constexpr size_t bytes = delta + sizeof(float) * kBr;
};

// delta[b,h,s] = sum_d dO[b,s,h,d] * O[b,s,h,d]; one warp per (b, s, h) row of D elements.
template <int D>
__global__ void attention_bwd_delta_kernel(const bf16* __restrict__ o, const bf16* __restrict__ dout,
                                           float* __restrict__ delta, int64_t rows, int S, int H) {
  const int64_t row = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const __nv_bfloat162* o2 = reinterpret_cast<const __nv_bfloat162*>(o + row * D);
  const __nv_bfloat162* d2 = reinterpret_cast<const __nv_bfloat162*>(dout + row * D);
  float sum = 0.0f;
  for (int c = lane; c < D / 2; c += 32) {
    const float2 a = __bfloat1622float2(o2[c]), b = __bfloat1622float2(d2[c]);
    sum += a.x * b.x + a.y * b.y;
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (lane == 0) {
    const int64_t h = row % H, s = (row / H) % S, b = row / (int64_t(H) * S);
    delta[(b * H + h) * S + s] = sum;
  }
}

__global__ void round_to_bf16_kernel(const float* __restrict__ in, bf16* __restrict__ out, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16(in[i]);
}

// Adds rows [0, 16) of a warp's fp32 staging tile, times `scale`, into global fp32 memory.
template <int D>
__device__ __forceinline__ void atomic_add_rows(float* dst, int64_t row_stride, const float* src, int row0, int S,
                                                float scale) {
  const int lane = threadIdx.x % 32;
#if __CUDA_ARCH__ >= 900
  for (int idx = lane; idx < 16 * D / 4; idx += 32) {  // sm_90 has 16-byte float atomics
    const int r = idx / (D / 4), c = (idx % (D / 4)) * 4;
    if (row0 + r >= S) continue;
    const float* s = src + r * Ld<D>::kAcc + c;
    atomicAdd(reinterpret_cast<float4*>(dst + (row0 + r) * row_stride + c),
              make_float4(s[0] * scale, s[1] * scale, s[2] * scale, s[3] * scale));
  }
#else
  for (int idx = lane; idx < 16 * D; idx += 32) {
    const int r = idx / D, c = idx % D;
    if (row0 + r < S) atomicAdd(dst + (row0 + r) * row_stride + c, src[r * Ld<D>::kAcc + c] * scale);
  }
#endif
}

// Writes rows [0, 16) of a warp's fp32 staging tile, times `scale`, as bf16.
template <int D>
__device__ __forceinline__ void store_rows(bf16* dst, int64_t row_stride, const float* src, int row0, int S,
                                           float scale) {
  const int lane = threadIdx.x % 32;
  for (int idx = lane; idx < 16 * D / 8; idx += 32) {
    const int r = idx / (D / 8), c = (idx % (D / 8)) * 8;
    if (row0 + r < S) store8(dst + (row0 + r) * row_stride + c, src + r * Ld<D>::kAcc + c, scale);
  }
}

template <int D>
__global__ void __launch_bounds__(kThreads)
    attention_bwd_kernel(const bf16* __restrict__ q, const bf16* __restrict__ k, const bf16* __restrict__ v,
                         const bf16* __restrict__ dout, const float* __restrict__ lse, const float* __restrict__ delta,
                         float* __restrict__ dq_accum, bf16* __restrict__ dk, bf16* __restrict__ dv, int S, int H,
                         float scale, bool causal) {
  using L = Ld<D>;
  using M = BwdSmem<D>;
  extern __shared__ __align__(128) unsigned char smem[];
  bf16* sK = reinterpret_cast<bf16*>(smem + M::k);
  bf16* sV = reinterpret_cast<bf16*>(smem + M::v);
  bf16* sQ = reinterpret_cast<bf16*>(smem + M::q);
  bf16* sdO = reinterpret_cast<bf16*>(smem + M::dout);
  float* sS = reinterpret_cast<float*>(smem + M::f);
  float* sdP = sS + kBr * L::kScore;
  float* sStage = sS;  // reused once S and dP are dead
  bf16* sP = reinterpret_cast<bf16*>(smem + M::p);
  bf16* sdS = reinterpret_cast<bf16*>(smem + M::ds);
  float* sLse = reinterpret_cast<float*>(smem + M::lse);
  float* sDelta = reinterpret_cast<float*>(smem + M::delta);

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int k0 = blockIdx.x * kBc;
  const int b = blockIdx.y / H, h = blockIdx.y % H;
  const int64_t row_stride = int64_t(H) * D;
  const size_t head = (size_t(b) * S * H + h) * D;
  const size_t stat = (size_t(b) * H + h) * S;
  const float scale_log2 = scale * kLog2e;

  load_tile<D, kBc>(sK, L::kTile, k + head, row_stride, k0, S);
  load_tile<D, kBc>(sV, L::kTile, v + head, row_stride, k0, S);

  FragC dk_acc[D / 16], dv_acc[D / 16];
#pragma unroll
  for (int n = 0; n < D / 16; ++n) {
    wmma::fill_fragment(dk_acc[n], 0.0f);
    wmma::fill_fragment(dv_acc[n], 0.0f);
  }

  const int r = lane >> 1, half = lane & 1;  // two lanes per row of the warp's 16
  const int wrow = warp * 16;
  for (int q0 = causal ? (k0 / kBr) * kBr : 0; q0 < S; q0 += kBr) {
    __syncthreads();  // the previous tile's readers are done
    load_tile<D, kBr>(sQ, L::kTile, q + head, row_stride, q0, S);
    load_tile<D, kBr>(sdO, L::kTile, dout + head, row_stride, q0, S);
    for (int i = threadIdx.x; i < kBr; i += blockDim.x) {
      const bool in = q0 + i < S;
      sLse[i] = in ? lse[stat + q0 + i] : INFINITY;
      sDelta[i] = in ? delta[stat + q0 + i] : 0.0f;
    }
    __syncthreads();

    // Scores and dP for the warp's 16 query rows.
#pragma unroll
    for (int j = 0; j < kBc / 16; ++j) {
      FragC s_acc, dp_acc;
      wmma::fill_fragment(s_acc, 0.0f);
      wmma::fill_fragment(dp_acc, 0.0f);
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        FragA a;
        FragBT bt;
        wmma::load_matrix_sync(a, sQ + wrow * L::kTile + kk * 16, L::kTile);
        wmma::load_matrix_sync(bt, sK + j * 16 * L::kTile + kk * 16, L::kTile);
        wmma::mma_sync(s_acc, a, bt, s_acc);
        wmma::load_matrix_sync(a, sdO + wrow * L::kTile + kk * 16, L::kTile);
        wmma::load_matrix_sync(bt, sV + j * 16 * L::kTile + kk * 16, L::kTile);
        wmma::mma_sync(dp_acc, a, bt, dp_acc);
      }
      wmma::store_matrix_sync(sS + wrow * L::kScore + j * 16, s_acc, L::kScore, wmma::mem_row_major);
      wmma::store_matrix_sync(sdP + wrow * L::kScore + j * 16, dp_acc, L::kScore, wmma::mem_row_major);
    }
    __syncwarp();

    {
      const int row = wrow + r, qi = q0 + row;
      const float lse_r = sLse[row], delta_r = sDelta[row];
      for (int c = half * (kBc / 2); c < (half + 1) * (kBc / 2); ++c) {
        const int key = k0 + c;
        const bool valid = key < S && qi < S && (!causal || key <= qi);
        const float p = valid ? exp2f(sS[row * L::kScore + c] * scale_log2 - lse_r) : 0.0f;
        const float ds = p * (sdP[row * L::kScore + c] - delta_r);
        sP[row * L::kProb + c] = __float2bfloat16(p);
        sdS[row * L::kProb + c] = __float2bfloat16(ds);
      }
    }
    __syncthreads();  // dV and dK read P and dS of every query row

    // dV += P^T dO and dK += dS^T Q for the warp's 16 keys.
#pragma unroll
    for (int n = 0; n < D / 16; ++n) {
#pragma unroll
      for (int kk = 0; kk < kBr / 16; ++kk) {
        FragAT at;
        FragB bm;
        wmma::load_matrix_sync(at, sP + kk * 16 * L::kProb + wrow, L::kProb);
        wmma::load_matrix_sync(bm, sdO + kk * 16 * L::kTile + n * 16, L::kTile);
        wmma::mma_sync(dv_acc[n], at, bm, dv_acc[n]);
        wmma::load_matrix_sync(at, sdS + kk * 16 * L::kProb + wrow, L::kProb);
        wmma::load_matrix_sync(bm, sQ + kk * 16 * L::kTile + n * 16, L::kTile);
        wmma::mma_sync(dk_acc[n], at, bm, dk_acc[n]);
      }
    }

    // dQ (this key tile's share) = dS K for the warp's 16 query rows, staged in the dead S/dP space.
    float* stage = sStage + wrow * L::kAcc;
#pragma unroll
    for (int n = 0; n < D / 16; ++n) {
      FragC acc;
      wmma::fill_fragment(acc, 0.0f);
#pragma unroll
      for (int kk = 0; kk < kBc / 16; ++kk) {
        FragA a;
        FragB bm;
        wmma::load_matrix_sync(a, sdS + wrow * L::kProb + kk * 16, L::kProb);
        wmma::load_matrix_sync(bm, sK + kk * 16 * L::kTile + n * 16, L::kTile);
        wmma::mma_sync(acc, a, bm, acc);
      }
      wmma::store_matrix_sync(stage + n * 16, acc, L::kAcc, wmma::mem_row_major);
    }
    __syncwarp();
    atomic_add_rows<D>(dq_accum + head, row_stride, stage, q0 + wrow, S, scale);
  }

  __syncthreads();  // staging space free
  float* stage = sStage + wrow * L::kAcc;
#pragma unroll
  for (int n = 0; n < D / 16; ++n) wmma::store_matrix_sync(stage + n * 16, dk_acc[n], L::kAcc, wmma::mem_row_major);
  __syncwarp();
  store_rows<D>(dk + head, row_stride, stage, k0 + wrow, S, scale);
  __syncwarp();
#pragma unroll
  for (int n = 0; n < D / 16; ++n) wmma::store_matrix_sync(stage + n * 16, dv_acc[n], L::kAcc, wmma::mem_row_major);
  __syncwarp();
  store_rows<D>(dv + head, row_stride, stage, k0 + wrow, S, 1.0f);
}

template <int D>
void launch_bwd(const AttentionBwdArgs& a, const AttentionDims& d, cudaStream_t stream) {
  constexpr size_t smem = BwdSmem<D>::bytes;
  static const cudaError_t configured = cudaFuncSetAttribute(
      attention_bwd_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem));
  CUDA_CHECK(configured);
  const size_t elements = static_cast<size_t>(d.elements());
  CUDA_CHECK(cudaMemsetAsync(a.dq_accum, 0, elements * sizeof(float), stream));

  const int64_t rows = d.batch * d.seq_len * d.heads;
  const unsigned delta_blocks = static_cast<unsigned>((rows * 32 + 255) / 256);
  attention_bwd_delta_kernel<D><<<delta_blocks, 256, 0, stream>>>(
      a.o, a.dout, a.delta, rows, static_cast<int>(d.seq_len), static_cast<int>(d.heads));
  CUDA_CHECK_LAUNCH();

  const dim3 grid(static_cast<unsigned>((d.seq_len + kBc - 1) / kBc), static_cast<unsigned>(d.batch * d.heads));
  attention_bwd_kernel<D><<<grid, kThreads, smem, stream>>>(
      a.q, a.k, a.v, a.dout, a.lse, a.delta, a.dq_accum, a.dk, a.dv, static_cast<int>(d.seq_len),
      static_cast<int>(d.heads), 1.0f / std::sqrt(static_cast<float>(D)), d.causal);
  CUDA_CHECK_LAUNCH();

  const unsigned round_blocks = static_cast<unsigned>(std::min<size_t>((elements + 255) / 256, 65536));
  round_to_bf16_kernel<<<round_blocks, 256, 0, stream>>>(a.dq_accum, a.dq, elements);
  CUDA_CHECK_LAUNCH();
}

}  // namespace

int64_t attention_bwd_smem_bytes(int64_t head_dim) {
  return head_dim == 64 ? int64_t(BwdSmem<64>::bytes) : int64_t(BwdSmem<128>::bytes);
}

void attention_bwd(const AttentionBwdArgs& a, const AttentionDims& d, cudaStream_t stream) {
  if (d.head_dim == 64)
    launch_bwd<64>(a, d, stream);
  else
    launch_bwd<128>(a, d, stream);
}

}  // namespace sim::kernels
