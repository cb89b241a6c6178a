// A training step's programs in compact form: per pipeline rank, the tasks it runs in order, each
// a slot naming one of the step's distinct priced tasks and the one slot (if any) whose output it
// waits for. This is the task graph (pipeline.hpp) without the graph: the planner prices and
// estimates every candidate from it (estimate.hpp, resource_estimate.hpp), and the graph is built
// from it only for the plan the engine simulates.
//
// Slots 0 .. 2 m v - 1 of every rank are its forward and backward units (0 .. 3 m v - 1 with the
// weight-gradient units of a schedule that splits the backward), in the order its schedule
// (schedule.hpp: GPipe, 1F1B, interleaved 1F1B as Megatron-LM's schedules.py issues them, the
// zero-bubble schedules) runs them; the end of the step follows (grad_sync.hpp): the first and
// last ranks' tied-embedding exchange, the data-parallel reduction and the optimizer step.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/workload/stage_layout.hpp"
#include "sim/workload/task.hpp"

namespace sim {

struct Scenario;
struct StageLayout;
class ComputeModel;

struct StepSlot {
  int64_t task = 0;        // index in StepProgram::tasks
  int64_t microbatch = 0;  // forward and backward units; 0 otherwise
  // The data input: slot `from_index` of rank `from_rank` sends `bytes` per GPU (activations
  // forward, gradients backward, the tied-embedding gradient), or from_rank = -1 for none.
  int64_t from_rank = -1, from_index = 0;
  Bytes bytes;
  // A backward run beside the forward before it (ScheduleUnit::beside): that forward's slot index.
  // The pair starts once both inputs are there: the forward waits for this slot's input too
  // (deepseek-ai/DualPipe: both receives complete before the pair's computation).
  int64_t beside = -1;
  // Of a pair's forward and backward: the slot that ends the pair (the backward, or the weight
  // gradients run right after it), at whose end both send their outputs; -1 for any other slot.
  int64_t sends_at = -1;
};

struct StepProgram {
  std::vector<Task> tasks;                   // the distinct tasks, each priced once (microbatch 0)
  std::vector<std::vector<StepSlot>> ranks;  // per pipeline rank, in execution order
  int64_t microbatches = 0;
  int64_t micro_batch = 0;
  int64_t virtual_stages = 1;
  bool splits_backward = false;  // every backward unit has a weight-gradient unit after it
  // The step's time is the longest any pipeline rank takes from its first unit's start to its end
  // (each rank starts its next step as it ends: the zero-bubble schedules' optimizer
  // post-validation), not from the step's start to its last rank's end.
  bool overlaps_steps = false;
  bool v_shape = false;  // two chunks per rank in a V (stage_layout.hpp)

  // The virtual stage of rank `rank`'s chunk `chunk`, and the rank a stage is on.
  int64_t stage(int64_t rank, int64_t chunk) const {
    return virtual_stage(static_cast<int64_t>(ranks.size()), v_shape, rank, chunk);
  }
  int64_t rank_of(int64_t stage) const { return stage_rank(static_cast<int64_t>(ranks.size()), v_shape, stage); }

  const Task& task(size_t rank, size_t index) const { return tasks[static_cast<size_t>(ranks[rank][index].task)]; }
  // Every rank's forward and backward (and weight-gradient) units: 2 m v (3 m v).
  int64_t units_per_rank() const { return (splits_backward ? 3 : 2) * microbatches * virtual_stages; }
  // A forward or backward unit's index among every rank's 2 m v of them, by direction, virtual
  // stage and microbatch.
  size_t unit_key(bool forward, int64_t stage, int64_t microbatch) const {
    const auto stages = static_cast<int64_t>(ranks.size()) * virtual_stages;
    return static_cast<size_t>(((forward ? 0 : stages) + stage) * microbatches + microbatch);
  }
  int64_t slots() const;
};

// The step's programs; `micro_batch` and the layout's virtual stages are resolved values.
StepProgram build_step_program(const Scenario& s, const StageLayout& layout, int64_t micro_batch,
                               const ComputeModel& cm);

// Appends a task to rank `rank`'s program (after its last slot).
void append_task(StepProgram& p, int64_t rank, Task t, int64_t from_rank = -1, int64_t from_index = 0,
                 Bytes bytes = Bytes(0));

}  // namespace sim
