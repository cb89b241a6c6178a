// The schema of the `failures` and `recovery` sections (reliability_spec.cpp reads them): the
// failure model of the long-horizon simulation and the recovery strategy. Sources are labelled as
// in reliability_spec.cpp (A1: Llama 3, A2: Kokolis et al. HPCA'25, A3: other production logs, B:
// checkpointing systems, C: recovery systems, D1: TPU v4).
//
// The defaults and bounds, and their sources:
// - Weibull shape: 0.7-0.8 for the time between failures of HPC systems (Schroeder & Gibson, "A
//   large-scale study of failures in high-performance computing systems", DSN 2006; quoted from
//   the paper's abstract, unverified here). < 1: failures cluster.
// - The horizon: Llama 3's 54-day snapshot, the period the default rate was measured over (A1); at
//   most ten years: any training run, and bounded work per trial.
// - Monte Carlo trials: 100 puts the standard error of a mean at a tenth of one trial's spread.
// - A node failing every 14 minutes on average (100 per node-day) is far beyond any measured
//   cluster (A3's highest, about 2.4e-2 per node-day) or spot-instance preemption; above this the
//   input is a mistake.
// - Detection: a failure that does not crash the job is found by the next health check, every 5
//   minutes on Meta's RSC clusters (A2), so 2.5 min on average. Restart: 5 min, Kokolis et al.'s
//   assumed restart overhead (A2, Figure 10); detection + restart = 7.5 min lies in their u0 range
//   "about 5-20 min" (A2) and under MegaScale's "<10 min" detection and diagnosis plus 15 min
//   catch-up (A3).
// - in-memory-checkpoint (Gemini, Wang et al. SOSP'23; B1, B4). Interval: every step, Gemini's
//   optimum ("one checkpoint per iteration", B1; "can checkpoint every iteration", B4). Blocking
//   cost: 0.04 s, ByteRobust's every-step in-memory checkpoint of a 70B model on 2,048 GPUs
//   (SOSP'25 Table 8, B4 [S]); Gemini itself reports no throughput overhead ("without incurring
//   overhead on training throughput", B4 [P]), so 0.04 s is the pessimistic side. Storage fallback
//   every 3 h: Gemini's "Strawman" baseline and BLOOM's interval (B3/B4, A3). Replicas: 2 (our
//   default: each shard in its node's memory and one peer's, the least that survives one node
//   loss); at most 64, an input bound far above any system's few copies.
// - just-in-time-checkpoint (Gupta et al., EuroSys'24, B4 [P abstract]): "a few seconds per GPU"
//   to save from a surviving replica and restore; taken as 5 s (our reading of "a few").
// - spares: swap 60 s, an assumption: the spare is booted and health-checked, and joining costs a
//   process-group re-initialisation; Lumion's optical swap in about 1 s (C) is the lower bound.
//   Repair 24 h, an assumption: OPT-175B's logbook says replacing a node "can take hours" (A3). The
//   pool's default, 5% of the nodes: Delta/NCSA's "about 5% overprovisioning is needed to handle
//   GPU failures" (A3 [P abstract]); BLOOM ran 4 spares for 48 nodes (8%, A3). rewire's swap:
//   REWIRE_SWAP_S (reliability_spec.hpp).
// - Asynchronous checkpoints: the background write may slow the step by at most half (a larger
//   slowdown makes the write blocking in all but name).
#include <fmt/format.h>

#include "sim/scenario/reliability_spec.hpp"
#include "sim/scenario/schema_sections.hpp"

