#include "sim/scenario/attention_kernels.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/scenario/named_choice.hpp"

namespace sim {

namespace {

// The head dimensions the kernels are compiled for. flash-attn 2: HEADDIM_SWITCH
// (csrc/flash_attn/src/static_switch.h) instantiates 32, 64, 96, 128, 160, 192 and 256 and runs a
// head in the first at least as large ("HEADDIM <= 96 ... kHeadDim = 96"). The Triton kernel
// (flash_attn_triton.py): BLOCK_HEADDIM = max(triton.next_power_of_2(d), 16). flash-attn 1.x
// compiles its fmha kernels for head dimensions 16, 32, 64 and 128. cuDNN's fused attention takes
// any multiple of 8 up to its limit: no list.
const std::vector<int> kFlashAttention2HeadDims{32, 64, 96, 128, 160, 192, 256};

}  // namespace

const std::vector<AttentionKernel>& attention_kernels() {
  static const std::vector<AttentionKernel> kernels{
      {Attention::UNFUSED,
       "unfused",
       nullptr,
       {},
       "scores GEMM, softmax, dropout and context GEMM as separate kernels (Megatron-LM 2021-22)"},
      {Attention::FLASH,
       "flash",
       "flash_attention",
       {"torch-sdpa-flash", "FA2"},
       "FlashAttention-2: flash-attn 2, PyTorch SDPA's default on Ampere and Hopper (torchtitan)",
       std::nullopt,
       false,
       kFlashAttention2HeadDims},
      {Attention::CUDNN,
       "cudnn",
       "cudnn_attention",
       {"torch-sdpa-cudnn", "cuDNN"},
       "cuDNN fused attention: Transformer Engine's choice on Hopper and later (NeMo, Megatron-Core)"},
      // Dao 2023 ("FlashAttention-2", arXiv:2307.08691) §4.1, A100 80GB, head dims 64 and 128,
      // causal and not, sequences 512 to 16k: "FlashAttention-2 is around 1.3-1.5x faster than
      // FlashAttention in Triton in the forward pass and around 2x faster in the backward pass"
      // (1.4: the middle of the forward's range), and "around 2x faster than FlashAttention". The
      // ratios are the A100's; the kernels use no Hopper instruction FlashAttention-2 would not,
      // so they are taken on Hopper too.
      {Attention::TRITON,
       "triton",
       nullptr,
       {},
       "FlashAttention in Triton (flash_attn_triton.py; llm-foundry's attn_impl triton, 2023): FlashAttention-2's "
       "curve, forward 1.4x and backward 2x its time (Dao 2023 §4.1)",
       KernelDerivation{Attention::FLASH, 1.4, 2.0},
       false,
       {16, 32, 64, 128, 256}},
      {Attention::FLASH1,
       "flash1",
       nullptr,
       {},
       "FlashAttention-1 (flash-attn 1.x): FlashAttention-2's curve at 2x its time (Dao 2023 §4.1)",
       KernelDerivation{Attention::FLASH, 2.0, 2.0},
       false,
       {16, 32, 64, 128}},
      // llm-foundry's flash_attn_fn (llmfoundry/models/layers/attention.py at 5e85bd62d) passes
      // the queries, keys and values through bert_padding.unpad_input, calls
      // flash_attn_varlen_func, and scatters the output back with bert_padding.pad_input -- even
      // when no token is padding.
      {Attention::FLASH_VARLEN,
       "flash_varlen",
       nullptr,
       {},
       "FlashAttention-2 on unpadded tokens (llm-foundry's attn_impl flash): FlashAttention-2's curve, plus the "
       "gathers of Q, K, V and the scatter of the output, and their gradients' reverse",
       KernelDerivation{Attention::FLASH, 1.0, 1.0},
       true,
       kFlashAttention2HeadDims},
  };
  return kernels;
}

const AttentionKernel& attention_kernel(Attention a) { return registry_entry(attention_kernels(), a); }

Attention curve_kernel(Attention a) {
  const auto& d = attention_kernel(a).derived;
  return d ? d->base : a;
}

double kernel_head_dim(Attention a, double d) {
  for (int k : attention_kernel(a).head_dims)
    if (d <= k) return k;
  return d;
}

std::optional<Attention> attention_measured_by(const std::string& impl) {
  if (impl.empty()) return Attention::FLASH;  // published files before the registry named none
  for (const auto& k : attention_kernels())
    if (std::find(k.measured_by.begin(), k.measured_by.end(), impl) != k.measured_by.end()) return k.kind;
  return std::nullopt;
}

}  // namespace sim
