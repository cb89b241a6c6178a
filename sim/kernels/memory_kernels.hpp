// Memory-bound kernels of a transformer layer: bf16 in and out, fp32 arithmetic.
//
// Layouts (row-major): x, y, dy, dx are [rows, hidden]; weights (w, gamma, beta) are [hidden];
// per-row statistics (rstd, mean) are [rows] fp32. SwiGLU's input is [rows, 2*hidden] holding
// [gate | up] per row and its output is [rows, hidden].
//
// Requirements: hidden % 8 == 0 (16-byte vectors) and, for the row kernels (norms, softmax),
// hidden <= kMaxRowHidden (a row lives in the registers of one block). Row kernels run one block
// per row; the norm backward kernels run `blocks` blocks over all rows, each accumulating its
// weight-gradient partial sums in registers, then a second kernel adds the partials
// ([blocks, hidden] fp32; layernorm needs two such arrays back to back). Element-wise kernels are
// grid-stride loops over 16-byte vectors. All launches are asynchronous on `stream`.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace sim::kernels {

using bf16 = __nv_bfloat16;

constexpr int64_t kMaxRowHidden = 16384;
bool row_kernel_supports(int64_t hidden);  // hidden % 8 == 0 && 8 <= hidden <= kMaxRowHidden

// Number of blocks the norm backward kernels use for `rows` rows on `sms` SMs.
int norm_bwd_blocks(int64_t rows, int sms);

void rmsnorm_fwd(const bf16* x, const bf16* w, bf16* y, float* rstd, int64_t rows, int64_t hidden, float eps,
                 cudaStream_t stream);
void rmsnorm_bwd(const bf16* dy, const bf16* x, const bf16* w, const float* rstd, bf16* dx, bf16* dw, float* partials,
                 int64_t rows, int64_t hidden, int blocks, cudaStream_t stream);
void layernorm_fwd(const bf16* x, const bf16* gamma, const bf16* beta, bf16* y, float* mean, float* rstd, int64_t rows,
                   int64_t hidden, float eps, cudaStream_t stream);
void layernorm_bwd(const bf16* dy, const bf16* x, const bf16* gamma, const float* mean, const float* rstd, bf16* dx,
                   bf16* dgamma, bf16* dbeta, float* partials, int64_t rows, int64_t hidden, int blocks,
                   cudaStream_t stream);
void softmax_fwd(const bf16* x, bf16* y, int64_t rows, int64_t hidden, cudaStream_t stream);
void softmax_bwd(const bf16* y, const bf16* dy, bf16* dx, int64_t rows, int64_t hidden, cudaStream_t stream);

// Element-wise; `count` elements (a multiple of 8); `sms` sizes the grid.
void gelu_fwd(const bf16* x, bf16* y, int64_t count, int sms, cudaStream_t stream);
void gelu_bwd(const bf16* x, const bf16* dy, bf16* dx, int64_t count, int sms, cudaStream_t stream);
void residual_add(const bf16* a, const bf16* b, bf16* out, int64_t count, int sms, cudaStream_t stream);
void swiglu_fwd(const bf16* x, bf16* y, int64_t rows, int64_t hidden, int sms, cudaStream_t stream);
void swiglu_bwd(const bf16* x, const bf16* dy, bf16* dx, int64_t rows, int64_t hidden, int sms, cudaStream_t stream);

// Copies `bytes` (a multiple of 16) with an SM kernel (16-byte loads and stores).
void copy_sm(const void* src, void* dst, size_t bytes, int sms, cudaStream_t stream);

}  // namespace sim::kernels
