// Collectives as NCCL runs them (NVIDIA/nccl src/graph/tuning.cc@5067397): the ring, the double binary tree, NVLink
// SHARP (NVLS) inside an NVSwitch domain that has it, and NVLS inside nodes with a tree between
// them (NVLS_TREE). NCCL's tuning model that picks among them (and the protocol) is in
// sim/cost/nccl_tuning.hpp; the flows each algorithm sends in sim/cost/collective_flows.hpp.
//
// For a group of n ranks and a buffer of S bytes (the per-rank buffer for all-reduce; the whole
// gathered/scattered buffer for all-gather and reduce-scatter), in the ring's steady state every
// rank sends to its successor
//   all-reduce:                 2(n-1)/n * S bytes over 2(n-1) steps
//   all-gather, reduce-scatter:  (n-1)/n * S bytes over  (n-1) steps
//   all-to-all (S = the whole send buffer, pairwise exchange): (n-1)/n * S bytes over (n-1) steps
// so on an idle network of per-rank bandwidth B (line rate x the achieved fraction) the time is
//   t = base_latency + steps * step_latency + bytes_per_rank / B          (NCCL tuning.cc's model)
// The engine sends bytes_per_rank as one aggregated flow per rank (and channel) so that SimGrid
// prices sharing; the latency terms are added on top. n = 1 costs nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/scenario/collective_names.hpp"
#include "sim/scenario/device.hpp"

namespace sim {

// The group a collective inside a layer runs over: the tensor-parallel ranks, or the
// context-parallel ranks (which sit next to them, DESIGN.md placement).
// The groups a step's collectives between kernels run over: tensor, context and expert parallel
// (an MoE layer's token dispatch and combine, sim/scenario/dispatcher.hpp).
enum class CommGroup { TP, CP, EP };

struct RingCost {
  Bytes bytes_per_rank;  // what each rank sends to its ring successor
  int64_t steps = 0;
};

// A ring's traffic per rank and its steps: all-reduce 2(n-1)/n of the buffer in 2(n-1) steps,
// all-gather and reduce-scatter (n-1)/n in n-1; an all-to-all, no ring, sends (n-1)/n of it to its
// peers in one step (all its sends in flight at once, collective_flows.hpp); send/recv the buffer.
RingCost ring_cost(CollectiveKind kind, Bytes buffer, int64_t n);

// nccl-tests' bus-bandwidth factor (busbw = algbw * factor, algbw = buffer / time;
// NVIDIA/nccl-tests@a0b82b2 src/*.cu): 2(n-1)/n for all-reduce, (n-1)/n for all-gather,
// reduce-scatter and all-to-all, 1 for send/recv. It is exactly bytes_per_rank / buffer of ring_cost.
double busbw_factor(CollectiveKind kind, int64_t n);

// Latency terms of a collective whose ring crosses the network (`scale_out`) or stays in the
// scale-up domain.
Seconds collective_latency(CollectiveKind kind, int64_t n, bool scale_out, const CollectiveConstants& c);

// The closed form on an idle network (used by the fast schedule estimator and the tests).
// `link_bandwidth` is the nominal per-rank line rate; the tier's efficiency is applied here.
Seconds ring_time_idle(CollectiveKind kind, Bytes buffer, int64_t n, BytesPerSecond link_bandwidth, bool scale_out,
                       const CollectiveConstants& c);

// NVLS (NCCL's default all-reduce on Hopper NVSwitch nodes since 2.17): every GPU writes its
// buffer into the switch, which reduces it, and reads the result back, so each GPU's link
// carries S each way once -- against 2(n-1)/n * S for the ring -- at its own achieved fraction
// of the line rate; the latency is one fixed term (NCCL tuning.cc: NVLS Simple, NVLink 25 us).
//   t = nvls_latency + S / (B * nvls_efficiency)

// Which algorithm runs, with which protocol and latency, is NCCL's tuning model's choice
// (sim/cost/nccl_tuning.hpp); the flows each algorithm sends are in sim/cost/collective_flows.hpp.

}  // namespace sim
