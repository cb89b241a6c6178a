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
// per 128 elements beside the FP8 tensor. MXFP8: the OCP Microscaling format (OCP MX
// Specification v1.0): a power-of-two scale (E8M0, one byte) per block of 32 consecutive elements,
// which Blackwell's tensor cores apply inside the GEMM (Transformer Engine's MXFP8BlockScaling,
// compute capability 10.0 and later: MXFP8_COMPUTE_CAPABILITY); the blocks run along the
// contraction dimension, so a tensor that is multiplied both ways (an activation: forward and
// weight gradient) is quantized twice, row-wise and column-wise (transformer_engine
// MXFP8Quantizer with both usages).
enum class Fp8Scaling { DELAYED, CURRENT, BLOCKWISE, MXFP8 };

using Fp8ScalingRecipe = NamedChoice<Fp8Scaling>;

// MXFP8's block-scaled GEMMs: compute capability 10.0 (Blackwell), major * 10 + minor
// (DeviceSpec::compute_capability).
constexpr int MXFP8_COMPUTE_CAPABILITY = 100;

// Bytes of scale an FP8 copy of a tensor carries per element under `scaling`: an fp32 per 1x128
// tile (blockwise), an E8M0 byte per block of 32 (MXFP8), none for one scale per tensor.
double fp8_scale_bytes_per_element(Fp8Scaling scaling);

const std::vector<Fp8ScalingRecipe>& fp8_scaling_recipes();

}  // namespace sim
