// Command-line pieces the subcommands share: --set pairs and the engine's options.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/engine/engine.hpp"

namespace sim::cli {

// "path=value" strings as (path, value) pairs; an InputError for one without '='.
std::vector<std::pair<std::string, std::string>> parse_sets(const std::vector<std::string>& sets);

// --fidelity and --max-wall (0: no bound); `what` names the input in the --max-wall message.
EngineOptions engine_options(const std::string& fidelity, double max_wall, const std::string& what);

}  // namespace sim::cli
