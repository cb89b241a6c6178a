// The end of a step: the tied-embedding gradient exchange between the first and last pipeline
// ranks, the gradient reduction over data parallel (at the end, or in per-layer buckets overlapped
// with the last microbatch's backward of each chunk when `overlap_grad_reduce` is set, as
// Megatron-LM's --overlap-grad-reduce does), and the optimizer step.
#pragma once

namespace sim {

struct Pipeline;
struct Scenario;
struct StageLayout;
class ComputeModel;

// Appends those tasks to every rank's program of a pipeline whose forward/backward tasks exist.
void add_gradient_sync(Pipeline& p, const Scenario& s, const StageLayout& layout, const ComputeModel& cm);

}  // namespace sim
