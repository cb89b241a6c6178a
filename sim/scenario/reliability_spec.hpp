// The `failures` and `recovery` sections of a scenario (DESIGN.md "Failures and recovery"): what
// fails, how often, and what the job does about it. Parsed strictly like every section; the
// numbers' defaults and sources live in reliability_spec.cpp. The long-horizon simulation that
// uses them is sim/reliability.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.hpp"

namespace sim {

class ParamReader;

// What one failure takes down. A checkpoint-restart job stops for any of them; the other recovery
// strategies (later) differ by scope.
enum class FailureScope { GPU, NODE, NETWORK, JOB };
const char* to_string(FailureScope s);

// One cause of failures, with its share of the node failure rate.
struct FailureComponent {
  std::string name;         // "faulty-gpu", "gpu-hbm3", "software-bug", ...
  double per_node_day = 0;  // this cause's rate per node per day (> 0)
  FailureScope scope = FailureScope::NODE;
  // Correlated failures ("takes"): each event takes down the aligned group of takes_nodes
  // consecutive nodes holding the drawn node (a leaf switch, a pod): first = (node / takes) · takes,
  // count = min(takes, nodes − first). The rate stays per node-day (events over the job = rate ·
  // nodes, as for every cause); only what one event takes grows. TAKES_POD until the scenario
  // resolves "pod" against its cluster (scenario.cpp).
  int64_t takes_nodes = 1;
  // Silent data corruption ("silent"): the mean time from the corruption to its detection, each
  // event's latency drawn from an exponential of this mean; the job sees the event when it is
  // detected. 0: not silent, detected at once.
  Seconds silent_latency{};
};

// FailureComponent::takes_nodes for "takes": "pod" before the cluster is known.
inline constexpr int64_t TAKES_POD = 0;

// A failure read from a trace file (CSV: time, component, location).
struct TracedFailure {
  Seconds time;  // since the start of the job, non-decreasing
  std::string component;
  std::string location;  // a node name or index, free text
};

enum class FailureLaw { POISSON, WEIBULL, TRACE };

struct FailureSpec {
  FailureLaw law = FailureLaw::POISSON;
  // POISSON: the whole node rate is the sum of the components' (or per_node_day without a mix).
  // WEIBULL: the mean rate, 1 / (weibull_scale·Γ(1 + 1/shape)) in per node-day (either may be given,
  // the other is derived). TRACE: 0.
  double per_node_day = 0;
  // WEIBULL: time between failures of one node, Weibull(shape, scale).
  double weibull_shape = 0;
  Seconds weibull_scale;
  // TRACE: the failures, sorted by time.
  std::string trace_file;
  std::vector<TracedFailure> trace;
  // The causes (POISSON, WEIBULL): empty = one cause, "node", scope NODE. Their rates sum to
  // per_node_day; under WEIBULL they give each cause's share of the node's failures.
  std::vector<FailureComponent> components;
  // Planned maintenance: one interruption every `planned_every` lasting `planned_duration` (0: none).
  Seconds planned_every;
  Seconds planned_duration;  // the stop itself; the recovery's restart and reload come on top
  Seconds horizon;           // simulated wall-clock time per trial
  int64_t trials = 0;        // Monte Carlo trials, at most MAX_TRIALS
};

enum class RecoveryKind {
  CHECKPOINT_RESTART,
  IN_MEMORY_CHECKPOINT,
  JUST_IN_TIME_CHECKPOINT,
  SPARES,
  REWIRE,       // spares wired in by an optical circuit switch (TPU v4)
  RECONFIGURE,  // Oobleck (pipeline templates), Parcae (live migration with a warning)
  REDUNDANT,    // Bamboo
  REROUTE,      // ReCycle / SlipStream
  SWARM,        // SWARM parallelism
};
// The strategies that keep training through a hardware failure (sim/reliability/degradation.hpp).
bool is_continuing(RecoveryKind k);
const char* to_string(RecoveryKind k);

struct RecoverySpec {
  RecoveryKind kind = RecoveryKind::CHECKPOINT_RESTART;
  // Storage checkpoints. checkpoint_interval: compute time between them; nullopt = "auto" (Daly
  // Eq. 37; for just-in-time-checkpoint against the failures it cannot cover, JOB scope), +infinity
  // = "none" (just-in-time-checkpoint only). For in-memory-checkpoint it is `storage_interval`.
  std::optional<Seconds> checkpoint_interval;
  std::optional<Seconds> checkpoint_write;  // blocking write time; nullopt = "auto" (size / storage bandwidth)
  std::optional<Seconds> reload;            // checkpoint read at restart; nullopt = "auto" (size / bandwidth)
  Seconds detection;                        // failure to detection
  Seconds restart;                          // detection to the job running again (scheduling, init)
  bool blocking = true;  // checkpoint writes stop training (false: a snapshot, then a background write)
  // Asynchronous checkpoints (blocking = false): the blocking copy to host memory (nullopt = "auto":
  // a GPU's share of the checkpoint at the measured staging rate) and the step's slowdown while the
  // write runs in the background (nullopt = "auto": the share of the node's NIC bandwidth it takes).
  std::optional<Seconds> snapshot;
  std::optional<double> background_slowdown;
  // in-memory-checkpoint (Gemini): checkpoints to peers' CPU memory.
  std::optional<Seconds> memory_interval;  // `interval`; nullopt = every step
  Seconds memory_write;                    // blocking cost of one in-memory checkpoint
  std::optional<Seconds> memory_reload;    // nullopt = "auto": a node's shard over its NICs
  int64_t replicas = 2;                    // holders of each shard (the node and replicas − 1 peers)
  // just-in-time-checkpoint (Gupta et al.): save + restore from a surviving data-parallel replica.
  Seconds jit_cost;
  // spares: a pool of hot spare nodes.
  std::optional<int64_t> spares;  // nullopt = "auto": 5% of the nodes, rounded up
  Seconds swap;                   // a spare joining the job after detection (replaces `restart`)
  Seconds repair;                 // spares: a failed node back in the pool (default 24 h); continuing strategies: a
                                  // replacement in the job (default: `restart`)
  bool repair_given = false;
  // reconfigure, redundant, reroute, swarm: the stop after detection while the job re-plans
  // (nullopt = "auto": the strategy's default, reliability_spec.cpp), and a preemption notice
  // (reconfigure only: Parcae's live migration; 0 = none).
  std::optional<Seconds> pause;
  Seconds warning;
};

struct ReliabilitySpec {
  FailureSpec failures;
  RecoverySpec recovery;
  // `failures` and `recovery` objects of a scenario; `recovery` may be absent (all defaults).
  static ReliabilitySpec parse(const ParamReader& failures, const std::optional<ParamReader>& recovery);
};

inline constexpr int64_t MAX_TRIALS = 100000;
// Llama 3's snapshot (Grattafiori et al. 2024, §3.3.4, Table 5): 419 unexpected interruptions in
// 54 days on 16,384 GPUs, taken as 2,048 nodes of 8 for the whole period (the paper says "up to
// 16K"). Its rate, 419 / (2048 · 54) = 3.79e-3 per node-day, is the default node failure rate (the
// H100-era figure, between Meta RSC-2's 2.34e-3 and RSC-1's 6.50e-3, Kokolis et al. HPCA'25).
inline constexpr double LLAMA3_NODES = 2048, LLAMA3_DAYS = 54, LLAMA3_INTERRUPTIONS = 419;
inline constexpr double LLAMA3_DEFAULT_PER_NODE_DAY = LLAMA3_INTERRUPTIONS / (LLAMA3_NODES * LLAMA3_DAYS);
// rewire's swap: spares that an optical circuit switch wires in, as TPU v4's OCS routes a slice
// around a failed cube: "dynamically reconfigure 4x4x4 chip cubes into arbitrary 3D torus
// topologies in around 10 seconds" (Gemini 1.0 report section 3; Jouppi et al. ISCA'23;
// unverified): 10 s instead of a spare node's boot and join.
inline constexpr double REWIRE_SWAP_S = 10;
// Storage checkpoints of strategies that rarely need them (in-memory-checkpoint's fallback; the
// longest "auto" interval of the continuing strategies): every 3 h, BLOOM's interval and Gemini's
// "Strawman" baseline (BigScience's tr11-176B-ml README; Wang et al., SOSP'23).
inline constexpr double FALLBACK_STORAGE_INTERVAL_S = 3 * 3600.0;
// The reliability simulation keeps one failure stream per node (Weibull renewal): at most this
// many nodes.
inline constexpr int64_t MAX_RELIABILITY_NODES = int64_t{1} << 17;

// The spare pool of `spares` recovery on a cluster of `nodes`: as given, or "auto" = 5 % of the
// nodes rounded up (Delta/NCSA: "about 5% overprovisioning", Cui et al., arXiv:2503.11901).
int64_t spare_pool(const RecoverySpec& r, int64_t nodes);

// The Llama 3 405B root causes (Grattafiori et al. 2024, Table 5): 18 rows, counts as
// authoritative, per_node_day = count / (2048 nodes · 54 days).
const std::vector<FailureComponent>& llama3_components();
// The scope of a component name that trainsim knows (the Llama 3 rows and "gpu", "node",
// "network", "job"); nullopt for any other name.
std::optional<FailureScope> known_component_scope(const std::string& name);
// Reads a failure trace (format in reliability_spec.cpp); `path` as given, errors name it and the line.
std::vector<TracedFailure> read_failure_trace(const std::string& path);
// The same for a trace's text, read elsewhere; `path` names it in the errors.
std::vector<TracedFailure> parse_failure_trace(std::string_view text, const std::string& path);

}  // namespace sim
