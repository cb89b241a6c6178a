// Tile geometry and helpers shared by the attention forward and backward kernels.
//
// Shared-memory tiles are row-major with padded rows (8 bf16 or 4 fp32 extra) so that WMMA loads
// of consecutive rows fall in different banks; every fragment pointer stays 32-byte aligned, as
// wmma::load_matrix_sync requires, because tiles have 16-row multiples and 32-byte-multiple rows.
#pragma once

#include <cuda_bf16.h>
#include <mma.h>

namespace sim::kernels::attn {

namespace wmma = nvcuda::wmma;
using bf16 = __nv_bfloat16;

constexpr int kWarps = 4;
constexpr int kThreads = 32 * kWarps;
constexpr int kBr = 16 * kWarps;  // query rows per tile: 16 per warp
constexpr int kBc = 64;           // key rows per tile
constexpr float kLog2e = 1.4426950408889634f;

template <int D>
struct Ld {
  static constexpr int kTile = D + 8;     // bf16 [rows x D] tiles: Q, K, V, dO
  static constexpr int kScore = kBc + 4;  // fp32 [rows x kBc]: scores, dP
  static constexpr int kProb = kBc + 8;   // bf16 [rows x kBc]: P, dS
  static constexpr int kAcc = D + 4;      // fp32 [rows x D]: O, dQ, dK, dV staging
};

using FragA = wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major>;
using FragAT = wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::col_major>;
using FragB = wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major>;
using FragBT = wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::col_major>;
using FragC = wmma::fragment<wmma::accumulator, 16, 16, 16, float>;

// Copies rows [row0, row0 + ROWS) of a [S, row_stride] bf16 matrix (D columns used) into a
// shared tile with leading dimension `ld`; rows at or beyond S become zeros (so that masked
// probabilities never meet garbage values: 0 * NaN would poison the sums).
template <int D, int ROWS>
__device__ __forceinline__ void load_tile(bf16* dst, int ld, const bf16* src, int64_t row_stride, int row0, int S) {
  constexpr int kChunks = D / 8;
  for (int idx = threadIdx.x; idx < ROWS * kChunks; idx += blockDim.x) {
    const int r = idx / kChunks, c = (idx % kChunks) * 8;
    uint4 val = make_uint4(0u, 0u, 0u, 0u);
    if (row0 + r < S) val = *reinterpret_cast<const uint4*>(src + (row0 + r) * row_stride + c);
    *reinterpret_cast<uint4*>(dst + r * ld + c) = val;
  }
}

// Writes 8 floats * scale as bf16 to a 16-byte-aligned global address.
__device__ __forceinline__ void store8(bf16* dst, const float* src, float scale) {
  uint4 u;
  __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&u);
#pragma unroll
  for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(src[2 * i] * scale, src[2 * i + 1] * scale);
  *reinterpret_cast<uint4*>(dst) = u;
}

}  // namespace sim::kernels::attn
