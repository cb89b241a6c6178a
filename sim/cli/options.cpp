#include "sim/cli/options.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "sim/core/error.hpp"
#include "sim/core/text_escape.hpp"
#include "sim/plan/resource_estimate.hpp"

namespace sim::cli {

namespace {

const Bytes MAX_MEMORY_BOUND(std::ldexp(1.0, 50));  // 1 PiB

}  // namespace

std::vector<std::pair<std::string, std::string>> parse_sets(const std::vector<std::string>& sets) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set", "", quote_value(s) + " is not path=value", "e.g. --set parallelism.tp=4");
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

EngineOptions engine_options(const std::string& fidelity, double max_wall, const std::string& max_memory,
                             const std::string& what) {
  EngineOptions o;
  o.full_fidelity = fidelity == "full";
  if (max_wall > 0) o.deadline = Deadline(max_wall, what);
  if (max_memory.empty()) {
    o.max_memory = default_max_memory();
  } else {
    const std::string why = check_max_memory(max_memory);  // CLI11 checked it too; callers in tests may not
    if (!why.empty()) throw InputError("--max-memory", "", why);
    o.max_memory = *parse_bytes(max_memory);
  }
  return o;
}

std::string check_max_memory(const std::string& text) {
  auto b = parse_bytes(text);
  if (!b || !std::isfinite(b->value) || b->value < 1048576.0)
    return "--max-memory: " + quote_value(text) + " is not a quantity of bytes of at least 1 MiB (e.g. 8 GiB)";
  // A bound no machine reaches bounds nothing (1e300 B is a typo, not a limit): the largest
  // single machines hold tens of TiB (48 TiB in an HPE Superdome Flex), so 1 PiB. Not this
  // machine's memory: a scenario's command line stays valid on a larger one.
  if (b->value > MAX_MEMORY_BOUND.value)
    return "--max-memory: " + quote_value(text) +
           " is more than 1 PiB, more memory than any machine has (expected a quantity "
           "of bytes from 1 MiB to 1 PiB)";
  return "";
}

std::string max_memory_help() {
  return "refuse a run whose simulation would need more memory than this (estimated before it starts; the "
         "simulation is stopped if it passes it), e.g. \"8 GiB\"; default: half of this machine's memory (" +
         format_bytes(default_max_memory()) + ")";
}

bool stdout_colour() {
  const char* no_colour = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return ::isatty(STDOUT_FILENO) == 1 && (!no_colour || !*no_colour) && !(term && std::strcmp(term, "dumb") == 0);
}

}  // namespace sim::cli
