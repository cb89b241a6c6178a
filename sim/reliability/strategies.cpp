#include "sim/reliability/strategies.hpp"

namespace sim::reliability {

const std::vector<RegistryEntry>& recovery_strategies() {
  static const std::vector<RegistryEntry> entries = {
      {"checkpoint-restart",
       "blocking checkpoint to storage every interval (fixed or `auto`: Daly Eq. 37); a failure loses the work "
       "since the last checkpoint, then detection, restart and reload",
       "Young, CACM 17(9) 1974; Daly, FGCS 22(3) 2006"},
      {"in-memory-checkpoint",
       "checkpoint to peers' host memory every `interval` (default every step; blocking `memory_write`, default "
       "0.04 s, an assumption from ByteRobust's every-step in-memory save, SOSP'25 Table 8); a failure loses the work "
       "since then and reloads a node's shard over its NICs; storage every `storage_interval` (default 3 h, BLOOM's "
       "and Gemini's Strawman) is the fallback when one recovery loses every node of a `replicas` group (default 2); "
       "software (job-scope) failures reload from local host memory",
       "Wang et al., Gemini, SOSP'23"},
      {"just-in-time-checkpoint",
       "at a GPU/node/network failure with dp >= 2, the state of a surviving data-parallel replica is saved and "
       "restored (`jit_cost`, default 5 s for \"a few seconds per GPU\"): only the step in flight is lost; "
       "software (job-scope) failures and dp = 1 fall back to storage checkpoints every `checkpoint_interval` "
       "(default `auto`: Daly's Eq. 37 against the job-scope failure rate; \"none\" for no periodic checkpoints)",
       "Gupta et al., Just-In-Time Checkpointing, EuroSys'24"},
      {"spares",
       "checkpoint-restart, but a GPU/node/network failure takes a hot spare from a pool of `spares` nodes (default "
       "5% of the nodes, Delta/NCSA's overprovisioning) after detection: `swap` (default 60 s, an assumption) "
       "instead of `restart`; the failed node rejoins the pool after `repair` (default 24 h, an assumption); an "
       "empty pool waits for a repair; software (job-scope) failures restart as usual",
       "hot spares: BLOOM-176B (4 spare nodes), OPT-175B logbook; Cui et al. arXiv:2503.11901"},
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
