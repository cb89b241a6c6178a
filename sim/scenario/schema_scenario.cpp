// The schema of a scenario file's top level: its name, seed and sections.
#include "sim/scenario/schema_sections.hpp"

namespace sim {

std::vector<KeySpec> schema_scenario_keys() {
  return {
      {"/kind", "choice", "", "", "optional", "scenario", "what the file is", 0, 0},
      {"/name", "string", "", "\"scenario\"", "", "", "the run's name in reports", 0, 0},
      {"/description", "string", "", "", "documentation only", "", "free text", 0, 0},
      {"/seed", "count", "", "0", "", "", "seed of every random draw (same seed, same output)", 0, INT64_MAX / 2},
      {"/model", "string or object", "", "", "required", "a name in models/, a path, or a model object",
       "the model; an object may name one with \"from\" and override keys", 0, 0},
      {"/cluster", "string or object", "", "", "required", "a name in topologies/, a path, or a cluster object",
       "the cluster; an object may name one with \"from\" and override keys", 0, 0},
      {"/parallelism", "object", "", "", "required", "", "how the job is split over the GPUs", 0, 0},
      {"/training", "object", "", "", "required", "", "batch, sequence, precision and kernels of one step", 0, 0},
      {"/failures", "object", "", "", "none (no reliability simulation)", "",
       "the failure model of the long-horizon reliability simulation", 0, 0},
      {"/recovery", "object", "", "", "none", "", "how the job recovers from a failure (needs failures)", 0, 0},
      {"/step_faults", "object", "", "", "none", "", "slow or failed components during the simulated step", 0, 0},
  };
}

}  // namespace sim
