// What a pipeline schedule runs, one registry entry per schedule (each in its own file,
// schedule_*.cpp; the table in schedules.cpp): the order in which each pipeline rank issues its
// forward and backward units (and, where the schedule splits the backward, its weight-gradient
// units), and the activations it holds at its peak. Its name and `trainsim
// list` line are in sim/scenario/schedules.hpp.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/scenario/plan.hpp"
#include "sim/scenario/schedules.hpp"

namespace sim {

// A forward or backward of one microbatch through one of the rank's model chunks; where the
// schedule splits the backward (PipelineSchedule::splits_backward), the backward computes the input
// gradients alone and a later `weight` unit (forward false) the weight gradients.
//
// A forward and the backward right after it may run side by side (`beside`, set on both: DualPipe's
// overlapped forward-backward chunk pairs): each one's expert-parallel all-to-alls run while the
// other computes (step_program.hpp, run_beside).
struct ScheduleUnit {
  bool forward;
  int64_t chunk, microbatch;
  bool weight = false;
  bool beside = false;
};

struct PipelineSchedule {
  Schedule kind;
  // Per pipeline rank of pp, the units it issues, in order, with v chunks per rank and m microbatches.
  std::vector<std::vector<ScheduleUnit>> (*units)(int64_t pp, int64_t v, int64_t m);
  // The microbatches whose activations rank r holds at its peak, in units of all of the rank's
  // layers for one microbatch.
  double (*in_flight)(int64_t pp, int64_t v, int64_t m, int64_t r);
  // Whether every backward is a backward unit (input gradients) and a weight unit (weight gradients).
  bool splits_backward = false;
  // Whether each pipeline rank starts its next step as soon as it has finished this one, instead of
  // the whole pipeline starting together (StepProgram::overlaps_steps).
  bool overlaps_steps = false;
  // Its chunks' shape -- a V, two model copies -- and the microbatches it needs are the plan's, in
  // its name's entry (sim/scenario/schedules.hpp, ScheduleChoice). Under two copies its units take
  // m/2 microbatches per chunk: half the step's enter at each end.
};

// Megatron-LM's one-forward-one-backward order over v chunks per rank
// (megatron/core/pipeline_parallel/schedules.py): warm-up forwards, then alternating forwards and
// backwards, then the remaining backwards; with v = 1, PipeDream-Flush's 1F1B.
std::vector<ScheduleUnit> one_f_one_b_units(int64_t pp, int64_t v, int64_t m, int64_t r);
// Per rank of pp, `per_rank`'s order.
std::vector<std::vector<ScheduleUnit>> every_rank(int64_t pp, int64_t v, int64_t m,
                                                  std::vector<ScheduleUnit> (*per_rank)(int64_t, int64_t, int64_t,
                                                                                        int64_t));

// What `kind` runs as when a plan keeps one chunk per rank: interleaved 1F1B as 1F1B, ZB-V,
// DualPipe and DualPipeV as ZB-H1 (the one-chunk schedule that splits the backward as they do, of
// 1F1B's activation memory), the others as themselves.
Schedule one_chunk_schedule(Schedule kind);

// The entries, one per Schedule.
PipelineSchedule gpipe_schedule();
PipelineSchedule one_f_one_b_schedule();
PipelineSchedule interleaved_schedule();
PipelineSchedule zb_h1_schedule();
PipelineSchedule zb_h2_schedule();
PipelineSchedule zb_v_schedule();
PipelineSchedule dualpipe_schedule();
PipelineSchedule dualpipe_v_schedule();
const std::vector<PipelineSchedule>& pipeline_schedule_entries();
// The entry of `kind`.
const PipelineSchedule& pipeline_schedule(Schedule kind);

}  // namespace sim
