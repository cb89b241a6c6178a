// The schema of the `training` section: the batch, sequence, precision and kernels of one step.
#include "sim/scenario/attention_kernels.hpp"
#include "sim/scenario/defaults.hpp"
#include "sim/scenario/low_precision_inputs.hpp"
#include "sim/scenario/offload_modules.hpp"
#include "sim/scenario/plan.hpp"
#include "sim/scenario/recompute_modules.hpp"
#include "sim/scenario/routing.hpp"
#include "sim/scenario/schema_sections.hpp"

namespace sim {

std::vector<KeySpec> schema_training_keys() {
  return {
      {"/training/seq_len", "count", "tokens", "", "required", "", "sequence length", 1, 1 << 24},
      {"/training/global_batch", "count", "sequences", "", "required", "", "sequences per optimizer step", 1, 1 << 24},
      {"/training/micro_batch", "count or \"auto\"", "sequences", "1", "", "1..65536 or \"auto\"",
       "sequences per micro-batch; auto: the largest that fits", 1, 1 << 16},
      {"/training/recompute", "choice", "", "\"none\"", "", "none, selective, op, full",
       "activation recomputation (selective: Korthikanti et al. 2022's attention core)", 0, 0},
      {"/training/recompute_modules", "array of choices", "", "", "[\"core_attn\"] with recompute selective", "",
       "what selective recomputation reruns in the backward (Megatron-Core --recompute-modules)", 0, 0},
      {"/training/recompute_modules/*", "choice", "", "", "", registry_names(recompute_module_entries()),
       "one module, each once", 0, 0},
      {"/training/offload_modules", "array of choices", "", "", "none", "",
       "whose saved inputs go to host memory in the forward and come back for the backward, over the cluster's "
       "host_link beside the computation (Megatron-Core --offload-modules)",
       0, 0},
      {"/training/offload_modules/*", "choice", "", "", "", registry_names(offload_module_entries()),
       "one module, each once", 0, 0},
      {"/training/low_precision_inputs", "array of choices", "", "", "none", "",
       "saved inputs cached for the backward in fewer bits than 16 (DeepSeek-V3's E5M6 and FP8 caches, Kimi K2's "
       "FP8 storage); the GEMMs keep the scenario's precision",
       0, 0},
      {"/training/low_precision_inputs/*", "choice", "", "", "", registry_names(low_precision_input_entries()),
       "one input, each once", 0, 0},
      {"/training/precision", "choice", "", "\"bf16\"", "", "bf16, fp16, fp8", "GEMM precision", 0, 0},
      {"/training/attention", "choice", "", "", ATTENTION_DEFAULT, registry_names(attention_kernels()),
       "attention kernel (trainsim list)", 0, 0},
      {"/training/elementwise", "choice", "", "\"fused\"", "", registry_names(elementwise_modes()),
       "how element-wise ops run (fused kernels or eager PyTorch)", 0, 0},
      {"/training/loss", "choice", "", "", "= elementwise", registry_names(elementwise_modes()),
       "how the cross-entropy loss runs", 0, 0},
      {"/training/fp8_scaling", "choice", "", "\"delayed\"", "Transformer Engine's default recipe",
       registry_names(fp8_scaling_recipes()), "FP8 scaling recipe (fp8 only)", 0, 0},
      {"/training/fp8_library", "choice", "", "\"te\"", "", registry_names(fp8_libraries()),
       "library that runs FP8 GEMMs (fp8 only)", 0, 0},
      {"/training/fp8_params", "bool", "", "false", "", "",
       "primary weights held in FP8 (Transformer Engine fp8_model_init; fp8 only)", 0, 0},
      {"/training/routing", "choice", "", "\"balanced\"", "forced balance, as NVIDIA's MoE tables run",
       registry_names(routings()), "how the router spreads an MoE layer's tokens over the experts (trainsim list)", 0,
       0},
      {"/training/expert_load", "array", "", "", "required with routing histogram", "one share >= 0 per expert",
       "measured tokens (or shares) per expert, the same in every MoE layer (routing histogram only)", 0, 0},
      {"/training/expert_load/*", "number", "", "", "", "", "one expert's tokens or share", 0, 0, "0..1e18",
       "an input bound: a share, or a token count up to 10^18"},
      {"/training/capacity_factor", "number", "", "", "none: dropless", "",
       "tokens an expert takes at most, over its mean share; the rest are dropped (GShard's capacity factor; "
       "routing histogram or zipf only)",
       0, 0, "1..1024", "below 1 an expert would drop tokens even when balanced; 1024 is an input bound"},
      {"/training/routing_skew", "number", "", "", "required with routing zipf", "",
       "the exponent s of routing zipf's expert popularity, 1/rank^s (routing zipf only)", 0, 0, "0.01..16",
       "an input bound: below 0.01 the experts are balanced to 1%, above 16 one expert takes all but 2^-16"},
      {"/training/cuda_graphs", "bool", "", "false", "", "",
       "layers' forward and backward captured in CUDA graphs (one launch per pass)", 0, 0},
      {"/training/adam_moments", "choice", "", "\"fp32\"", "PyTorch's and Megatron-Core's Adam", "fp32, bf16",
       "the type of Adam's two moments (bf16: DeepSeek-V3 §3.3.3; Megatron-Core --exp-avg-dtype bf16)", 0, 0},
      {"/training/grad_reduce_in_fp32", "bool", "", "true", MEGATRON_BRIDGE_RECIPES, "",
       "gradient buffer and its reduction in fp32 (false: the parameters' 16-bit type)", 0, 0},
      {"/training/tokens", "count or string", "tokens", "", "none (no time to train)",
       "1..1e18; a whole number or \"15.6T\", \"300B\", \"50M\"", "tokens to train, for the time to train", 1,
       1000000000000000000},
  };
}

}  // namespace sim
