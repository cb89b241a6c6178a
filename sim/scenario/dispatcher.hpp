// How an MoE layer's tokens reach their experts across the expert-parallel group and come back --
// scenario key `parallelism.dispatcher`, printed by `trainsim list`. Each entry names the
// collective that dispatches a micro-batch's tokens and the one that combines the experts'
// outputs, and the buffer each moves per rank (the collectives' convention: an all-gather's and a
// reduce-scatter's buffer is the gathered tensor, an all-to-all's what each rank sends in all);
// the ops (sim/workload/ops.cpp, moe_mlp_ops) place them around the expert GEMMs, the backward
// running each one's reverse.
#pragma once

#include <vector>

#include "sim/scenario/collective_names.hpp"
#include "sim/scenario/named_choice.hpp"

namespace sim {

enum class Dispatcher { ALLTOALL, ALLGATHER, DEEPEP };

struct DispatcherEntry : NamedChoice<Dispatcher> {
  CollectiveKind dispatch, combine;
  // The buffer of each, in token rows (hidden wide): `tokens` the rank's, each routed to `top_k`
  // experts, over an expert-parallel group of `ep` ranks.
  double (*rows)(double tokens, double top_k, double ep);
  // Where the dispatcher runs kernels of its own for its all-to-alls (CollectiveAlgo::DEEPEP,
  // collective_flows.hpp: a token once per node over RDMA, then on over NVLink), the fraction of
  // NVLink's line rate they forward at, measured; 0: NCCL's all-to-all.
  double scale_up_efficiency = 0;
  // The SMs its kernels hold while they run beside a computation (a DualPipe pair,
  // step_program.hpp), which the computation then runs without; 0: not modelled (NCCL's
  // all-to-all kernels hold SMs too, as many as its channels).
  int64_t sms = 0;
  bool own_kernels() const { return scale_up_efficiency > 0; }
};

const std::vector<DispatcherEntry>& dispatchers();
const DispatcherEntry& dispatcher(Dispatcher kind);

}  // namespace sim
