#include "sim/scenario/dispatcher.hpp"

namespace sim {

const std::vector<DispatcherEntry>& dispatchers() {
  // Megatron-Core's token dispatchers (megatron/core/transformer/moe/token_dispatcher.py,
  // --moe-token-dispatcher-type). MoEAlltoAllTokenDispatcher sends each token copy to the rank
  // holding its expert and back (all-to-all-v; under forced balance every peer gets 1/ep of the
  // rank's tokens x top_k rows). MoEAllGatherTokenDispatcher all-gathers every rank's tokens (each
  // once, whatever top_k), lets each rank pick those routed to its experts, and reduce-scatters
  // the outputs back.
  static const std::vector<DispatcherEntry> entries{
      {{Dispatcher::ALLTOALL, "alltoall",
        "all-to-all of each token copy to its expert's rank and back (Megatron-Core's alltoall dispatcher)"},
       CollectiveKind::ALL_TO_ALL,
       CollectiveKind::ALL_TO_ALL,
       [](double tokens, double top_k, double) { return tokens * top_k; }},
      {{Dispatcher::ALLGATHER, "allgather",
        "all-gather of every rank's tokens, each rank keeping its experts' share; outputs reduce-scattered back "
        "(Megatron-Core's allgather dispatcher)"},
       CollectiveKind::ALL_GATHER,
       CollectiveKind::REDUCE_SCATTER,
       [](double tokens, double, double ep) { return tokens * ep; }},
      // DeepEP's normal kernels (deepseek-ai/DeepEP, V1: csrc/kernels/legacy/internode.cu and
      // intranode.cu; Megatron-Core's flex dispatcher runs them): each token goes once to each node
      // its experts lie on, to the GPU of the sender's rail, which forwards it over NVLink. Their
      // NVLink rate: DeepEP's docs/legacy.md@dd758ca measures intranode dispatch on H800 (EP8,
      // 4,096 tokens of 7,168, top-8 of 256) at 153 GB/s of bytes received, 7 of every 8 of them
      // over NVLink (the rest the GPU's own): 153 x 7/8 = 133.9 GB/s per port of H800's 200 GB/s
      // per direction (NVIDIA H800 datasheet: NVLink 400 GB/s), 0.669. The RDMA side runs at the
      // profile's network efficiency.
      {{Dispatcher::DEEPEP, "deepep",
        "DeepEP's normal kernels: each token once to each node its experts are on, to the sender's rail GPU there "
        "over RDMA, then over NVLink to its experts' GPUs (with the model's node_limit, node-limited routing)"},
       CollectiveKind::ALL_TO_ALL,
       CollectiveKind::ALL_TO_ALL,
       [](double tokens, double top_k, double) { return tokens * top_k; },
       153.0 * 7.0 / 8.0 / 200.0,
       20},
  };
  return entries;
}

const DispatcherEntry& dispatcher(Dispatcher kind) { return registry_entry(dispatchers(), kind); }

}  // namespace sim
