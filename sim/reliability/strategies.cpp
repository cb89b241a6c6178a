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
       "instead of `restart`; the failed node rejoins the pool after `repair` (default 24 h, an assumption); a "
       "failure the empty pool cannot cover restarts as checkpoint-restart does; software failures restart as usual",
       "hot spares: BLOOM-176B (4 spare nodes), OPT-175B logbook; Cui et al. arXiv:2503.11901"},
      {"rewire",
       "spares wired in by an optical circuit switch, as TPU v4 routes a slice around a failed cube: a GPU/node/"
       "network failure takes a node from the pool (`spares`, default 5% of the nodes) in `swap`, the switch's "
       "reconfiguration (default 10 s); otherwise as spares",
       "Jouppi et al., TPU v4, ISCA'23; Zu et al., NSDI'24; Gemini 1.0 report section 3 (~10 s reconfiguration)"},
      {"reconfigure",
       "after a GPU/node/network failure the broken pipeline is re-instantiated from the template with one unit "
       "fewer (its step time from the step simulator; 0 when it does not fit in memory) and the job goes on: "
       "detection, `pause` (default 20 s re-initialisation, an assumption after TrainMover's ~20 s, plus a node's "
       "share of the state over its NICs) and the iteration in flight are lost; failed nodes rejoin after `repair` "
       "(default: the restart time, the scheduler finding a node) at another pause; with `warning` (Parcae's "
       "preemption notice) no work is lost and the pause "
       "overlaps the notice; software failures and losing every replica restart from storage",
       "Jang et al., Oobleck, SOSP'23; Duan et al., Parcae, NSDI'24"},
      {"redundant",
       "each stage also runs its successor's forward (first in its bubble, the rest added to the step: priced from "
       "the simulated step); a failed unit's layers run on its predecessor (the merged plan, simulated), the job at "
       "its pace until `repair`; two adjacent failures in one pipeline restart from storage; pause 20 s (an "
       "assumption); needs one stage per node group and no interleaving",
       "Thorpe et al., Bamboo, NSDI'23"},
      {"reroute",
       "a failed unit's micro-batches run on the same unit of the other data-parallel replicas: the job runs at the "
       "simulated step of dp - d replicas carrying the whole batch (d: copies of the most-hit unit down) until "
       "`repair`; detection, pause 20 s (an assumption) and the iteration in flight are lost; every copy of a unit "
       "down restarts from storage",
       "Gandhi et al., ReCycle, SOSP'24 (SlipStream, arXiv:2405.14009)"},
      {"swarm",
       "every pipeline unit is a pool of dp peers wired stochastically: a failure costs detection only (no pause, no "
       "lost iteration), the thinnest pool sets the throughput, (dp - d) / dp, until `repair`; an empty pool "
       "restarts from storage; SWARM's compression and asynchrony are not modelled (the healthy step is the plan's)",
       "Ryabinin et al., SWARM parallelism, ICML'23"},
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
