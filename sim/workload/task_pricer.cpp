#include "sim/workload/task_pricer.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/cost/host_launch.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/schedule.hpp"
#include "sim/workload/stage_layout.hpp"

namespace sim {
namespace {

// Costs of one pass (all ops of `ops` `times` times) accumulated into a task.
struct Accumulator {
  const ComputeModel& cm;
  Task& task;
  // (group, kind, bytes, the kernels it overlaps, chunks, ring) -> count
  std::map<std::tuple<int, int, double, double, int64_t, bool>, int64_t> collectives;
  double launches = 0;  // kernels and collectives the host launches for the task
  // Of a split backward (PipelineSchedule::splits_backward), the part this task runs: the input
  // gradients (BACKWARD) or the weight gradients (WEIGHT_GRAD); FORWARD: every op.
  TaskKind part = TaskKind::FORWARD;

  bool runs(const Op& op) const {
    if (part == TaskKind::FORWARD) return true;
    return op.weight_grad == (part == TaskKind::WEIGHT_GRAD);
  }

  Seconds kernel_time(const Op& op) const {
    switch (op.cls) {
      case OpClass::GEMM: return cm.gemm(op.shape, op.bytes, op.precision);
      case OpClass::MEMORY: return cm.memory_op(op.bytes);
      case OpClass::FLASH_ATTENTION:
        return cm.fused_attention(op.kernel, op.executed, op.bytes, op.seq_len, op.precision, op.backward, op.head_dim);
      case OpClass::COLLECTIVE: break;
    }
    return Seconds(0);
  }

  // A GEMM that a collective is pipelined with in pieces (tp_comm_overlap) runs as those pieces.
  Seconds gemm_time(const Op& op, const std::map<std::string, int64_t>& pieces) const {
    const auto split = pieces.find(op.name);
    if (split == pieces.end()) return kernel_time(op);
    return kernel_time(gemm_piece(op, split->second)) * static_cast<double>(split->second);
  }

