// The parallel plans `trainsim search` considers for a scenario:
//   tp  every degree that divides an NVLink domain's GPUs (a node's; a GB200 NVL72 rack's 72) and
//       the model's heads, KV heads and FFN width;
//   cp  1, and every degree that splits seq_len into 2 cp load-balanced chunks (scenario.cpp) of at
//       least MIN_CP_TOKENS tokens per rank, with tp * cp dividing the GPUs (the scenario's own cp
//       always);
//   pp  every degree that divides the GPUs left after tp and cp and is at most the layer count;
//   dp  the rest, when it divides the global batch;
//   ep  on an MoE model, 1 and every degree above it that divides the experts and the ranks the
//       expert-parallel groups fold over (tp x dp x cp), each with every dispatcher (dispatcher.hpp:
//       alltoall, allgather, deepep; refused plans, deepep off an NVSwitch fabric, say why), and,
//       with tp > 1 under the alltoall dispatcher, the experts split over tp (etp = tp) where ep
//       divides the dp x cp ranks their groups then span; the scenario's (1) on a dense one;
//   sequence parallelism off and on (tp > 1); each recompute setting (torchtitan's per-op
//   checkpointing only when the scenario states it, where it can run: tp = 1 or sequence
//   parallel);
//   ZeRO 0-3 when dp > 1 (the scenario's own stage when dp = 1, where it shards nothing);
//   the precision: the scenario's, and fp8 when it is not fp8 and the device has fp8 and bf16
//   peaks (scenario.cpp).
//   the schedule, with pp > 1: the scenario's (absent: 1F1B, interleaved when the planner picks
//       virtual stages > 1), then each zero-bubble schedule (zb_h1, zb_h2, zb_v) and, on an MoE
//       model, DualPipe and DualPipeV, whose overlapped pairs hide the expert-parallel all-to-alls
//       (a schedule the plan's microbatches or layers cannot run is refused, and says why).
// The gradient overlap, the attention kernel and the collectives stay as the scenario has them; micro_batch and
// virtual_stages are left to the planner ("auto"). GPipe is not tried: its bubble equals 1F1B's (Narayanan et al. 2021
// §2.2.1) and it keeps all m microbatches' activations instead of at most pp. The list is in a fixed order, each
// ascending: tp, cp, pp, ep (then the dispatchers in registry order, the experts whole before split), the schedule (the
// scenario's first), sequence parallelism, recompute (none, selective, full, then op), precision (the scenario's
// first), ZeRO stage (innermost, so that the plans differing only in it are adjacent: search keeps the best of each
// such run).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/scenario/device.hpp"
#include "sim/scenario/plan.hpp"

namespace sim {

struct Scenario;

// Below 1,024 tokens per rank a context-parallel split leaves attention blocks and GEMMs too small
// to run well; published runs keep 4,096 and more (NeMo's Llama 3 70B recipe: cp 2 at 8k; Llama 3
// 405B: cp 16 at 128k, Llama 3 paper §3.3.2).
constexpr int64_t MIN_CP_TOKENS = 1024;

struct PlanChoice {
  int64_t tp = 1, cp = 1, pp = 1, dp = 1;
  bool sequence_parallel = false;
  Recompute recompute = Recompute::NONE;
  Precision precision = Precision::BF16;
  int64_t zero = 0;
  int64_t ep = 1;
  Dispatcher dispatcher = Dispatcher::ALLTOALL;
  int64_t etp = 0;  // the experts' tensor parallelism (ParallelPlan::etp); 0: the default, whole beside ep
  // The schedule the plan sets; none: the scenario's own (or, absent, the planner's 1F1B).
  std::optional<Schedule> schedule;

  // The same plan but for the ZeRO stage.
  bool same_but_zero(const PlanChoice& o) const {
    return tp == o.tp && cp == o.cp && pp == o.pp && dp == o.dp && sequence_parallel == o.sequence_parallel &&
           recompute == o.recompute && precision == o.precision && ep == o.ep && dispatcher == o.dispatcher &&
           etp == o.etp && schedule == o.schedule;
  }
};

std::vector<PlanChoice> plan_space(const Scenario& s);

}  // namespace sim
