// The defaults that depend on other keys, each decided here once: the readers call these when a
// scenario leaves the key out, and the schema's line for the key prints the rule beside them
// (schema_plan.cpp, schema_training.cpp), so `trainsim keys` and docs/scenario.md say what the
// reader does.
//
// trainsim's defaults are what a user of the current Megatron-Core stack gets without asking:
// Megatron-Bridge's pre-training recipes (NVIDIA-NeMo/Megatron-Bridge at 067f987,
// src/megatron/bridge/recipes/common.py, _pretrain_common) build every recipe's
// DistributedDataParallelConfig(check_for_nan_in_grad=True, grad_reduce_in_fp32=True,
// overlap_grad_reduce=True, overlap_param_gather=True, average_in_collective=True,
// use_distributed_optimizer=True), which the Llama 3 recipes restate
// (recipes/llama/h100/llama3.py); Megatron-Core's own dataclass and Megatron-LM's flags default
// all of them to false (NVIDIA/Megatron-LM at d98e8a6,
// megatron/core/distributed/distributed_data_parallel_config.py; megatron/training/arguments.py,
// --overlap-grad-reduce, --overlap-param-gather, --accumulate-allreduce-grads-in-fp32), which is
// what the published 2021-22 Megatron-LM runs used. Rows of the validation tables state each
// setting their run used.
#pragma once

#include "sim/scenario/attention_kernels.hpp"

namespace sim {

struct DeviceSpec;
struct ParallelPlan;

// The source of the defaults the recipes set outright (overlap_grad_reduce: true;
// grad_reduce_in_fp32: true), as the schema prints it.
extern const char* const MEGATRON_BRIDGE_RECIPES;

// /parallelism/overlap_param_gather when absent: true where Megatron-Core can overlap the
// distributed optimizer's parameter all-gather with the next forward -- ZeRO-1 or -2 with
// overlap_grad_reduce (arguments.py asserts "--overlap-param-gather only supported with
// distributed optimizer" and "Must use --overlap-param-gather with --overlap-grad-reduce") --
// as the recipes set it; false elsewhere, where there is no such gather to overlap.
bool default_overlap_param_gather(const ParallelPlan& p);
extern const char* const OVERLAP_PARAM_GATHER_DEFAULT;

// /training/attention when absent: the kernel Transformer Engine picks under Megatron-Core's
// TransformerConfig.attention_backend = AttnBackend.auto (transformer_config.py at d98e8a6), the
// recipes' choice (llama3.py sets attention_backend None: TE's own selection).
// TransformerEngine's get_attention_backend (NVIDIA/TransformerEngine at d0067d0,
// transformer_engine/pytorch/attention/dot_product_attention/utils.py) drops FlashAttention when
// FusedAttention is also available and the device's compute capability is at least 9.0
// ("Disabling FlashAttention to give FusedAttention preference on Hopper+ for performance
// reasons"), and otherwise selects FlashAttention first: cuDNN's fused attention ("cudnn") on
// Hopper and later, FlashAttention-2 ("flash") on Ampere and any device whose profile states no
// compute capability (a TPU's profile, whose fused kernels parse_scenario then asks to be named).
Attention default_attention(const DeviceSpec& d);
extern const char* const ATTENTION_DEFAULT;

}  // namespace sim