namespace sim {

namespace {

// "\"N s\"": a default in seconds from a constant the simulation shares.
std::string seconds_json(double s) { return fmt::format("\"{:g} s\"", s); }

}  // namespace

std::vector<KeySpec> schema_failures_keys() {
  const std::string rates = "poisson, weibull";
  const std::string rate_why =
      "above 100 per node-day (a node failing every 14 min) the input is a mistake: A3's "
      "highest measured rate is about 2.4e-2";
  const std::string horizon_why = "ten years: any training run, and bounded work per trial";
  return {
      {"/failures/kind", "choice", "", "", "required", "poisson, weibull, trace", "the failure model", 0, 0},
      {"/failures/per_node_day", "number", "per node-day", fmt::format("{:.17g}", LLAMA3_DEFAULT_PER_NODE_DAY),
       "Llama 3: 419 interruptions / (2,048 nodes x 54 d) (A1)", "", "node failure rate (0 excluded)", 0, 0, "0..100",
       rate_why, rates},
      {"/failures/shape", "number", "", "0.8", "0.7-0.8 for HPC systems (Schroeder & Gibson, DSN 2006)", "",
       "Weibull shape of a node's time between failures (< 1: failures cluster)", 0, 0, "0.1..10",
       "a shape outside 0.1..10 is no failure process measured", "weibull"},
      {"/failures/scale", "quantity", "s", "", "= 1 d / per_node_day / gamma(1 + 1/shape)", "",
       "Weibull scale (instead of per_node_day); its mean rate at most 100 per node-day", 0, 0, "", "", "weibull"},
      {"/failures/trace", "string", "", "", "required", "a CSV file, relative to the scenario's folder",
       "failures to replay: rows of time,component,location", 0, 0, "", "", "trace"},
      {"/failures/components", "string or object", "", "", "one cause, \"node\"",
       "\"llama3\", or an object of name: rate or {per_node_day, scope, takes, silent}",
       "causes of failures (llama3: Llama 3's Table 5 root causes, A1); with a trace, what each cause takes down", 0,
       0},
      {"/failures/components/*", "number or object", "per node-day", "", "", "",
       "one cause: its rate, or {per_node_day, scope, takes, silent} (a trace's causes: no rate)", 0, 0, "0..100",
       rate_why},
      {"/failures/components/*/per_node_day", "number", "per node-day", "", "required (not with a trace)", "",
       "the cause's rate (0 excluded)", 0, 0, "0..100", rate_why},
      {"/failures/components/*/scope", "choice", "", "", "the known cause's scope, else node",
       "gpu, node, network, job", "what one failure takes down", 0, 0},
      {"/failures/components/*/takes", "count or choice", "nodes", "1", "", "or \"node\", \"pod\"",
       "the aligned group of consecutive nodes one failure takes (a leaf switch, a pod)", 1, MAX_RELIABILITY_NODES, "",
       "the reliability simulation keeps one failure stream per node, at most 2^17 nodes"},
      {"/failures/components/*/silent", "quantity", "s", "", "0 (detected at once)", "",
       "mean time from a silent corruption to its detection", 0, 0, "0 s..3650 d", horizon_why},
      {"/failures/planned", "object", "", "", "none", "", "planned maintenance: a stop every period", 0, 0},
      {"/failures/planned/every", "quantity", "s", "", "required", "", "time between planned stops", 0, 0},
      {"/failures/planned/duration", "quantity", "s", "", "0 s", "shorter than every", "one planned stop", 0, 0},
      {"/failures/horizon", "quantity", "s", "\"54 d\"", "Llama 3's snapshot, the default rate's period (A1)", "",
       "simulated wall-clock time per trial", 0, 0, "0 s..3650 d", horizon_why},
      {"/failures/trials", "count", "", "100", "1 for a trace (the same failures every trial)", "",
       "Monte Carlo trials (100: a mean's standard error a tenth of one trial's spread)", 1, MAX_TRIALS, "",
       "bounded work per run"},
  };
}

std::vector<KeySpec> schema_recovery_keys() {
  const std::string all_but_memory =
      "checkpoint-restart, just-in-time-checkpoint, reconfigure, redundant, reroute, spares, rewire, swarm";
  const std::string continuing = "reconfigure, redundant, reroute, swarm";
  const std::string pools = "spares, rewire";
  const std::string memory = "in-memory-checkpoint";
  return {
      {"/recovery/kind", "choice", "", "", "required",
       "checkpoint-restart, in-memory-checkpoint, just-in-time-checkpoint, reconfigure, redundant, reroute, spares, "
       "rewire, swarm",
       "the recovery strategy (trainsim list: recovery)", 0, 0},
      {"/recovery/checkpoint_interval", "quantity or \"auto\"", "s", "\"auto\"", "Daly's higher-order optimum (B1)",
       "or \"auto\"; \"none\" for just-in-time-checkpoint", "compute time between storage checkpoints", 0, 0, "", "",
       all_but_memory},
      {"/recovery/checkpoint_write", "quantity or \"auto\"", "s", "\"auto\"",
       "checkpoint size / cluster.storage_bandwidth", "or \"auto\"", "blocking time of one storage checkpoint", 0, 0},
      {"/recovery/reload", "quantity or \"auto\"", "s", "\"auto\"", "checkpoint size / cluster.storage_bandwidth",
       "or \"auto\"", "checkpoint read at restart", 0, 0},
      {"/recovery/blocking", "bool", "", "true", "", "",
       "checkpoint writes stop training (false: a snapshot, then a background write)", 0, 0},
      {"/recovery/detection", "quantity", "s", "\"2.5 min\"", "half of RSC's 5-min health check (A2)", "",
       "failure to detection", 0, 0},
      {"/recovery/restart", "quantity", "s", "\"5 min\"", "Kokolis et al.'s restart overhead (A2, Figure 10)", "",
       "detection to the job running again", 0, 0},
      {"/recovery/snapshot", "quantity or \"auto\"", "s", "\"auto\"", "a GPU's share at the measured staging rate",
       "or \"auto\"", "blocking copy to host memory (blocking false only)", 0, 0},
      {"/recovery/background_slowdown", "number or \"auto\"", "", "\"auto\"", "the node NIC share the write takes",
       "or \"auto\"", "the step's slowdown while a write runs in the background (blocking false only)", 0, 0, "0..0.5",
       "a larger slowdown makes the write blocking in all but name"},
      {"/recovery/interval", "quantity or \"step\"", "s", "\"step\"", "Gemini's optimum, every step (B1, B4)",
       "or \"step\"", "time between in-memory checkpoints", 0, 0, "", "", memory},
      {"/recovery/memory_write", "quantity", "s", "\"0.04 s\"",
       "ByteRobust's in-memory checkpoint, 70B on 2,048 GPUs (B4)", "", "blocking cost of one in-memory checkpoint", 0,
       0, "", "", memory},
      {"/recovery/memory_reload", "quantity or \"auto\"", "s", "\"auto\"", "a node's shard over its NICs",
       "or \"auto\"", "reload from peers' memory", 0, 0, "", "", memory},
      {"/recovery/replicas", "count", "", "2", "the node and one peer: the least that survives one node loss", "",
       "holders of each shard (at most the cluster's nodes)", 1, 64, "",
       "an input bound far above any system's few copies", memory},
      {"/recovery/storage_interval", "quantity or \"auto\"", "s", seconds_json(FALLBACK_STORAGE_INTERVAL_S),
       "3 h: BLOOM's interval, Gemini's Strawman (A3, B4)", "or \"auto\"", "storage checkpoints behind the memory ones",
       0, 0, "", "", memory},
      {"/recovery/jit_cost", "quantity", "s", "\"5 s\"", "\"a few seconds per GPU\" (Gupta et al. EuroSys'24, B4)", "",
       "save and restore from a surviving replica", 0, 0, "", "", "just-in-time-checkpoint"},
      {"/recovery/spares", "count or \"auto\"", "nodes", "\"auto\"", "5% of the nodes, rounded up (Delta/NCSA, A3)",
       "or \"auto\"", "hot spare nodes (at most the cluster's)", 0, MAX_RELIABILITY_NODES, "",
       "the reliability simulation's node limit", pools},
      {"/recovery/swap", "quantity", "s", "\"1 min\"",
       fmt::format("boot and join, an assumption; {:g} s for rewire (TPU v4's OCS, D1)", REWIRE_SWAP_S), "",
       "a spare joining the job after detection", 0, 0, "", "", pools},
      {"/recovery/repair", "quantity", "s", "\"1 d\"", "spares: node repair, an assumption (A3); else = restart", "",
       "a failed node back in the pool, or a replacement in the job", 0, 0, "", "", pools + ", " + continuing},
      {"/recovery/pause", "quantity or \"auto\"", "s", "\"auto\"", "the strategy's own (trainsim list: recovery)",
       "or \"auto\"", "stop after detection while the job re-plans", 0, 0, "", "", continuing},
      {"/recovery/warning", "quantity", "s", "", "none", "", "preemption notice (Parcae's live migration)", 0, 0, "",
       "", "reconfigure"},
  };
}

}  // namespace sim
