// Attention kernels: a tiled FlashAttention-2-style forward and backward pass of our own (WMMA
// bf16 tensor-core tiles, fp32 accumulation, online softmax), and naive fp32 references.
//
// Layouts: Q, K, V, O, dO, dQ, dK, dV are [batch, seq_len, heads, head_dim] bf16 (FlashAttention's
// "bshd"); lse and delta are [batch, heads, seq_len] fp32. lse holds log2(sum_j exp2(s_ij)) of
// the scaled scores s_ij = q_i.k_j / sqrt(head_dim) * log2(e), so P = exp2(s - lse).
// Causal masking keeps key j <= query i (queries and keys have the same length).
//
// Supported: head_dim 64 or 128, any seq_len >= 1 (partial tiles are masked). The forward kernel
// runs one block of 4 warps per 64 queries of one (batch, head), looping over 64-key tiles. The
// backward kernel runs one block per 64 keys, looping over 64-query tiles; it keeps dK and dV in
// registers and adds dQ into an fp32 buffer with atomics, then a last kernel rounds it to bf16.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace sim::kernels {

struct AttentionDims {
  int64_t batch = 1, heads = 1, seq_len = 1, head_dim = 64;
  bool causal = false;

  int64_t elements() const { return batch * seq_len * heads * head_dim; }  // of one [B,S,H,D] tensor
  int64_t rows() const { return batch * heads * seq_len; }                 // of lse / delta
};

// "" when the kernels support `d` on a device with `smem_optin` bytes of shared memory per
// block, else why not.
std::string attention_unsupported(const AttentionDims& d, int64_t smem_optin);

// Dynamic shared memory of the kernels for head_dim 64 or 128, bytes.
int64_t attention_fwd_smem_bytes(int64_t head_dim);
int64_t attention_bwd_smem_bytes(int64_t head_dim);

void attention_fwd(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o, float* lse,
                   const AttentionDims& d, cudaStream_t stream);

struct AttentionBwdArgs {
  const __nv_bfloat16 *q, *k, *v, *o, *dout;
  const float* lse;
  __nv_bfloat16 *dq, *dk, *dv;
  float* delta;     // [B,H,S] scratch
  float* dq_accum;  // [B,S,H,D] fp32 scratch
};
void attention_bwd(const AttentionBwdArgs& a, const AttentionDims& d, cudaStream_t stream);

// Naive fp32 references (one thread per output row or element; for small problems only).
// o_ref: [B,S,H,D], lse_ref: [B,H,S].
void attention_ref_fwd(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, float* o_ref,
                       float* lse_ref, const AttentionDims& d, cudaStream_t stream);
// p and ds: [B,H,S,S] fp32 scratch; uses lse_ref from attention_ref_fwd; grads [B,S,H,D] fp32.
void attention_ref_bwd(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                       const __nv_bfloat16* dout, const float* lse_ref, float* p, float* ds, float* dq, float* dk,
                       float* dv, const AttentionDims& d, cudaStream_t stream);

}  // namespace sim::kernels
