#include "sim/scenario/offload_modules.hpp"

namespace sim {

const std::vector<OffloadModuleEntry>& offload_module_entries() {
  static const std::vector<OffloadModuleEntry> entries{
      {OffloadModule::ATTN_NORM, "attn_norm", "the norm before attention: its input (the layer's input)"},
      {OffloadModule::QKV_LINEAR, "qkv_linear", "the QKV projection: its input (the first norm's output)"},
      {OffloadModule::CORE_ATTN, "core_attn", "the attention core: its queries, keys and values"},
      {OffloadModule::ATTN_PROJ, "attn_proj", "the attention output projection: its input (the core's output)"},
      {OffloadModule::MLP_NORM, "mlp_norm", "the norm before the MLP: its input"},
      {OffloadModule::EXPERT_FC1, "expert_fc1",
       "the routed experts' first GEMMs: their input, each token's top_k copies"},
      {OffloadModule::MOE_ACT, "moe_act", "the routed experts' activation function: its input (fc1's output)"},
  };
  return entries;
}

bool offload_module_needs_moe(OffloadModule m) { return m == OffloadModule::EXPERT_FC1 || m == OffloadModule::MOE_ACT; }

}  // namespace sim
