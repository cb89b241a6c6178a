#include "sim/scenario/recompute_modules.hpp"

namespace sim {

const std::vector<RecomputeModuleEntry>& recompute_module_entries() {
  static const std::vector<RecomputeModuleEntry> entries{
      {RecomputeModule::CORE_ATTN, "core_attn",
       "the attention core: its s x s scores, softmax and dropout, none kept (Korthikanti et al. 2022; the default)"},
      {RecomputeModule::LAYERNORM, "layernorm",
       "the two norms before attention and the MLP: their outputs, the QKV and MLP GEMMs' inputs, not kept"},
      {RecomputeModule::MLA_UP_PROJ, "mla_up_proj",
       "MLA's latent norms, up-projections and RoPE: the queries, keys and values not kept, the latents kept "
       "(DeepSeek-V3 §3.2.3)"},
      {RecomputeModule::MLP, "mlp", "a dense layer's MLP, its input and inner activations not kept"},
      {RecomputeModule::MOE_ACT, "moe_act",
       "the routed experts' activation function: its output, fc2's input, not kept"},
      {RecomputeModule::SHARED_EXPERTS, "shared_experts", "the shared experts: their inner activations not kept"},
  };
  return entries;
}

}  // namespace sim
