#include "sim/scenario/attention_kernels.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace sim {

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
       "FlashAttention-2: flash-attn 2, PyTorch SDPA's default on Ampere and Hopper (torchtitan, llm-foundry)"},
      {Attention::CUDNN,
       "cudnn",
       "cudnn_attention",
       {"torch-sdpa-cudnn", "cuDNN"},
       "cuDNN fused attention: Transformer Engine's choice on Hopper and later (NeMo, Megatron-Core)"},
  };
  return kernels;
}

const AttentionKernel& attention_kernel(Attention a) {
  for (const auto& k : attention_kernels())
    if (k.kind == a) return k;
  SIM_ASSERT(false, "every Attention has a registry entry");
  return attention_kernels().front();
}

std::optional<Attention> attention_measured_by(const std::string& impl) {
  if (impl.empty()) return Attention::FLASH;  // published files before the registry named none
  for (const auto& k : attention_kernels())
    if (std::find(k.measured_by.begin(), k.measured_by.end(), impl) != k.measured_by.end()) return k.kind;
  return std::nullopt;
}

}  // namespace sim
