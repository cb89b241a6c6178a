#include "sim/scenario/defaults.hpp"

#include "sim/scenario/device.hpp"
#include "sim/scenario/plan.hpp"

namespace sim {

// Transformer Engine's threshold for preferring its fused (cuDNN) attention: compute capability
// 9.0, written as major * 10 + minor (DeviceSpec::compute_capability).
constexpr int HOPPER_COMPUTE_CAPABILITY = 90;

const char* const MEGATRON_BRIDGE_RECIPES =
    "Megatron-Bridge recipes, recipes/common.py at 067f987; Megatron-Core's own flag: false";

bool default_overlap_param_gather(const ParallelPlan& p) {
  return p.overlap_grad_reduce && (p.zero == 1 || p.zero == 2);
}

const char* const OVERLAP_PARAM_GATHER_DEFAULT =
    "= true with zero 1 or 2 and overlap_grad_reduce, else false (Megatron-Bridge recipes, recipes/common.py at "
    "067f987)";

Attention default_attention(const DeviceSpec& d) {
  return d.compute_capability >= HOPPER_COMPUTE_CAPABILITY ? Attention::CUDNN : Attention::FLASH;
}

const char* const ATTENTION_DEFAULT =
    "= \"cudnn\" on a device of compute capability 9.0 or later (Hopper, Blackwell), else \"flash\": the kernel "
    "Transformer Engine picks under Megatron-Core's attention_backend auto (TransformerEngine at d0067d0, "
    "get_attention_backend)";

}  // namespace sim
