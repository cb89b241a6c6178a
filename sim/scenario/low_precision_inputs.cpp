#include "sim/scenario/low_precision_inputs.hpp"

namespace sim {

const std::vector<LowPrecisionInputEntry>& low_precision_input_entries() {
  static const std::vector<LowPrecisionInputEntry> entries{
      {LowPrecisionInput::ATTN_PROJ, "attn_proj",
       "the attention output projection's input (the core's output, which its backward reads too): one E5M6 "
       "copy (12 bits) instead of a 16-bit one and an FP8 one (DeepSeek-V3)"},
      {LowPrecisionInput::EXPERT_FC1, "expert_fc1",
       "the routed experts' first GEMMs' input, each token's top_k copies: FP8 (Kimi K2; what FP8 training keeps "
       "anyway)"},
      {LowPrecisionInput::MOE_ACT, "moe_act",
       "the experts' activation function's input (fc1's output, routed and shared experts): FP8 (DeepSeek-V3, "
       "Kimi K2)"},
  };
  return entries;
}

bool low_precision_input_needs_moe(LowPrecisionInput m) {
  return m == LowPrecisionInput::EXPERT_FC1 || m == LowPrecisionInput::MOE_ACT;
}

double low_precision_input_bytes(LowPrecisionInput m) { return m == LowPrecisionInput::ATTN_PROJ ? 1.5 : 1.0; }

}  // namespace sim
