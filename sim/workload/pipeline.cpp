#include "sim/workload/pipeline.hpp"

#include <algorithm>
#include <map>

#include "sim/core/error.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/grad_sync.hpp"
#include "sim/workload/ops.hpp"
#include "sim/workload/stage_layout.hpp"
#include "sim/workload/task_pricer.hpp"

namespace sim {

const char* to_string(TaskKind k) {
  switch (k) {
    case TaskKind::FORWARD: return "forward";
    case TaskKind::BACKWARD: return "backward";
    case TaskKind::WEIGHT_GRAD: return "weight-grad";
    case TaskKind::EMBEDDING_SYNC: return "embedding-sync";
    case TaskKind::COPY_SYNC: return "copy-sync";
    case TaskKind::DP_REDUCE: return "dp-reduce";
    case TaskKind::OPTIMIZER: return "optimizer";
  }
  return "?";
}

Bytes p2p_bytes(const Scenario& s, int64_t micro_batch) {
  double b = 2.0 * static_cast<double>(micro_batch) * static_cast<double>(s.training.seq_len / s.plan.cp) *
             static_cast<double>(s.model.hidden);
  return Bytes(b / static_cast<double>(s.plan.tp));
}

Pipeline build_pipeline(const Scenario& s, const StageLayout& layout, int64_t micro_batch, const ComputeModel& cm) {
  return build_pipeline(build_step_program(s, layout, micro_batch, cm));
}

Pipeline build_pipeline(StepProgram steps) {
  const int64_t pp = static_cast<int64_t>(steps.ranks.size()), v = steps.virtual_stages, m = steps.microbatches;
  const int64_t units = steps.units_per_rank();
  Pipeline p;
  p.microbatches = m;
  p.micro_batch = steps.micro_batch;
  p.virtual_stages = v;
  p.program.resize(static_cast<size_t>(pp));
  auto add = [&](int64_t r, int64_t i) {
    const StepSlot& slot = steps.ranks[static_cast<size_t>(r)][static_cast<size_t>(i)];
    Task task = steps.tasks[static_cast<size_t>(slot.task)];
    task.microbatch = slot.microbatch;
    const TaskId id = boost::add_vertex(std::move(task), p.graph);
    auto& program = p.program[static_cast<size_t>(r)];
    if (!program.empty()) boost::add_edge(program.back(), id, Dependency{}, p.graph);
    program.push_back(id);
    if (i >= units && slot.from_rank >= 0)  // an end-of-step task's input (the units' come below)
      boost::add_edge(p.program[static_cast<size_t>(slot.from_rank)][static_cast<size_t>(slot.from_index)], id,
                      Dependency{EdgeKind::DATA, slot.bytes}, p.graph);
  };
  for (int64_t r = 0; r < pp; ++r)
    for (int64_t i = 0; i < units; ++i) add(r, i);
  // The units' data edges by microbatch, chunk and rank: each forward's activation to the next
  // virtual stage and that stage's gradient back.
  // at: the task that sends each unit's output -- itself, or the one that ends its pair
  // (StepSlot::sends_at); in: the task that receives its input -- itself, or for a backward run
  // beside a forward (StepSlot::beside), that forward, as the pair starts with both inputs.
  std::vector<TaskId> at(static_cast<size_t>(2 * pp * v * m)), in(at.size());
  std::vector<Bytes> input(at.size());  // what each unit receives
  for (int64_t r = 0; r < pp; ++r)
    for (int64_t i = 0; i < units; ++i) {
      const StepSlot& slot = steps.ranks[static_cast<size_t>(r)][static_cast<size_t>(i)];
      const Task& t = steps.tasks[static_cast<size_t>(slot.task)];
      if (t.kind == TaskKind::WEIGHT_GRAD) continue;  // it waits for its own rank's backward alone
      const size_t k = steps.unit_key(t.kind == TaskKind::FORWARD, steps.stage(r, t.chunk), slot.microbatch);
      const auto& program = p.program[static_cast<size_t>(r)];
      at[k] = program[static_cast<size_t>(slot.sends_at >= 0 ? slot.sends_at : i)];
      in[k] = program[static_cast<size_t>(slot.beside >= 0 ? slot.beside : i)];
      input[k] = slot.bytes;
    }
  // Two transfers between the same two tasks (a pair's activation and gradient to the next rank's
  // pair) travel as one, of both their bytes: each edge signals its receiver once.
  auto transfer = [&](TaskId from, TaskId to, Bytes bytes) {
    const auto [e, exists] = boost::edge(from, to, p.graph);
    if (exists && p.graph[e].kind == EdgeKind::DATA)
      p.graph[e].bytes += bytes;
    else
      boost::add_edge(from, to, Dependency{EdgeKind::DATA, bytes}, p.graph);
  };
  for (int64_t mb = 0; mb < m; ++mb)
    for (int64_t j = 0; j + 1 < pp * v; ++j) {
      if (steps.rank_of(j) == steps.rank_of(j + 1)) continue;  // a V's turn: program order alone
      const size_t f = steps.unit_key(true, j + 1, mb), b = steps.unit_key(false, j, mb);
      transfer(at[steps.unit_key(true, j, mb)], in[f], input[f]);
      transfer(at[steps.unit_key(false, j + 1, mb)], in[b], input[b]);
    }
  // The end of the step: the tied-embedding exchange of the first and last ranks, then each rank's
  // reduction and optimizer step.
  std::vector<int64_t> next(static_cast<size_t>(pp), units);
  for (int64_t r : {int64_t{0}, pp - 1}) {
    auto& n = next[static_cast<size_t>(r)];
    if (n < static_cast<int64_t>(steps.ranks[static_cast<size_t>(r)].size()) &&
        steps.task(static_cast<size_t>(r), static_cast<size_t>(n)).kind == TaskKind::EMBEDDING_SYNC)
      add(r, n++);
  }
  for (int64_t r = 0; r < pp; ++r)
    for (auto& n = next[static_cast<size_t>(r)]; n < static_cast<int64_t>(steps.ranks[static_cast<size_t>(r)].size());)
      add(r, n++);
  p.steps = std::move(steps);
  return p;
}

}  // namespace sim

