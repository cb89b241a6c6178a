// What a pipeline schedule runs, one registry entry per schedule (each in its own file,
// schedule_*.cpp; the table in schedules.cpp): the order in which a pipeline rank issues its
// forward and backward units, and the activations it holds at its peak. Its name and `trainsim
// list` line are in sim/scenario/schedules.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/scenario/plan.hpp"

namespace sim {

// A forward or backward of one microbatch through one of the rank's model chunks.
struct ScheduleUnit {
  bool forward;
  int64_t chunk, microbatch;
};

struct PipelineSchedule {
  Schedule kind;
  // The units pipeline rank r of pp issues, in order, with v chunks per rank and m microbatches.
  std::vector<ScheduleUnit> (*units)(int64_t pp, int64_t v, int64_t m, int64_t r);
  // The microbatches whose activations rank r holds at its peak, in units of all of the rank's
  // layers for one microbatch.
  double (*in_flight)(int64_t pp, int64_t v, int64_t m, int64_t r);
};

// Megatron-LM's one-forward-one-backward order over v chunks per rank
// (megatron/core/pipeline_parallel/schedules.py): warm-up forwards, then alternating forwards and
// backwards, then the remaining backwards; with v = 1, PipeDream-Flush's 1F1B.
std::vector<ScheduleUnit> one_f_one_b_units(int64_t pp, int64_t v, int64_t m, int64_t r);

// The entries, one per Schedule.
PipelineSchedule gpipe_schedule();
PipelineSchedule one_f_one_b_schedule();
PipelineSchedule interleaved_schedule();
const std::vector<PipelineSchedule>& pipeline_schedule_entries();
// The entry of `kind`.
const PipelineSchedule& pipeline_schedule(Schedule kind);

}  // namespace sim
