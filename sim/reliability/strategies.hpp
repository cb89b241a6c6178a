// The registries of the reliability layer, for `trainsim list` and for naming things in errors:
// recovery strategies and failure models, each with its one-line mechanism and its source. Adding
// an entry is one line in strategies.cpp; every strategy listed is simulated (job_timeline.hpp,
// degradation.hpp).
#pragma once

#include <string_view>
#include <vector>

namespace sim::reliability {

struct RegistryEntry {
  std::string_view name;       // as written in a scenario ("checkpoint-restart")
  std::string_view mechanism;  // one line
  std::string_view source;     // the paper or the reference it follows
};

const std::vector<RegistryEntry>& recovery_strategies();
const std::vector<RegistryEntry>& failure_models();

// The entry of that name, or nullptr.
const RegistryEntry* find_entry(const std::vector<RegistryEntry>& registry, std::string_view name);

}  // namespace sim::reliability
