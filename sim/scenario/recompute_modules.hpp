// The parts of a transformer layer that selective recomputation reruns in the backward instead of
// keeping their outputs -- scenario key `training.recompute_modules` (with recompute "selective"),
// printed by `trainsim list`. Megatron-Core's --recompute-modules (transformer_config.py,
// recompute_modules; its default, "core_attn", is Korthikanti et al. 2022's selective
// recomputation). Which ops each reruns and which tensors it stops keeping live with the ops
// (sim/workload/ops.cpp, recomputed) and the activations (sim/workload/memory.cpp).
#pragma once

#include <vector>

#include "sim/scenario/named_choice.hpp"

namespace sim {

enum class RecomputeModule { CORE_ATTN, LAYERNORM, MLA_UP_PROJ, MLP, MOE_ACT, SHARED_EXPERTS };

using RecomputeModuleEntry = NamedChoice<RecomputeModule>;

const std::vector<RecomputeModuleEntry>& recompute_module_entries();

}  // namespace sim
