#include "sim/scenario/fp8_scaling.hpp"

namespace sim {

const std::vector<Fp8ScalingRecipe>& fp8_scaling_recipes() {
  static const std::vector<Fp8ScalingRecipe> recipes{
      {Fp8Scaling::DELAYED, "delayed",
       "scale from the amax history, amax taken inside each cast kernel (Transformer Engine's DelayedScaling; NeMo, "
       "llm-foundry)"},
      {Fp8Scaling::CURRENT, "current",
       "scale from the tensor itself: an amax pass reads each tensor before its cast (Transformer Engine's "
       "Float8CurrentScaling, torchao's dynamic tensorwise Float8Linear; torchtitan)"},
  };
  return recipes;
}

}  // namespace sim
