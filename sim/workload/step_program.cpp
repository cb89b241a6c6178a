#include "sim/workload/step_program.hpp"

#include <cstddef>
#include <map>
#include <tuple>

#include "sim/core/error.hpp"
#include "sim/scenario/dispatcher.hpp"
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

namespace {

// Task `t` run beside a computation of `partner` seconds on its rank (ScheduleUnit::beside): its
// expert-parallel collectives run in bulk while the partner computes, each taking of the partner's
// time its share of the task's expert-parallel bytes, and holding the dispatcher's SMs
// (DispatcherEntry::sms) from it (CollectiveUse::sm_share).
Task run_beside(Task t, Seconds partner, double sm_share) {
  double bytes = 0;
  for (const CollectiveUse& use : t.collectives)
    if (use.group == CommGroup::EP && use.chunks == 0) bytes += use.bytes.value * static_cast<double>(use.count);
  if (bytes <= 0) return t;
  for (CollectiveUse& use : t.collectives)
    if (use.group == CommGroup::EP && use.chunks == 0) {
      use.chunks = 1;
      use.hidden = partner * (use.bytes.value / bytes);
      use.sm_share = sm_share;
    }
  return t;
}

// Megatron-Core's --overlap-moe-expert-parallel-comm (megatron/core/pipeline_parallel/schedules.py,
// combined_1f1b.py): one more warm-up forward than the schedule's own, then each steady-state step a
// forward and the backward of an earlier microbatch as a pair, run as DualPipe's pairs run. The
// forwards and the backwards keep their orders; each backward moves after the next forward, and the
// two run beside each other (a backward's own forward came before it, so the two are independent).
// On pp 1 that is combined_1f1b.py's order: F0, (F1, B0), (F2, B1), ..., B(m-1).
std::vector<ScheduleUnit> pair_steady_state(const std::vector<ScheduleUnit>& units) {
  std::vector<ScheduleUnit> forwards, backwards;
  for (const ScheduleUnit& u : units) (u.forward ? forwards : backwards).push_back(u);
  // Forwards issued before the first backward: the warm-up and the first steady-state forward.
  size_t lead = 0;
  while (lead < units.size() && units[lead].forward) ++lead;
  std::vector<ScheduleUnit> out(forwards.begin(), forwards.begin() + static_cast<std::ptrdiff_t>(lead));
  out.reserve(units.size());
  size_t f = lead, b = 0;
  for (; f < forwards.size() && b < backwards.size(); ++f, ++b) {
    out.push_back(forwards[f]);
    out.push_back(backwards[b]);
    out[out.size() - 2].beside = out.back().beside = true;
  }
  for (; f < forwards.size(); ++f) out.push_back(forwards[f]);
  for (; b < backwards.size(); ++b) out.push_back(backwards[b]);
  return out;
}

}  // namespace

