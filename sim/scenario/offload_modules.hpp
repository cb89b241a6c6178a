// The parts of a transformer layer whose saved inputs fine-grained activation offloading copies to
// host memory in the forward and back in the backward -- scenario key `training.offload_modules`,
// printed by `trainsim list`. Megatron-Core's --offload-modules (docs/user-guide/features/
// fine_grained_activation_offloading.md): each module's input, kept for its backward, leaves the
// GPU on a stream of its own beside the computation. Which tensors each stops keeping lives with
// the activations (sim/workload/memory.cpp, layer_offloaded_bytes); the copies are priced on the
// cluster's host link (cluster.host_link; workload/task_pricer.cpp).
#pragma once

#include <vector>

#include "sim/scenario/named_choice.hpp"

namespace sim {

enum class OffloadModule { ATTN_NORM, QKV_LINEAR, CORE_ATTN, ATTN_PROJ, MLP_NORM, EXPERT_FC1, MOE_ACT };

using OffloadModuleEntry = NamedChoice<OffloadModule>;

const std::vector<OffloadModuleEntry>& offload_module_entries();

// Whether the module is an MoE layer's (its experts'): a dense model has none of it.
bool offload_module_needs_moe(OffloadModule m);

}  // namespace sim