  // `main`: the main model's ops (false: a multi-token prediction module's), for Task::causal_flops.
  void add(const std::vector<Op>& ops, double times, bool model_work, bool main = true) {
    if (times <= 0) return;
    std::map<std::string, int64_t> pieces;
    for (const auto& op : ops)
      if (op.cls == OpClass::COLLECTIVE && op.hidden_by == Op::HiddenBy::GEMM && op.chunks > 1)
        pieces[op.overlaps] = op.chunks;
    for (const auto& op : ops) {
      if (!runs(op)) continue;
      launches += times;
      Seconds t = op.cls == OpClass::GEMM ? gemm_time(op, pieces) : kernel_time(op);
      if (op.cls == OpClass::COLLECTIVE) {
        Seconds hidden;
        if (op.hidden_by == Op::HiddenBy::ATTENTION_CORE) {
          for (const Op& o : ops)
            if (o.attention_core) hidden += kernel_time(o);
        } else if (op.hidden_by == Op::HiddenBy::GEMM) {
          const auto gemm = std::find_if(ops.begin(), ops.end(), [&](const Op& o) { return o.name == op.overlaps; });
          SIM_ASSERT(gemm != ops.end(), "an overlapped collective's GEMM is in its pass");
          // A weight-gradient GEMM split off into a task of its own hides nothing here.
          if (runs(*gemm)) hidden = gemm_time(*gemm, pieces);
        }
        collectives[{static_cast<int>(op.group), static_cast<int>(op.collective), op.bytes.value, hidden.value,
                     op.chunks, op.ring}] += static_cast<int64_t>(times);
      }
      t = t * times;
      task.compute += t;
      (op.attention_core ? task.attention : op.cls == OpClass::GEMM ? task.gemm : task.elementwise) += t;
      // Hardware FLOPs are what the kernels execute: a fused attention kernel skips the masked half.
      const bool executes_other = op.cls == OpClass::FLASH_ATTENTION || op.executed.value > 0;
      task.hardware_flops += (executes_other ? op.executed : op.flops) * times;
      if (model_work) task.model_flops += op.flops * times;
      if (model_work && main) task.causal_flops += op.flops * (op.attention_core ? 0.5 : 1.0) * times;
    }
  }
  void finish() {
    for (const auto& [key, count] : collectives)
      task.collectives.push_back({static_cast<CommGroup>(std::get<0>(key)),
                                  static_cast<CollectiveKind>(std::get<1>(key)), Bytes(std::get<2>(key)), count,
                                  Seconds(std::get<3>(key)), std::get<4>(key), std::get<5>(key)});
  }
};

}  // namespace

TaskPricer::TaskPricer(const Scenario& s, const StageLayout& layout, int64_t micro_batch, const ComputeModel& cm)
    : s_(s),
      layout_(layout),
      micro_batch_(micro_batch),
      cm_(cm),
      layer_(layer_ops(s, micro_batch)),
      moe_layer_(s.model.moe ? layer_ops(s, micro_batch, true) : PassOps{}),
      windowed_layer_(s.model.sliding_window > 0 ? layer_ops(s, micro_batch, false, true) : PassOps{}),
      windowed_moe_layer_(s.model.sliding_window > 0 && s.model.moe ? layer_ops(s, micro_batch, true, true)
                                                                    : PassOps{}),
      emb_(embedding_ops(s, micro_batch)),
      out_(output_ops(s, micro_batch)),
      mtp_(mtp_ops(s, micro_batch)),
      offloaded_(layer_offloaded_bytes(s, micro_batch)),
      offloaded_moe_(s.model.moe ? layer_offloaded_bytes(s, micro_batch, true) : Bytes(0)),
      splits_backward_(pipeline_schedule(s.plan.schedule).splits_backward) {}

const Task& TaskPricer::task(int64_t r, int64_t c, TaskKind kind) {
  const auto key = std::make_tuple(r, c, static_cast<int>(kind));
  auto it = priced_.find(key);
  if (it == priced_.end()) it = priced_.emplace(key, price(kind, r, c)).first;
  return it->second;
}

std::vector<TaskKind> TaskPricer::unit_kinds() const {
  if (splits_backward_) return {TaskKind::FORWARD, TaskKind::BACKWARD, TaskKind::WEIGHT_GRAD};
  return {TaskKind::FORWARD, TaskKind::BACKWARD};
}

Task TaskPricer::price(TaskKind kind, int64_t r, int64_t c) const {
  const int64_t pp = s_.plan.pp, v = layout_.virtual_stages;
  const bool fwd = kind == TaskKind::FORWARD, weight = kind == TaskKind::WEIGHT_GRAD;
  SIM_ASSERT(fwd || kind == TaskKind::BACKWARD || (weight && splits_backward_), "a unit's task");
  Task t;
  t.kind = kind;
  t.rank = r, t.chunk = c, t.microbatch = 0;
  Accumulator acc{cm_, t, {}};
  if (splits_backward_ && !fwd) acc.part = kind;
  // The chunk's layers by kind: dense or MoE, full or sliding-window attention.
  const auto windowed = static_cast<double>(layout_.windowed_dense_layers_of(r, c));
  const auto windowed_moe = static_cast<double>(layout_.windowed_moe_layers_of(r, c));
  const auto layers = static_cast<double>(layout_.dense_layers_of(r, c)) - windowed;
  const auto moe_layers = static_cast<double>(layout_.moe_layers_of(r, c)) - windowed_moe;
  const auto add_layers = [&](std::vector<Op> PassOps::*pass, bool model_work) {
    acc.add(layer_.*pass, layers, model_work);
    acc.add(windowed_layer_.*pass, windowed, model_work);
    acc.add(moe_layer_.*pass, moe_layers, model_work);
    acc.add(windowed_moe_layer_.*pass, windowed_moe, model_work);
  };
  const auto mtp = static_cast<double>(s_.model.mtp_layers);
  bool has_emb = layout_.has_embedding(r, c), has_out = layout_.has_output(r, c);
  if (fwd) {
    if (has_emb) acc.add(emb_.forward, 1, true);
    add_layers(&PassOps::forward, true);
    if (has_out) acc.add(out_.forward, 1, true);
    if (has_out) acc.add(mtp_.forward, mtp, true, false);
  }
  double from_python = acc.launches;  // launched from Python: a forward, a recompute (below)
  if (weight) {                       // the weight gradients of the backward's layers, in its order
    if (has_out) acc.add(out_.backward, 1, true);
    if (has_out) acc.add(mtp_.backward, mtp, true, false);
    add_layers(&PassOps::backward, true);
    if (has_emb) acc.add(emb_.backward, 1, true);
  } else if (!fwd) {
    if (has_out) acc.add(out_.backward, 1, true);
    if (has_out) acc.add(mtp_.backward, mtp, true, false);
    const double before = acc.launches;
    add_layers(&PassOps::recompute, false);
    if (has_out) acc.add(mtp_.recompute, mtp, false);
    from_python = acc.launches - before;
    add_layers(&PassOps::backward, true);
    if (has_emb) acc.add(emb_.backward, 1, true);
  }
  // The host launches the forward's kernels from Python and the backward's from the autograd
  // engine (cost/host_launch.hpp); a task whose kernels are shorter than their launches waits for
  // the host. CUDA graphs, and XLA's compiled step, launch the task at once.
  const bool graphed = s_.training.cuda_graphs || s_.cluster.scale_up.xla_runtime();
  Seconds host = host_launch_per_kernel(false, graphed) * from_python +
                 host_launch_per_kernel(true, graphed) * (acc.launches - from_python);
  if (graphed) host += cuda_graph_launch();
  // Fine-grained activation offloading (offload_modules.hpp): the forward copies its layers'
  // offloaded inputs to host memory and the backward brings them back, on the copy engines beside
  // the kernels over the cluster's host link (Megatron-Core's fine_grained_activation_offloading.md:
  // hidden behind the computation, or bound by the link's bandwidth); a pass whose copies outlast
  // its kernels waits for them.
  if (!weight && !s_.training.offload_modules.empty()) {
    const Bytes copied = offloaded_ * (layers + windowed) + offloaded_moe_ * (moe_layers + windowed_moe);
    host = std::max(host, copied / s_.cluster.host_link);
  }
  if (host > t.compute) {
    t.host_wait = host - t.compute;
    t.compute = host;
  }
  // Receiving a scatter/gather-split activation costs an all-gather over the TP group
  // (Narayanan et al. 2021 §4.1); with sequence parallelism the split is the layout itself.
  bool receives = fwd ? !(r == 0 && c == 0) : !weight && !(r == pp - 1 && c == v - 1);
  if (receives && pp > 1 && s_.plan.tp > 1 && !s_.plan.sequence_parallel)
    acc.collectives[{static_cast<int>(CommGroup::TP), static_cast<int>(CollectiveKind::ALL_GATHER),
                     p2p_bytes(s_, micro_batch_).value * double(s_.plan.tp), 0.0, int64_t{0}, false}] += 1;
  acc.finish();
  return t;
}

}  // namespace sim
