// The schema's sections (schema_*.cpp), one function each; schema.cpp joins them in order.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/schema.hpp"

namespace sim {

// The names of a registry's entries (attention_kernels(), tp_libraries(), ...) as a choice's
// allowed text, "a, b, c".
template <class Entries>
std::string registry_names(const Entries& entries, const std::string& first = "") {
  std::string out = first;
  for (const auto& e : entries) out += (out.empty() ? "" : ", ") + std::string(e.name);
  return out;
}

std::vector<KeySpec> schema_scenario_keys();
std::vector<KeySpec> schema_model_keys();
std::vector<KeySpec> schema_cluster_keys();
std::vector<KeySpec> schema_plan_keys();
std::vector<KeySpec> schema_training_keys();
std::vector<KeySpec> schema_failures_keys();
std::vector<KeySpec> schema_recovery_keys();
std::vector<KeySpec> schema_step_faults_keys();
std::vector<KeySpec> schema_device_keys();
std::vector<KeySpec> schema_costs_keys();
std::vector<KeySpec> schema_validation_keys();

}  // namespace sim
