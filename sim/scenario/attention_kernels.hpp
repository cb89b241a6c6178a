// The attention kernels a scenario may name (`training.attention`) and `trainsim list` prints:
// each with the device-profile curve that prices it and the implementations of the kernel suite
// (and of published measurement files) that measure it, so that `trainsim calibrate` fits each
// curve from its own kernel's records.
//
// The fused kernels differ by a factor that matters: on the H200, cuDNN's fused attention runs a
// causal head-dim-128 forward+backward at 8k at 481 TFLOP/s, PyTorch SDPA's flash backend
// (FlashAttention-2) at 284 (calibration/measured/nvidia-h200-2026-11-30.json). Which one a run
// gets depends on its framework: PyTorch's SDPA picks FlashAttention-2 on Ampere and Hopper
// (torchtitan, llm-foundry, Hugging Face); Transformer Engine (NeMo, Megatron-Core) prefers cuDNN's
// fused attention on Hopper and later.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace sim {

// UNFUSED: Megatron-LM's unfused path (two batched GEMMs around a fused softmax and a dropout,
// s x s scores in HBM; the published 2021-22 A100 runs). FLASH: FlashAttention-2 (Dao 2023), as
// flash-attn 2 and PyTorch SDPA's flash backend run it. CUDNN: cuDNN's fused flash attention
// (Transformer Engine's FusedAttention, SDPA's cudnn backend). TRITON: FlashAttention in Triton
// (flash_attn_triton.py, llm-foundry's attn_impl "triton" in 2023). FLASH1: FlashAttention-1
// (flash-attn 1.x). FLASH_VARLEN: FlashAttention-2 called through flash-attn's variable-length
// interface behind bert_padding's unpad_input and pad_input (llm-foundry's flash_attn_fn). The fused
// ones never write the scores.
enum class Attention { UNFUSED, FLASH, CUDNN, TRITON, FLASH1, FLASH_VARLEN };

// A kernel priced from another's curve: its forward and backward take `forward` and `backward`
// times as long as the base kernel's on the same problem, as a published benchmark of both on one
// GPU measured them.
struct KernelDerivation {
  Attention base;
  double forward = 1.0, backward = 1.0;
};

struct AttentionKernel {
  Attention kind;
  const char* name;                      // the scenario value
  const char* profile_key;               // the device profile's curve; nullptr: priced op by op or derived
  std::vector<std::string> measured_by;  // `impl` names of measurement records of this kernel
  const char* description;
  std::optional<KernelDerivation> derived{};  // priced from another kernel's curve
  // Whether the kernel is called on unpadded tokens: the queries, keys and values gathered into
  // packed tensors before it and the output scattered back after it (bert_padding's
  // index_first_axis and pad_input), their gradients the other way in the backward (ops.cpp).
  bool unpads = false;
  // The head dimensions the kernel is compiled for: a head dimension runs in the smallest one at
  // least as large, its extra columns computed on zeros (FLOPs executed in proportion); empty:
  // as it is. ops.cpp prices the padded dimension (kernel_head_dim).
  std::vector<int> head_dims{};
};

const std::vector<AttentionKernel>& attention_kernels();
const AttentionKernel& attention_kernel(Attention a);
// The kernel a measurement record of implementation `impl` times: FlashAttention for a record that
// names none (published files written before the registry); std::nullopt when none of ours.
std::optional<Attention> attention_measured_by(const std::string& impl);
inline bool fused(Attention a) { return a != Attention::UNFUSED; }
// The kernel whose device-profile curve prices `a`: its base when derived, else itself.
Attention curve_kernel(Attention a);
// The head dimension kernel `a` runs a head of `d` in (AttentionKernel::head_dims).
double kernel_head_dim(Attention a, double d);
// The head dimension the profiles' attention curves are fitted at (calibrate/fit.cpp); other head
// dimensions scale them by the profile's factor for theirs (DeviceSpec::attention_head_dim_factor).
constexpr int kReferenceHeadDim = 128;

}  // namespace sim
