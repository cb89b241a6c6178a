#include "sim/reliability/strategies.hpp"

namespace sim::reliability {

const std::vector<RegistryEntry>& recovery_strategies() {
  static const std::vector<RegistryEntry> entries = {
      {"checkpoint-restart",
       "blocking checkpoint to storage every interval (fixed or `auto`: Daly Eq. 37); a failure loses the work "
       "since the last checkpoint, then detection, restart and reload",
       "Young, CACM 17(9) 1974; Daly, FGCS 22(3) 2006"},
  };
  return entries;
}

const std::vector<RegistryEntry>& failure_models() {
  static const std::vector<RegistryEntry> entries = {
      {"poisson", "exponential gaps, rate = nodes x sum of the components' per-node-day rates",
       "Kokolis et al., HPCA 2025 (arXiv:2410.21680): MTTF = 1/(nodes r_f)"},
      {"weibull", "per-node renewal process with Weibull(shape, scale) gaps, merged over nodes",
       "Schroeder & Gibson, DSN 2006 (Weibull fits of HPC node failures)"},
      {"trace", "replay of a CSV of dated failures (time, component, location)", "user data"},
  };
  return entries;
}

const RegistryEntry* find_entry(const std::vector<RegistryEntry>& registry, std::string_view name) {
  for (const auto& e : registry)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace sim::reliability
