// Test helper for the `step_faults` tests: a small scenario with the given section.
#pragma once

#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"

// 16 A100s on two DGX nodes (8 NICs each: NICs 0..15); `step_faults` is the section's JSON, "" for
// none. Messages name "f.json".
inline sim::Scenario with_faults(const std::string& step_faults) {
  const std::string text = R"({"name": "f", "model": "gpt-1.7b",
    "cluster": {"from": "dgx-a100-superpod", "gpus": 16},
    "parallelism": {"tp": 2, "pp": 2, "dp": 4},
    "training": {"seq_len": 2048, "global_batch": 32, "micro_batch": 1, "recompute": "full", "precision": "bf16"})" +
                           (step_faults.empty() ? std::string() : ", \"step_faults\": " + step_faults) + "}";
  return sim::parse_scenario(sim::ParamReader::from_text(text, "f.json"), TRAINSIM_SOURCE_DIR);
}
