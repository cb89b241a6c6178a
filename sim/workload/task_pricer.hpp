// The price of each (pipeline rank, chunk, pass)'s task: its kernels' times by class, its
// FLOPs and the tensor- and context-parallel collectives between its kernels. A task's cost depends
// on nothing else (the microbatch only names it), so each is priced once and shared by the step's
// programs (step_program.hpp) and the step's lower bound (pipeline.hpp), which therefore price alike.
#pragma once

#include <cstdint>
#include <map>
#include <tuple>

#include "sim/workload/ops.hpp"
#include "sim/workload/pipeline.hpp"

namespace sim {

struct Scenario;
struct StageLayout;
class ComputeModel;

class TaskPricer {
 public:
  TaskPricer(const Scenario& s, const StageLayout& layout, int64_t micro_batch, const ComputeModel& cm);

  // Rank r's forward, backward or (where the schedule splits the backward) weight gradients of
  // chunk c, microbatch 0. A split backward computes the input gradients alone.
  const Task& task(int64_t r, int64_t c, TaskKind kind);
  // The kinds of the units of one chunk and microbatch: forward, backward and, where the schedule
  // splits the backward, weight gradients.
  std::vector<TaskKind> unit_kinds() const;

 private:
  Task price(TaskKind kind, int64_t r, int64_t c) const;

  const Scenario& s_;
  const StageLayout& layout_;
  int64_t micro_batch_;
  const ComputeModel& cm_;
  PassOps layer_, moe_layer_;  // a dense layer's ops, an MoE layer's (none without)
  // A dense and an MoE layer with sliding-window attention (none without a window).
  PassOps windowed_layer_, windowed_moe_layer_;
  PassOps emb_, out_, mtp_;
  Bytes offloaded_, offloaded_moe_;  // a dense and an MoE layer's activations offloaded per microbatch
  bool splits_backward_;
  std::map<std::tuple<int64_t, int64_t, int>, Task> priced_;
};

}  // namespace sim
