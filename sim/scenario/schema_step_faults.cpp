// The schema of the `step_faults` section (step_faults.cpp reads it): slow or failed components
// during the simulated step.
#include <fmt/format.h>

#include "sim/scenario/cluster.hpp"
#include "sim/scenario/schema_sections.hpp"
#include "sim/scenario/step_faults.hpp"

namespace sim {

std::vector<KeySpec> schema_step_faults_keys() {
  // MAX_SLOWDOWN's reason (step_faults.hpp).
  const std::string slow_why =
      "10^6 turns a 1 ms kernel into 17 min, past NCCL's default timeout: slower, it has failed";
  const std::string factor = fmt::format("1..{:g}", MAX_SLOWDOWN);
  return {
      {"/step_faults/nccl_timeout", "quantity", "s", fmt::format("\"{:g} s\"", DEFAULT_NCCL_TIMEOUT.value),
       "PyTorch's default_pg_timeout for NCCL, Megatron-LM's --distributed-timeout-minutes", "",
       "a collective stalled by a failure aborts after this", 0, 0},
      {"/step_faults/events", "array", "", "", "none (events or stragglers required)", "",
       "listed faults: {\"kind\": \"slow\" | \"fail\", \"gpu\" | \"nic\": INDEX, ...}", 0, 0},
      {"/step_faults/events/*", "object", "", "", "", "", "one fault (at most one fail)", 0, 0},
      {"/step_faults/events/*/kind", "choice", "", "", "required", "slow, fail",
       "slow: the component runs slower; fail: it dies during the step", 0, 0},
      {"/step_faults/events/*/gpu", "count", "", "", "one of gpu and nic", "0..gpus-1", "the GPU's global index", 0,
       MAX_CLUSTER_GPUS - 1},
      {"/step_faults/events/*/nic", "count", "", "", "one of gpu and nic", "0..nodes*nics_per_node-1",
       "the NIC's global index", 0, MAX_CLUSTER_GPUS - 1},
      {"/step_faults/events/*/factor", "number", "", "", "required", "", "how many times slower (several multiply)", 0,
       0, factor, slow_why, "slow"},
      {"/step_faults/events/*/at", "quantity", "s", "", "required", "", "when it fails, from the step's start (0 ok)",
       0, 0, "0 s..1e9 s", "about 32 years: beyond any step", "fail"},
      {"/step_faults/stragglers", "object", "", "", "none", "",
       "GPUs drawn from the seed, each slowed by factor (count or fraction)", 0, 0},
      {"/step_faults/stragglers/count", "count", "", "", "one of count and fraction",
       fmt::format("1..gpus, at most {}", MAX_STRAGGLERS), "straggling GPUs", 1, MAX_STRAGGLERS},
      {"/step_faults/stragglers/fraction", "number", "", "", "one of count and fraction", "(0 excluded)",
       "share of the GPUs, rounded up (at least one GPU)", 0, 0, "0..1", "a share of the cluster's GPUs"},
      {"/step_faults/stragglers/factor", "number or object", "", "", "required", "or {\"min\", \"max\"}",
       "each straggler's slowdown, or drawn uniformly in [min, max]", 0, 0, factor, slow_why},
      {"/step_faults/stragglers/factor/min", "number", "", "", "required", "", "the lowest drawn slowdown", 0, 0,
       factor, slow_why},
      {"/step_faults/stragglers/factor/max", "number", "", "", "required", ">= min", "the highest drawn slowdown", 0, 0,
       factor, slow_why},
  };
}

}  // namespace sim
