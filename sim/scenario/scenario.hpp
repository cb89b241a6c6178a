// A scenario: what `trainsim run` reads. Loading resolves named models and clusters, parses every
// section strictly and cross-checks the plan against the model and the cluster; every problem is
// an InputError naming the file and the JSON path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/data_dir.hpp"
#include "sim/scenario/cluster.hpp"
#include "sim/scenario/model.hpp"
#include "sim/scenario/plan.hpp"
#include "sim/scenario/reliability_spec.hpp"
#include "sim/scenario/step_faults.hpp"

namespace sim {

class ParamReader;

struct Scenario {
  std::string name;
  std::string file;
  // Where the scenario sits in `file`: "" for a scenario file, "/runs/3/scenario" for a row of a
  // validation table. Messages about a key name json_path("/cluster/gpus").
  std::string pointer;
  uint64_t seed = 0;
  ModelSpec model;
  ClusterSpec cluster;
  ParallelPlan plan;
  TrainingSpec training;
  // The `failures` and `recovery` sections; nullopt when `failures` is absent.
  std::optional<ReliabilitySpec> reliability;
  // The `step_faults` section: slow or failed components inside the simulated step; empty when absent.
  StepFaults step_faults;

  std::string json_path(const std::string& key_path) const { return pointer + key_path; }

  int64_t microbatches() const {  // per pipeline per step; valid once micro_batch is resolved
    return training.global_batch / (plan.dp * training.micro_batch.value);
  }
};

// `overrides` are --set pairs ("parallelism.tp", "4") applied before parsing.
Scenario load_scenario(const std::string& path, const std::vector<std::pair<std::string, std::string>>& overrides = {},
                       const std::string& data_dir = default_data_dir());
// The scenario file with `overrides` applied, not yet parsed.
ParamReader scenario_reader(const std::string& path,
                            const std::vector<std::pair<std::string, std::string>>& overrides = {});
// Parses an already-read scenario object (validation tables hold scenarios inline).
Scenario parse_scenario(const ParamReader& r, const std::string& data_dir = default_data_dir());
// Every section parsed strictly, but the plan not cross-checked against the model and cluster
// (and "dp": "auto" left at 1): for `trainsim search`, which replaces the plan.
Scenario parse_scenario_sections(const ParamReader& r, const std::string& data_dir = default_data_dir());

}  // namespace sim
