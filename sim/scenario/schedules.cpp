#include "sim/scenario/schedules.hpp"

namespace sim {

const std::vector<ScheduleChoice>& pipeline_schedules() {
  static const std::vector<ScheduleChoice> schedules{
      {Schedule::GPIPE, "gpipe", "all forwards, then all backwards (Huang et al. 2019)"},
      {Schedule::ONE_F_ONE_B, "1f1b", "one-forward-one-backward (PipeDream-Flush, Narayanan et al. 2021)"},
      {Schedule::INTERLEAVED, "interleaved", "1F1B over virtual stages (Narayanan et al. 2021)"},
  };
  return schedules;
}

}  // namespace sim
