#include "sim/cli/options.hpp"

#include "sim/core/error.hpp"

namespace sim::cli {

std::vector<std::pair<std::string, std::string>> parse_sets(const std::vector<std::string>& sets) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : sets) {
    auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set", "", "'" + s + "' is not path=value", "e.g. --set parallelism.tp=4");
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

EngineOptions engine_options(const std::string& fidelity, double max_wall, const std::string& what) {
  EngineOptions o;
  o.full_fidelity = fidelity == "full";
  if (max_wall > 0) o.deadline = Deadline(max_wall, what);
  return o;
}

}  // namespace sim::cli
