#include "sim/workload/pipeline.hpp"

#include <algorithm>
#include <map>

#include "sim/core/error.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/comm_costs.hpp"
#include "sim/workload/estimate.hpp"
#include "sim/workload/grad_sync.hpp"
#include "sim/workload/ops.hpp"
#include "sim/workload/stage_layout.hpp"

namespace sim {

const char* to_string(TaskKind k) {
  switch (k) {
    case TaskKind::FORWARD: return "forward";
    case TaskKind::BACKWARD: return "backward";
    case TaskKind::EMBEDDING_SYNC: return "embedding-sync";
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

namespace {

// Costs of one pass (all ops of `ops` `times` times) accumulated into a task.
struct Accumulator {
  const ComputeModel& cm;
  Task& task;
  // (group, kind, bytes, the kernels it overlaps, chunks, ring) -> count
  std::map<std::tuple<int, int, double, double, int64_t, bool>, int64_t> collectives;

  Seconds kernel_time(const Op& op) const {
    switch (op.cls) {
      case OpClass::GEMM: return cm.gemm(op.shape, op.bytes, op.precision);
      case OpClass::MEMORY: return cm.memory_op(op.bytes);
      case OpClass::FLASH_ATTENTION: return cm.flash_attention(op.executed, op.bytes, op.seq_len, op.precision);
      case OpClass::COLLECTIVE: break;
    }
    return Seconds(0);
  }

  void add(const std::vector<Op>& ops, double times, bool model_work) {
    if (times <= 0) return;
    for (const auto& op : ops) {
      Seconds t = kernel_time(op);
      if (op.cls == OpClass::COLLECTIVE) {
        Seconds hidden;
        if (op.hidden_by == Op::HiddenBy::ATTENTION_CORE) {
          for (const Op& o : ops)
            if (o.attention_core) hidden += kernel_time(o);
        } else if (op.hidden_by == Op::HiddenBy::GEMM) {
          const auto gemm = std::find_if(ops.begin(), ops.end(), [&](const Op& o) { return o.name == op.overlaps; });
          SIM_ASSERT(gemm != ops.end(), "an overlapped collective's GEMM is in its pass");
          hidden = kernel_time(*gemm);
        }
        collectives[{static_cast<int>(op.group), static_cast<int>(op.collective), op.bytes.value, hidden.value,
                     op.chunks, op.ring}] += static_cast<int64_t>(times);
      }
      t = t * times;
      task.compute += t;
      (op.attention_core ? task.attention : op.cls == OpClass::GEMM ? task.gemm : task.elementwise) += t;
      // Hardware FLOPs are what the kernels execute: a fused attention kernel skips the masked half.
      task.hardware_flops += (op.cls == OpClass::FLASH_ATTENTION ? op.executed : op.flops) * times;
      if (model_work) task.model_flops += op.flops * times;
    }
  }
  void finish() {
    for (const auto& [key, count] : collectives)
      task.collectives.push_back({static_cast<CommGroup>(std::get<0>(key)),
                                  static_cast<CollectiveKind>(std::get<1>(key)), Bytes(std::get<2>(key)), count,
                                  Seconds(std::get<3>(key)), std::get<4>(key), std::get<5>(key)});
  }
};

// Each (rank, chunk, direction)'s task, priced once: a task's cost depends on nothing else (the
// microbatch only names it). Shared by the graph and the lower bound, so both price alike.
class TaskPricer {
 public:
  TaskPricer(const Scenario& s, const StageLayout& layout, int64_t micro_batch, const ComputeModel& cm)
      : s_(s),
        layout_(layout),
        micro_batch_(micro_batch),
        cm_(cm),
        layer_(layer_ops(s, micro_batch)),
        emb_(embedding_ops(s, micro_batch)),
        out_(output_ops(s, micro_batch)) {}

  const Task& task(int64_t r, int64_t c, bool fwd) {
    const auto key = std::make_tuple(r, c, fwd);
    auto it = priced_.find(key);
    if (it == priced_.end()) it = priced_.emplace(key, price(fwd, r, c)).first;
    return it->second;
  }

 private:
  Task price(bool fwd, int64_t r, int64_t c) const {
    const int64_t pp = s_.plan.pp, v = layout_.virtual_stages;
    Task t;
    t.kind = fwd ? TaskKind::FORWARD : TaskKind::BACKWARD;
    t.rank = r, t.chunk = c, t.microbatch = 0;
    Accumulator acc{cm_, t, {}};
    double layers = static_cast<double>(layout_.layers_of(r, c));
    bool has_emb = layout_.has_embedding(r, c), has_out = layout_.has_output(r, c);
    if (fwd) {
      if (has_emb) acc.add(emb_.forward, 1, true);
      acc.add(layer_.forward, layers, true);
      if (has_out) acc.add(out_.forward, 1, true);
    } else {
      if (has_out) acc.add(out_.backward, 1, true);
      acc.add(layer_.recompute, layers, false);
      acc.add(layer_.backward, layers, true);
      if (has_emb) acc.add(emb_.backward, 1, true);
    }
    // Receiving a scatter/gather-split activation costs an all-gather over the TP group
    // (Narayanan et al. 2021 §4.1); with sequence parallelism the split is the layout itself.
    bool receives = fwd ? !(r == 0 && c == 0) : !(r == pp - 1 && c == v - 1);
    if (receives && pp > 1 && s_.plan.tp > 1 && !s_.plan.sequence_parallel)
      acc.collectives[{static_cast<int>(CommGroup::TP), static_cast<int>(CollectiveKind::ALL_GATHER),
                       p2p_bytes(s_, micro_batch_).value * double(s_.plan.tp), 0.0, int64_t{0}, false}] += 1;
    acc.finish();
    return t;
  }

  const Scenario& s_;
  const StageLayout& layout_;
  int64_t micro_batch_;
  const ComputeModel& cm_;
  PassOps layer_, emb_, out_;
  std::map<std::tuple<int64_t, int64_t, bool>, Task> priced_;
};

struct Unit {
  bool forward;
  int64_t chunk, microbatch;
};

// Megatron-LM's schedules (megatron/core/pipeline_parallel/schedules.py), in the order rank r
// issues its forward (F) and backward (B) units.
std::vector<Unit> schedule_units(Schedule sched, int64_t pp, int64_t v, int64_t m, int64_t r) {
  std::vector<Unit> out;
  if (sched == Schedule::GPIPE) {
    for (int64_t i = 0; i < m; ++i) out.push_back({true, 0, i});
    for (int64_t i = m - 1; i >= 0; --i) out.push_back({false, 0, i});
    return out;
  }
  const int64_t total = m * v;
  auto unit = [&](int64_t k, bool fwd) {
    int64_t group = k / (pp * v), in_group = k % (pp * v);
    int64_t chunk = in_group / pp;
    if (!fwd) chunk = v - 1 - chunk;
    return Unit{fwd, chunk, group * pp + in_group % pp};
  };
  int64_t warmup = v == 1 ? std::min(pp - r - 1, m) : std::min((pp - r - 1) * 2 + (v - 1) * pp, total);
  if (v == 1) {
    auto u = [&](int64_t k, bool fwd) { return Unit{fwd, 0, k}; };
    for (int64_t i = 0; i < warmup; ++i) out.push_back(u(i, true));
    for (int64_t i = 0; i < m - warmup; ++i) {
      out.push_back(u(warmup + i, true));
      out.push_back(u(i, false));
    }
    for (int64_t i = m - warmup; i < m; ++i) out.push_back(u(i, false));
    return out;
  }
  for (int64_t k = 0; k < warmup; ++k) out.push_back(unit(k, true));
  for (int64_t i = 0; i < total - warmup; ++i) {
    out.push_back(unit(warmup + i, true));
    out.push_back(unit(i, false));
  }
  for (int64_t k = total - warmup; k < total; ++k) out.push_back(unit(k, false));
  return out;
}

}  // namespace

Pipeline build_pipeline(const Scenario& s, const StageLayout& layout, int64_t micro_batch, const ComputeModel& cm) {
  const int64_t pp = s.plan.pp, v = layout.virtual_stages;
  const int64_t m = s.training.global_batch / (s.plan.dp * micro_batch);
  Pipeline p;
  p.microbatches = m;
  p.micro_batch = micro_batch;
  p.virtual_stages = v;
  p.program.resize(static_cast<size_t>(pp));

  TaskPricer price(s, layout, micro_batch, cm);
  // Tasks in program order; remember each (rank, chunk, mb, dir) vertex for the data edges.
  std::map<std::tuple<int64_t, int64_t, int64_t, bool>, TaskId> where;
  for (int64_t r = 0; r < pp; ++r) {
    for (const Unit& u : schedule_units(s.plan.schedule, pp, v, m, r)) {
      Task task = price.task(r, u.chunk, u.forward);
      task.microbatch = u.microbatch;
      TaskId id = boost::add_vertex(std::move(task), p.graph);
      if (!p.program[size_t(r)].empty()) boost::add_edge(p.program[size_t(r)].back(), id, Dependency{}, p.graph);
      p.program[size_t(r)].push_back(id);
      where[{r, u.chunk, u.microbatch, u.forward}] = id;
    }
  }
  const Bytes act = p2p_bytes(s, micro_batch);
  for (int64_t mb = 0; mb < m; ++mb)
    for (int64_t c = 0; c < v; ++c)
      for (int64_t r = 0; r < pp; ++r) {
        int64_t j = c * pp + r;  // virtual stage
        if (j + 1 < pp * v) {
          int64_t nr = (j + 1) % pp, nc = (j + 1) / pp;
          boost::add_edge(where.at({r, c, mb, true}), where.at({nr, nc, mb, true}), Dependency{EdgeKind::DATA, act},
                          p.graph);
          boost::add_edge(where.at({nr, nc, mb, false}), where.at({r, c, mb, false}), Dependency{EdgeKind::DATA, act},
                          p.graph);
        }
      }
  SIM_ASSERT(where.size() == static_cast<size_t>(2 * m * v * pp), "every unit scheduled once");

  add_gradient_sync(p, s, layout, cm);
  return p;
}

Seconds step_lower_bound(const Scenario& s, const StageLayout& layout, int64_t micro_batch, const ComputeModel& cm,
                         const CommCosts& comm) {
  TaskPricer price(s, layout, micro_batch, cm);
  const int64_t pp = s.plan.pp, v = layout.virtual_stages;
  const double m = static_cast<double>(s.training.global_batch / (s.plan.dp * micro_batch));
  const Bytes act = p2p_bytes(s, micro_batch);
  // As the estimate times a task: its compute and its exposed collectives.
  auto time = [&](int64_t r, int64_t c, bool fwd) {
    const Task& t = price.task(r, c, fwd);
    return t.compute.value + collective_time(t, comm).value;
  };
  double bound = 0, fill = 0, drain = 0;  // fill, drain: chunk 0's forwards, backwards on ranks before r
  for (int64_t r = 0; r < pp; ++r) {
    double work = 0;
    for (int64_t c = 0; c < v; ++c) work += time(r, c, true) + time(r, c, false);
    bound = std::max(bound, fill + m * work + drain);
    if (r + 1 < pp) {  // and the activation's (gradient's) transfer to the next (from it)
      fill += time(r, 0, true) + comm.p2p(r, r + 1, act).value;
      drain += time(r, 0, false) + comm.p2p(r + 1, r, act).value;
    }
  }
  return Seconds(bound);
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
  if (use.chunks == 1) return Seconds(rest);
  const double n = static_cast<double>(use.chunks);
  return Seconds(cost.value / n + (n - 1) / n * rest);
}

std::vector<double> bucket_ready(const Task& t) {
  double total = 0;
  for (const Bytes& b : t.dp_buckets) total += b.value;
  std::vector<double> ready(t.dp_buckets.size());
  double done = 0;
  for (size_t k = 0; k < ready.size(); ++k) {
    done += t.dp_buckets[k].value;
    ready[k] = total > 0 ? done / total : double(k + 1) / double(ready.size());
  }
  return ready;
}

std::vector<std::vector<Bytes>> dp_buffers(const Pipeline& p, int64_t pp) {
  std::vector<std::vector<Bytes>> out(static_cast<size_t>(pp));
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) {
    const Task& t = p.graph[v];
    auto& mine = out[static_cast<size_t>(t.rank)];
    for (const Bytes& b : t.dp_buckets)
      if (b.value > 0) mine.push_back(b);
    if (t.kind == TaskKind::DP_REDUCE && t.dp_bytes.value > 0) mine.push_back(t.dp_bytes);
  }
  return out;
}

}  // namespace sim
