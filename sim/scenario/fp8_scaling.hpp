// How an FP8 run picks the scale of each tensor it casts -- scenario key `training.fp8_scaling`,
// printed by `trainsim list`. The bytes each recipe moves live with the ops (sim/workload/ops.cpp,
// "FP8 casts").
#pragma once

#include <vector>

#include "sim/scenario/named_choice.hpp"

namespace sim {

// DELAYED: the scale comes from the amax history of earlier steps, and each cast kernel takes the
// tensor's amax as it casts (Transformer Engine's DelayedScaling, its default recipe through 2.x;
// NeMo's and llm-foundry's FP8 runs). CURRENT: the scale comes from the tensor itself, so an amax
// pass reads it before its cast (Transformer Engine 2.x's Float8CurrentScaling; torchao's
// Float8Linear, whose default is dynamic tensorwise scaling, as torchtitan runs it). BLOCKWISE:
// a scale per 1x128 tile of each activation and gradient and per 128x128 block of each weight,
// each taken from its own tile by the cast kernel as it casts (DeepSeek-V3 technical report,
// arXiv 2412.19437, §3.3.2; Transformer Engine's Float8BlockScaling), which writes an fp32 scale
// per 128 elements beside the FP8 tensor.
enum class Fp8Scaling { DELAYED, CURRENT, BLOCKWISE };

using Fp8ScalingRecipe = NamedChoice<Fp8Scaling>;

const std::vector<Fp8ScalingRecipe>& fp8_scaling_recipes();

}  // namespace sim