StepProgram build_step_program(const Scenario& s, const StageLayout& layout, int64_t micro_batch,
                               const ComputeModel& cm) {
  const int64_t pp = s.plan.pp, v = layout.virtual_stages;
  // Two model copies (DualPipe) take half the step's microbatches each: m per chunk.
  const int64_t m = s.training.global_batch / (s.plan.dp * micro_batch) / layout.copies;
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
  // (rank, chunk, kind, beside: 0, or 1 + the chunk of the unit it runs beside) -> task
  std::map<std::tuple<int64_t, int64_t, int, int64_t>, int64_t> priced;
  const double sm_share = static_cast<double>(dispatcher(s.plan.dispatcher).sms) /
                          static_cast<double>(std::max<int64_t>(1, s.cluster.device.sms));
  // Each forward and backward unit's slot in its rank's program, by direction, virtual stage and microbatch.
  std::vector<int64_t> slot_of(static_cast<size_t>(2 * pp * v * m), -1);
  std::vector<std::vector<ScheduleUnit>> orders = schedule.units(pp, v, m);
  if (s.plan.ep_comm_overlap)
    for (auto& units : orders) units = pair_steady_state(units);
  for (int64_t r = 0; r < pp; ++r) {
    auto& program = p.ranks[static_cast<size_t>(r)];
    const std::vector<ScheduleUnit>& units = orders[static_cast<size_t>(r)];
    SIM_ASSERT(static_cast<int64_t>(units.size()) == p.units_per_rank(), "a schedule runs every unit once");
    program.reserve(units.size() + 3);
    for (size_t i = 0; i < units.size(); ++i) {
      const ScheduleUnit& u = units[i];
      const TaskKind kind = u.forward ? TaskKind::FORWARD : u.weight ? TaskKind::WEIGHT_GRAD : TaskKind::BACKWARD;
      // A pair runs a forward, then the backward beside it (and that backward's weight gradients
      // where they follow at once): each one's all-to-alls beside the other's computation.
      const ScheduleUnit* partner = nullptr;
      if (u.beside) {
        partner = u.forward ? (i + 1 < units.size() ? &units[i + 1] : nullptr) : (i > 0 ? &units[i - 1] : nullptr);
        SIM_ASSERT(partner && partner->beside && partner->forward != u.forward, "a pair is a forward and a backward");
      }
      auto [it, added] = priced.try_emplace({r, u.chunk, static_cast<int>(kind), partner ? 1 + partner->chunk : 0},
                                            static_cast<int64_t>(p.tasks.size()));
      if (added && !partner) p.tasks.push_back(price.task(r, u.chunk, kind));
      if (added && partner) {
        Seconds beside =
            price.task(r, partner->chunk, partner->forward ? TaskKind::FORWARD : TaskKind::BACKWARD).compute;
        if (u.forward && i + 2 < units.size() && units[i + 2].weight && units[i + 2].chunk == partner->chunk &&
            units[i + 2].microbatch == partner->microbatch)
          beside += price.task(r, partner->chunk, TaskKind::WEIGHT_GRAD).compute;
        p.tasks.push_back(run_beside(price.task(r, u.chunk, kind), beside, sm_share));
      }
      if (!u.weight) {
        int64_t& slot = slot_of[p.unit_key(u.forward, p.stage(r, u.chunk), u.microbatch)];
        SIM_ASSERT(slot < 0, "every unit scheduled once");
        slot = static_cast<int64_t>(program.size());
      }
      program.push_back(StepSlot{it->second, u.microbatch, -1, 0, Bytes(0)});
      if (partner && !u.forward) program.back().beside = static_cast<int64_t>(program.size()) - 2;
    }
  }
  // A pair's forward and backward send their outputs when the pair ends (deepseek-ai/DualPipe:
  // the sends follow the pair's computation), with the weight gradients run right after it.
  for (int64_t r = 0; r < pp; ++r) {
    auto& program = p.ranks[static_cast<size_t>(r)];
    for (size_t i = 0; i < program.size(); ++i) {
      if (program[i].beside < 0) continue;
      const Task& b = p.tasks[static_cast<size_t>(program[i].task)];
      size_t end = i;
      if (i + 1 < program.size()) {
        const Task& w = p.tasks[static_cast<size_t>(program[i + 1].task)];
        if (w.kind == TaskKind::WEIGHT_GRAD && w.chunk == b.chunk && program[i + 1].microbatch == program[i].microbatch)
          end = i + 1;
      }
      program[i].sends_at = program[static_cast<size_t>(program[i].beside)].sends_at = static_cast<int64_t>(end);
    }
  }
  // Forward units take the activation of the virtual stage before, backward units the gradient of
  // the one after, sent when the sender's pair ends where it runs one; weight-gradient units,
  // nothing from another rank; and a unit whose neighbour stage is on its own rank (a V's turn)
  // waits for it by program order alone.
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
      const int64_t sent = p.ranks[static_cast<size_t>(slot.from_rank)][static_cast<size_t>(slot.from_index)].sends_at;
      if (sent >= 0) slot.from_index = sent;
    }
  add_gradient_sync(p, s, layout, cm);
  return p;
}

}  // namespace sim
