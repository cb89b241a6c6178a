// The SimGrid replay of one training step (the only layer that includes SimGrid; this header
// exposes none of it).
//
// Platform: one star zone holding, per GPU, a host on its NVLink port (a split-duplex link at the
// scale-up bandwidth), and per NIC a host on its network port (a split-duplex link at the NIC
// rate); with an oversubscribed fabric, a second host per NIC whose route also crosses its pod's
// uplink, for traffic between pods. Links carry line rate x the device's achieved fraction
// (busbw / line rate); NCCL's latency terms are added to each transfer.
//
// Replay: one actor per rank class (pipeline rank) -- or per GPU with full fidelity -- walks its
// program: waits for the activations/gradients it needs (the transfer starts when both sides
// are ready, as Megatron's batched send/recv), executes its kernels, runs its tensor-parallel
// collectives (each distinct one simulated once as ring flows on the real links and cached),
// reduces gradients over data parallel as NCCL ring channels (every member's flows launched, so
// the fabric sees the whole collective), and steps the optimizer. Folded classes scale a
// transfer by the number of class members sharing its NIC.
//
// SimGrid keeps one engine per process, so each call runs in a forked child process, which the
// parent stops (and reports as an InputError) when its resident memory passes `max_memory`.
// Full fidelity is limited to 65,536 GPUs (an InputError beyond), for the actors' memory; what a
// plan would cost is estimated before it gets here (workload/resource_estimate.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "sim/core/deadline.hpp"
#include "sim/core/units.hpp"

namespace sim {

struct Scenario;
struct Pipeline;

struct EngineOptions {
  EngineOptions() = default;
  explicit EngineOptions(bool full, Deadline d = {}, Bytes memory = Bytes(0))
      : full_fidelity(full), deadline(std::move(d)), max_memory(memory) {}

  bool full_fidelity = false;  // one actor per GPU instead of one per rank class
  Deadline deadline;           // --max-wall: planning and the engine's child stop when it passes
  Bytes max_memory;            // --max-memory: the estimate's bound and the child's; 0 for none
  // Called as the reliability simulation's trials finish (done, total) -- sim/run, for a progress
  // line; never per event. None by default.
  std::function<void(int64_t, int64_t)> trial_progress;
};

struct TaskSpan {
  double start = 0;  // after its inputs arrived
  double end = 0;
  double wait = 0;  // time blocked on inputs: upstream work (bubble) plus transfers
  double p2p = 0;   // of which the transfers themselves (exposed pipeline communication)
  double tp = 0;    // tensor-parallel collectives inside the task
  double cp = 0;    // context-parallel collectives inside the task
  double dp = 0;    // data-parallel gradient reduction
};

struct EngineResult {
  Seconds step;
  std::vector<TaskSpan> spans;  // per task id, as seen by the class representative
  int64_t actors = 0;
  int64_t transfers = 0;  // point-to-point and collective flows simulated
};

EngineResult simulate_step(const Scenario& s, const Pipeline& p, const EngineOptions& opt = {});

}  // namespace sim
