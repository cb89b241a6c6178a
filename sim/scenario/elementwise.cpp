#include "sim/scenario/elementwise.hpp"

namespace sim {

const std::vector<ElementwiseMode>& elementwise_modes() {
  static const std::vector<ElementwiseMode> modes{
      {Elementwise::FUSED, "fused",
       "one kernel per norm, activation and rotary embedding (Megatron-Core and Transformer Engine, torch.compile)"},
      {Elementwise::EAGER, "eager",
       "PyTorch eager on the reference model code: an ATen kernel per op, RMSNorm and RoPE in fp32 (torchtitan "
       "without torch.compile)"},
  };
  return modes;
}

}  // namespace sim
