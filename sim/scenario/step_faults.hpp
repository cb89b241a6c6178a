// Faults inside one training step: the optional top-level `step_faults` section of a scenario.
//
//   "step_faults": {
//     "nccl_timeout": "600 s",                         // optional, default 600 s
//     "events": [
//       {"kind": "slow", "gpu": 5, "factor": 1.5},     // GPU 5's kernels take 1.5x as long
//       {"kind": "slow", "nic": 3, "factor": 4},       // NIC 3 (global index) at 1/4 of its bandwidth
//       {"kind": "fail", "gpu": 12, "at": "0.8 s"}     // GPU 12 dies 0.8 s into the step ("nic" too)
//     ],
//     "stragglers": {"count": 8, "factor": 1.1}        // or "fraction": 0.005; "factor": {"min": 1.05, "max": 1.5}
//   }
//
// `stragglers` draws `count` GPUs (or `fraction` of them, rounded up; at least 1/gpus, one GPU; at
// most MAX_STRAGGLERS) uniformly without repetition from the scenario's seed (stream
// "stragglers"), each slowed by `factor` or by a factor drawn uniformly in [min, max]; they become
// "slow" events after the listed ones. MegaScale saw ~0.5% of machines ~10% slower; Lin et al. (OSDI'25) saw the
// slowest GPU of a 405B job at 1.44x the fastest's compute latency (both from secondary sources).
//
// Each event names exactly one component: `gpu` in [0, cluster.gpus) or `nic` in
// [0, nodes * nics_per_node) (NIC i*nics_per_node/gpus_per_node of node k is k*nics_per_node + i).
// A "slow" event takes `factor` in [1, MAX_SLOWDOWN] (1 changes nothing; several on one component
// multiply, to at most MAX_SLOWDOWN, drawn stragglers included); a
// "fail" event takes `at` >= 0, seconds after the step starts. At most one "fail" event: after
// the first failure the step is stalled and nothing later can happen in it.
// How the engine applies them: sim/engine/engine.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.hpp"

namespace sim {

class ParamReader;
struct ClusterSpec;

// PyTorch's ProcessGroupNCCL aborts a collective that has not finished after its timeout, 10 min
// by default (torch.distributed init_process_group `timeout`, default_pg_timeout = 10 min for
// NCCL); Megatron-LM passes --distributed-timeout-minutes, default 10.
inline const Seconds DEFAULT_NCCL_TIMEOUT = Seconds(600);

// The most a component can be slowed, one factor or the product of all on it: 10^6 turns a 1 ms
// kernel into 17 minutes, past NCCL's default timeout -- a component that slow has failed (a "fail"
// event). It keeps a slowed GPU's speed and a slowed NIC's bandwidth positive normal numbers.
inline constexpr double MAX_SLOWDOWN = 1e6;

enum class StepFaultKind { SLOW, FAIL };
enum class FaultTarget { GPU, NIC };

struct StepFaultEvent {
  StepFaultKind kind = StepFaultKind::SLOW;
  FaultTarget target = FaultTarget::GPU;
  int64_t index = 0;    // the GPU or the global NIC index
  double factor = 1.0;  // slow: how many times longer the GPU's kernels or the NIC's transfers take
  Seconds at;           // fail: seconds after the step starts
};

inline constexpr int64_t MAX_STRAGGLERS = 1024;

struct StepFaults {
  Seconds nccl_timeout = DEFAULT_NCCL_TIMEOUT;
  std::vector<StepFaultEvent> events;  // in file order, then the drawn stragglers
  int64_t stragglers = 0;              // how many of the events were drawn by `stragglers`

  bool empty() const { return events.empty(); }
  bool has_slow() const;
  // The "fail" event, if any.
  std::optional<StepFaultEvent> failure() const;
  // The product of the slow factors on a component (1 when none; at most MAX_SLOWDOWN).
  double slowdown(FaultTarget target, int64_t index) const;
  // The largest slowdown of any component (1 when none): no step runs slower than the healthy one
  // times this.
  double worst_slowdown() const;
  // These faults with only the "slow" events kept, or with none.
  StepFaults slow_only() const;
  StepFaults healthy() const;

  // `r` is the `step_faults` object; the cluster bounds the GPU and NIC indices; the seed draws
  // the stragglers.
  static StepFaults parse(const ParamReader& r, const ClusterSpec& cluster, uint64_t seed);
};

// "gpu 12", "nic 3".
std::string to_string(FaultTarget target, int64_t index);

}  // namespace sim
