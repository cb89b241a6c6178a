#include "sim/plan/step_bound.hpp"

#include <algorithm>

#include "sim/comm/comm_costs.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/schedule.hpp"
#include "sim/workload/stage_layout.hpp"
#include "sim/workload/task_pricer.hpp"

namespace sim {

Seconds step_lower_bound(const Scenario& s, const StageLayout& layout, int64_t micro_batch, const ComputeModel& cm,
                         const CommCosts& comm) {
  TaskPricer price(s, layout, micro_batch, cm);
  const int64_t pp = s.plan.pp, v = layout.virtual_stages;
  const double m = static_cast<double>(s.training.global_batch / (s.plan.dp * micro_batch));
  const Bytes act = p2p_bytes(s, micro_batch);
  // As the estimate times a task: its compute and its exposed collectives.
  auto time = [&](int64_t r, int64_t c, TaskKind kind) {
    const Task& t = price.task(r, c, kind);
    return t.compute.value + collective_time(t, comm).value;
  };
  // Where each rank starts its next step as it ends (StepProgram::overlaps_steps), the step is no
  // shorter than any rank's own work: fill and drain do not count.
  const bool overlaps = pipeline_schedule(s.plan.schedule).overlaps_steps;
  double bound = 0, fill = 0, drain = 0;  // fill, drain: chunk 0's forwards, backwards on ranks before r
  for (int64_t r = 0; r < pp; ++r) {
    double work = 0;
    for (int64_t c = 0; c < v; ++c)
      for (TaskKind kind : price.unit_kinds()) work += time(r, c, kind);
    bound = std::max(bound, overlaps ? m * work : fill + m * work + drain);
    if (r + 1 < pp) {  // and the activation's (gradient's) transfer to the next (from it)
      fill += time(r, 0, TaskKind::FORWARD) + comm.p2p(r, r + 1, act).value;
      drain += time(r, 0, TaskKind::BACKWARD) + comm.p2p(r + 1, r, act).value;
    }
  }
  return Seconds(bound);
}

}  // namespace sim
