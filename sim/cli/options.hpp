// Command-line pieces the subcommands share: --set pairs and the engine's options.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/engine/engine.hpp"

namespace sim::cli {

// "path=value" strings as (path, value) pairs; an InputError for one without '='.
std::vector<std::pair<std::string, std::string>> parse_sets(const std::vector<std::string>& sets);

// --fidelity, --max-wall (0: no bound) and --max-memory ("": default_max_memory()); `what` names
// the input in the --max-wall message.
EngineOptions engine_options(const std::string& fidelity, double max_wall, const std::string& max_memory,
                             const std::string& what);

// --max-memory (run, validate, search): a quantity of bytes from 1 MiB to 1 PiB, e.g. "8 GiB". A
// CLI11 validator: "" when valid, else why not.
std::string check_max_memory(const std::string& text);
std::string max_memory_help();

// Whether standard output takes colour: a terminal, NO_COLOR unset or empty (no-color.org) and
// TERM not "dumb".
bool stdout_colour();

}  // namespace sim::cli
