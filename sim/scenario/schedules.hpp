// The pipeline schedules a scenario's `parallelism.schedule` may name, each with the line
// `trainsim list` prints and the shape it asks of a plan (chunks in a V, two model copies, the
// microbatches it needs): the names' registry. What each one runs -- the order of a rank's
// forward and backward units, the activations it holds -- is its entry in
// sim/workload/schedule.hpp, one file per schedule.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/scenario/named_choice.hpp"
#include "sim/scenario/plan.hpp"

namespace sim {

struct ScheduleChoice : NamedChoice<Schedule> {
  // Whether its two chunks per rank lie in a V (sim/workload/stage_layout.hpp, virtual_stage).
  bool v_shape = false;
  // Whether each of the two chunks is a stage of a model copy of its own, the copies running in
  // opposite directions (DualPipe: StageLayout::copies 2); half the step's microbatches enter at
  // each end, and pp is even.
  bool two_copies = false;
  // The least microbatches per step it runs, per pipeline rank, and whether it needs an even
  // number (0 and false: any).
  int64_t min_microbatches_per_rank = 0;
  bool even_microbatches = false;

  // Whether it runs m microbatches on pp ranks.
  bool runs(int64_t pp, int64_t m) const {
    return (!even_microbatches || m % 2 == 0) && m >= min_microbatches_per_rank * pp;
  }
};

const std::vector<ScheduleChoice>& pipeline_schedules();
const ScheduleChoice& schedule_choice(Schedule kind);

}  // namespace sim
