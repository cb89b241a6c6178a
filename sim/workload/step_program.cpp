#include "sim/workload/step_program.hpp"

#include <map>
#include <tuple>

#include "sim/core/error.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/grad_sync.hpp"
#include "sim/workload/schedule.hpp"
#include "sim/workload/stage_layout.hpp"
#include "sim/workload/task_pricer.hpp"

namespace sim {

int64_t StepProgram::slots() const {
  int64_t n = 0;
  for (const auto& r : ranks) n += static_cast<int64_t>(r.size());
  return n;
}

void append_task(StepProgram& p, int64_t rank, Task t, int64_t from_rank, int64_t from_index, Bytes bytes) {
  p.tasks.push_back(std::move(t));
  p.ranks[static_cast<size_t>(rank)].push_back(
      StepSlot{static_cast<int64_t>(p.tasks.size()) - 1, 0, from_rank, from_index, bytes});
}

StepProgram build_step_program(const Scenario& s, const StageLayout& layout, int64_t micro_batch,
                               const ComputeModel& cm) {
  const int64_t pp = s.plan.pp, v = layout.virtual_stages;
  const int64_t m = s.training.global_batch / (s.plan.dp * micro_batch);
  StepProgram p;
  p.microbatches = m;
  p.micro_batch = micro_batch;
  p.virtual_stages = v;
  p.ranks.resize(static_cast<size_t>(pp));

  const PipelineSchedule& schedule = pipeline_schedule(s.plan.schedule);
  p.splits_backward = schedule.splits_backward;
  p.overlaps_steps = schedule.overlaps_steps;
  p.v_shape = layout.v_shape;
  TaskPricer price(s, layout, micro_batch, cm);
  std::map<std::tuple<int64_t, int64_t, int>, int64_t> priced;  // (rank, chunk, kind) -> task
  // Each forward and backward unit's slot in its rank's program, by direction, virtual stage and microbatch.
  std::vector<int64_t> slot_of(static_cast<size_t>(2 * pp * v * m), -1);
  const std::vector<std::vector<ScheduleUnit>> orders = schedule.units(pp, v, m);
  for (int64_t r = 0; r < pp; ++r) {
    auto& program = p.ranks[static_cast<size_t>(r)];
    const std::vector<ScheduleUnit>& units = orders[static_cast<size_t>(r)];
    SIM_ASSERT(static_cast<int64_t>(units.size()) == p.units_per_rank(), "a schedule runs every unit once");
    program.reserve(units.size() + 3);
    for (const ScheduleUnit& u : units) {
      const TaskKind kind = u.forward ? TaskKind::FORWARD : u.weight ? TaskKind::WEIGHT_GRAD : TaskKind::BACKWARD;
      auto [it, added] = priced.try_emplace({r, u.chunk, static_cast<int>(kind)}, static_cast<int64_t>(p.tasks.size()));
      if (added) p.tasks.push_back(price.task(r, u.chunk, kind));
      if (!u.weight) {
        int64_t& slot = slot_of[p.unit_key(u.forward, p.stage(r, u.chunk), u.microbatch)];
        SIM_ASSERT(slot < 0, "every unit scheduled once");
        slot = static_cast<int64_t>(program.size());
      }
      program.push_back(StepSlot{it->second, u.microbatch, -1, 0, Bytes(0)});
    }
  }
  // Forward units take the activation of the virtual stage before, backward units the gradient of
  // the one after; weight-gradient units, nothing from another rank; and a unit whose neighbour
  // stage is on its own rank (a V's turn) waits for it by program order alone.
  const Bytes act = p2p_bytes(s, micro_batch);
  for (int64_t r = 0; r < pp; ++r)
    for (StepSlot& slot : p.ranks[static_cast<size_t>(r)]) {
      const Task& t = p.tasks[static_cast<size_t>(slot.task)];
      if (t.kind == TaskKind::WEIGHT_GRAD) continue;
      const bool fwd = t.kind == TaskKind::FORWARD;
      const int64_t from = p.stage(r, t.chunk) + (fwd ? -1 : 1);
      if (from < 0 || from >= pp * v || p.rank_of(from) == r) continue;
      slot.from_rank = p.rank_of(from);
      slot.from_index = slot_of[p.unit_key(fwd, from, slot.microbatch)];
      slot.bytes = act;
      SIM_ASSERT(slot.from_index >= 0, "every unit scheduled once");
    }
  add_gradient_sync(p, s, layout, cm);
  return p;
}

}  // namespace sim
