// The schema of the `parallelism` section: how the job is split over the GPUs.
#include "sim/scenario/defaults.hpp"
#include "sim/scenario/model.hpp"
#include "sim/scenario/plan.hpp"
#include "sim/scenario/schedules.hpp"
#include "sim/scenario/schema_sections.hpp"

namespace sim {

std::vector<KeySpec> schema_plan_keys() {
  const int64_t D = MAX_PARALLEL_DEGREE;
  const std::string algorithms = registry_names(collective_algorithms(), "auto");
  const std::string auto_note = "auto (NCCL's tuning model chooses)";
  return {
      {"/parallelism/tp", "count", "", "", "required", "", "tensor-parallel degree", 1, D},
      {"/parallelism/pp", "count", "", "", "required", "", "pipeline-parallel degree (stages)", 1, D},
      {"/parallelism/dp", "count or \"auto\"", "", "", "required", "1..1048576 or \"auto\"",
       "data-parallel degree; auto: cluster GPUs / (tp*pp*cp)", 1, D},
      {"/parallelism/cp", "count", "", "1", "", "", "context-parallel degree (the sequence split)", 1, D},
      {"/parallelism/ep", "count", "", "1", "", "", "expert-parallel degree (over the dp*cp ranks)", 1, D},
      {"/parallelism/etp", "count", "", "", "1 with ep > 1, else tp", "",
       "the experts' tensor-parallel degree (Megatron-Core --expert-tensor-parallel-size): 1, whole experts, or "
       "tp, each expert split over the tensor-parallel group",
       1, D},
      {"/parallelism/sequence_parallel", "bool", "", "false", "Megatron-Core default", "",
       "sequence parallelism beside tensor parallelism (Korthikanti et al. 2022)", 0, 0},
      {"/parallelism/virtual_stages", "count or \"auto\"", "", "1", "", "1..4096 or \"auto\"",
       "model chunks per pipeline rank (interleaved schedule)", 1, 1 << 12},
      {"/parallelism/schedule", "choice", "", "", "= interleaved with virtual_stages > 1, else 1f1b",
       registry_names(pipeline_schedules()), "pipeline schedule", 0, 0},
      {"/parallelism/zero", "count", "", "0", "", "", "ZeRO stage: 1 optimizer state, 2 + gradients, 3 + weights", 0,
       3},
      {"/parallelism/overlap_grad_reduce", "bool", "", "true", MEGATRON_BRIDGE_RECIPES, "",
       "gradient reduction overlapped with the backward (Megatron-Core --overlap-grad-reduce)", 0, 0},
      {"/parallelism/overlap_param_gather", "bool", "", "", OVERLAP_PARAM_GATHER_DEFAULT, "",
       "ZeRO-1/2 parameter all-gather overlapped with the next forward (--overlap-param-gather)", 0, 0},
      {"/parallelism/reshard_after_forward", "bool", "", "", "= true when pp is 1 (torchtitan)", "",
       "ZeRO-3 frees gathered weights after the forward and gathers them again for the backward", 0, 0},
      {"/parallelism/dp_shard", "count", "", "", "= dp", "", "ZeRO-3 shard group size (hybrid sharding when below dp)",
       1, D},
      {"/parallelism/tp_comm_overlap", "bool", "", "false", "", "",
       "tensor-parallel collectives overlapped with GEMMs (Transformer Engine userbuffers; XLA collective matmul)", 0,
       0},
      {"/parallelism/tp_library", "choice", "", "\"megatron\"", "", registry_names(tp_libraries()),
       "library that runs tensor parallelism", 0, 0},
      {"/parallelism/cp_comm", "choice", "", "\"p2p\"", "Megatron-Core default --cp-comm-type p2p", "p2p, all_gather",
       "how context parallelism exchanges keys and values", 0, 0},
      {"/parallelism/dispatcher", "choice", "", "\"alltoall\"",
       "Megatron-Bridge's MoE recipes; Megatron-Core's own default is allgather", registry_names(dispatchers()),
       "how an MoE layer's tokens cross the expert-parallel group", 0, 0},
      {"/parallelism/ep_comm_overlap", "bool", "", "false", "", "",
       "one more warm-up forward, then in the interleaved schedule's (pp 1: 1F1B's) steady state a forward and an "
       "earlier microbatch's backward run as a pair, each one's expert-parallel all-to-alls beside the other's "
       "computation (Megatron-Core --overlap-moe-expert-parallel-comm)",
       0, 0},
      {"/parallelism/layers_per_stage", "array of counts", "", "", "layers split evenly", "",
       "layers of each pipeline stage (pp*virtual_stages entries)", 0, 0},
      {"/parallelism/layers_per_stage/*", "count", "", "", "", "", "layers of one stage", 1, MAX_MODEL_LAYERS},
      {"/parallelism/placement", "string or array", "", "\"tp-cp-pp-dp\"", "Megatron-LM's rank order",
       "dimension order (fastest first) or a GPU per global rank", "how global ranks map onto GPUs", 0, 0},
      {"/parallelism/collective_algorithms", "object", "", "", auto_note, "",
       "algorithm forced per collective (NCCL_ALGO)", 0, 0},
      {"/parallelism/collective_algorithms/all_reduce", "choice", "", "\"auto\"", auto_note, algorithms,
       "all-reduce algorithm", 0, 0},
      {"/parallelism/collective_algorithms/all_gather", "choice", "", "\"auto\"", auto_note, algorithms,
       "all-gather algorithm", 0, 0},
      {"/parallelism/collective_algorithms/reduce_scatter", "choice", "", "\"auto\"", auto_note, algorithms,
       "reduce-scatter algorithm", 0, 0},
      {"/parallelism/collective_algorithms/all_to_all", "choice", "", "\"auto\"", auto_note, algorithms,
       "all-to-all algorithm", 0, 0},
  };
}

}  // namespace sim
