#include "sim/plan/step_bound.hpp"

#include <algorithm>

#include "sim/comm/comm_costs.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/pipeline.hpp"
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
  auto time = [&](int64_t r, int64_t c, bool fwd) {
    const Task& t = price.task(r, c, fwd);
    return t.compute.value + collective_time(t, comm).value;
  };
  double bound = 0, fill = 0, drain = 0;  // fill, drain: chunk 0's forwards, backwards on ranks before r
  for (int64_t r = 0; r < pp; ++r) {
    double work = 0;
    for (int64_t c = 0; c < v; ++c) work += time(r, c, true) + time(r, c, false);
    bound = std::max(bound, fill + m * work + drain);
    if (r + 1 < pp) {  // and the activation's (gradient's) transfer to the next (from it)
      fill += time(r, 0, true) + comm.p2p(r, r + 1, act).value;
      drain += time(r, 0, false) + comm.p2p(r + 1, r, act).value;
    }
  }
  return Seconds(bound);
}

}  // namespace sim
