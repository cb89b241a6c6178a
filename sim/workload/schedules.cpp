#include "sim/scenario/named_choice.hpp"
#include "sim/workload/schedule.hpp"

namespace sim {

const std::vector<PipelineSchedule>& pipeline_schedule_entries() {
  static const std::vector<PipelineSchedule> entries{gpipe_schedule(), one_f_one_b_schedule(), interleaved_schedule()};
  return entries;
}

const PipelineSchedule& pipeline_schedule(Schedule kind) { return registry_entry(pipeline_schedule_entries(), kind); }

}  // namespace sim
