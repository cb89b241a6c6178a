#include "sim/scenario/named_choice.hpp"
#include "sim/workload/schedule.hpp"

namespace sim {

const std::vector<PipelineSchedule>& pipeline_schedule_entries() {
  static const std::vector<PipelineSchedule> entries{
      gpipe_schedule(), one_f_one_b_schedule(), interleaved_schedule(), zb_h1_schedule(),
      zb_h2_schedule(), zb_v_schedule(),        dualpipe_schedule(),    dualpipe_v_schedule()};
  return entries;
}

std::vector<std::vector<ScheduleUnit>> every_rank(int64_t pp, int64_t v, int64_t m,
                                                  std::vector<ScheduleUnit> (*per_rank)(int64_t, int64_t, int64_t,
                                                                                        int64_t)) {
  std::vector<std::vector<ScheduleUnit>> out;
  out.reserve(static_cast<size_t>(pp));
  for (int64_t r = 0; r < pp; ++r) out.push_back(per_rank(pp, v, m, r));
  return out;
}

Schedule one_chunk_schedule(Schedule kind) {
  if (kind == Schedule::INTERLEAVED) return Schedule::ONE_F_ONE_B;
  return schedule_choice(kind).v_shape ? Schedule::ZB_H1 : kind;
}

const PipelineSchedule& pipeline_schedule(Schedule kind) { return registry_entry(pipeline_schedule_entries(), kind); }

}  // namespace sim
