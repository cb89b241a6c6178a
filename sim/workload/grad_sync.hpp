// The end of a step: the tied-embedding gradient exchange between the first and last pipeline
// ranks, the gradient reduction over data parallel (at the end, or in per-layer buckets overlapped
// with the last microbatch's backward of each chunk when `overlap_grad_reduce` is set, as
// Megatron-LM's --overlap-grad-reduce does), and the optimizer step.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/cost/grad_bucket.hpp"

namespace sim {

struct StepProgram;
struct Scenario;
struct StageLayout;
class ComputeModel;

// The gradient buckets of chunk `chunk` of pipeline rank `rank` when the reduction overlaps the
// backward (overlap_grad_reduce), in the order the backward fills them, each the bytes it reduces
// over dp x cp (ZeRO-3: 1.5x, Rajbhandari et al. 2020 §7):
// - ZeRO-3 (FSDP, one unit per transformer block): one bucket per layer, the embedding or output
//   layer joining the last;
// - otherwise Megatron-Core's DDP: buckets of max(40e6, 1e6 x dp x cp) of this GPU's parameters
//   ("larger DP sizes need larger buckets to ensure collectives do not become latency-bound",
//   DistributedDataParallelConfig.bucket_size) on the first pipeline rank's first chunk only;
//   every other chunk is one bucket, reduced once its backward is done (bucketing is turned off
//   for pipeline ranks after the first and model chunks after the first: DDP's pp_rank > 0 and
//   training.py get_model's disable_bucketing=(model_chunk_idx > 0)).
// Empty when the chunk holds nothing or there is no gradient reduction.
std::vector<GradBucket> grad_buckets(const Scenario& s, const StageLayout& layout, int64_t rank, int64_t chunk);

// Appends those tasks to every rank's program of a step whose forward/backward units exist.
void add_gradient_sync(StepProgram& p, const Scenario& s, const StageLayout& layout, const ComputeModel& cm);

}  // namespace sim