namespace sim {

Seconds exposed(const CollectiveUse& use, Seconds cost) {
  if (use.chunks <= 0) return cost;
  if (use.ring) {
    const double n = static_cast<double>(use.chunks);
    return Seconds((n - 1) * std::max(0.0, cost.value / (n - 1) - use.hidden.value / n));
  }
  const double rest = std::max(0.0, cost.value - use.hidden.value);
  if (use.chunks == 1) return Seconds(std::max(rest, use.sm_share * cost.value));
  const double n = static_cast<double>(use.chunks);
  return Seconds(cost.value / n + (n - 1) / n * rest);
}

std::vector<double> bucket_ready(const Task& t) {
  double total = 0;
  for (const GradBucket& b : t.dp_buckets) total += b.total();
  std::vector<double> ready(t.dp_buckets.size());
  double done = 0;
  for (size_t k = 0; k < ready.size(); ++k) {
    done += t.dp_buckets[k].total();
    ready[k] = total > 0 ? done / total : double(k + 1) / double(ready.size());
  }
  return ready;
}

std::vector<std::vector<GradBucket>> dp_buffers(const StepProgram& p) {
  std::vector<std::vector<GradBucket>> out(p.ranks.size());
  for (size_t r = 0; r < p.ranks.size(); ++r)
    for (size_t i = 0; i < p.ranks[r].size(); ++i) {
      const Task& t = p.task(r, i);
      for (const auto* list : {&t.dp_gathers, &t.dp_buckets})
        for (const GradBucket& b : *list)
          if (b.total() > 0) out[r].push_back(b);
      if (t.kind == TaskKind::DP_REDUCE && t.dp_bytes.total() > 0) out[r].push_back(t.dp_bytes);
    }
  return out;
}

}  // namespace sim
