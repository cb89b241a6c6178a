// The saved inputs a layer caches for its backward in fewer bits than their 16-bit type --
// scenario key `training.low_precision_inputs`, printed by `trainsim list`. DeepSeek-V3's training
// framework (DeepSeek-V3 technical report, arXiv 2412.19437, §3.3.3 "Low-Precision Activation")
// caches the input of the linear layer after attention once, in a 12-bit E5M6 format that the
// attention core's backward reads too, and the MoE layers' SwiGLU inputs in FP8 with 1x128
// tiles; Kimi K2 (arXiv 2507.20534, §2.4) stores the MoE up-projections' and SwiGLU's inputs in
// FP8-E4M3 beside BF16 GEMMs. Which tensors each shrinks lives with the activations
// (sim/workload/memory.cpp); the GEMMs run at the scenario's precision either way.
#pragma once

#include <vector>

#include "sim/scenario/named_choice.hpp"

namespace sim {

enum class LowPrecisionInput { ATTN_PROJ, EXPERT_FC1, MOE_ACT };

using LowPrecisionInputEntry = NamedChoice<LowPrecisionInput>;

const std::vector<LowPrecisionInputEntry>& low_precision_input_entries();

// Whether the input is an MoE layer's: a dense model has none of it.
bool low_precision_input_needs_moe(LowPrecisionInput m);

// Bytes an element of the input takes cached so: attn_proj's E5M6 is 12 bits (1 sign, 5 exponent,
// 6 mantissa bits), taken as packed; the others FP8's one byte.
double low_precision_input_bytes(LowPrecisionInput m);

}  // namespace sim
