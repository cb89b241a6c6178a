// How a run executes the memory-bound work around its matmuls -- norms, activations, rotary
// embeddings, the loss -- which scenario keys `training.elementwise` and, for the loss apart,
// `training.loss` name and `trainsim list` prints. The byte counts of each mode live with the ops
// (sim/workload/ops.cpp, "Eager kernels").
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/named_choice.hpp"

namespace sim {

// FUSED: one kernel per norm, activation and rotary embedding, as Megatron-Core with Transformer
// Engine, Apex and torch.compile run them. EAGER: PyTorch eager on the reference model code
// (torchtitan's and Meta's Llama, Hugging Face's LlamaRMSNorm): every ATen op its own kernel, RMSNorm
// and RoPE upcast to fp32.
enum class Elementwise { FUSED, EAGER };

using ElementwiseMode = NamedChoice<Elementwise>;

const std::vector<ElementwiseMode>& elementwise_modes();

}  // namespace sim
