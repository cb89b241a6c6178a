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
      {Fp8Scaling::BLOCKWISE, "blockwise",
       "a scale per 1x128 activation tile and 128x128 weight block, taken by the cast kernel from the tile it casts "
       "(DeepSeek-V3's fine-grained quantization; Transformer Engine's Float8BlockScaling)"},
      {Fp8Scaling::MXFP8, "mxfp8",
       "a one-byte power-of-two scale per block of 32 elements, applied by Blackwell's tensor cores; each tensor "
       "quantized row-wise and column-wise (the OCP MX format; Transformer Engine's MXFP8BlockScaling)"},
  };
  return recipes;
}

double fp8_scale_bytes_per_element(Fp8Scaling scaling) {
  switch (scaling) {
    case Fp8Scaling::BLOCKWISE: return 4.0 / 128.0;
    case Fp8Scaling::MXFP8: return 1.0 / 32.0;
    case Fp8Scaling::DELAYED:
    case Fp8Scaling::CURRENT: break;
  }
  return 0.0;
}

}  // namespace sim
