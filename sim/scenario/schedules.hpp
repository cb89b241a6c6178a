// The pipeline schedules a scenario's `parallelism.schedule` may name, each with the line
// `trainsim list` prints: the names' registry. What each one runs -- the order of a rank's
// forward and backward units, the activations it holds -- is its entry in
// sim/workload/schedule.hpp, one file per schedule.
#pragma once

#include <vector>

#include "sim/scenario/named_choice.hpp"
#include "sim/scenario/plan.hpp"

namespace sim {

using ScheduleChoice = NamedChoice<Schedule>;

const std::vector<ScheduleChoice>& pipeline_schedules();

}  // namespace sim
