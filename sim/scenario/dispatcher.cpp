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
  };
  return entries;
}

const DispatcherEntry& dispatcher(Dispatcher kind) { return registry_entry(dispatchers(), kind); }

}  // namespace sim
