#include "sim/workload/estimate.hpp"

#include <algorithm>

#include "sim/core/error.hpp"
#include "sim/workload/comm_costs.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/step_program.hpp"

namespace sim {

Seconds collective_time(const Task& task, const CommCosts& comm) {
  Seconds t;
  for (const auto& use : task.collectives)
    t += exposed(use, comm.group_collective(use.group, use.kind, use.bytes)) * static_cast<double>(use.count);
  return t;
}

Estimate estimate_step(const Scenario& /*s*/, const Pipeline& p, const CommCosts& comm) {
  return estimate_step(p.steps, comm);
}

Estimate estimate_step(const StepProgram& p, const CommCosts& comm) {
  // Each distinct task's own time (compute and exposed collectives) and its buckets' readiness.
  std::vector<Seconds> own(p.tasks.size());
  std::vector<std::vector<double>> ready(p.tasks.size());
  for (size_t k = 0; k < p.tasks.size(); ++k) {
    own[k] = p.tasks[k].compute + collective_time(p.tasks[k], comm);
    ready[k] = bucket_ready(p.tasks[k]);
  }
  const size_t ranks = p.ranks.size();
  Estimate e;
  e.finish.resize(ranks);
  for (size_t r = 0; r < ranks; ++r) e.finish[r].resize(p.ranks[r].size());
  // Per pipeline rank, when its data-parallel channel is free: overlapped gradient buckets queue
  // on it in the order they become ready.
  std::vector<Seconds> dp_free(ranks), dp_alpha(ranks);  // dp_alpha: the largest latency term of the buckets in flight
  // Each rank runs its program in order; a slot starts when the slot before it ends and its input
  // has arrived. Sweeps over the ranks advance each as far as its inputs allow.
  std::vector<size_t> next(ranks, 0);
  for (int64_t left = p.slots(); left > 0;) {
    int64_t done = 0;
    for (size_t r = 0; r < ranks; ++r) {
      const auto& program = p.ranks[r];
      auto& finish = e.finish[r];
      for (size_t& i = next[r]; i < program.size(); ++i) {
        const StepSlot& slot = program[i];
        Seconds start = i > 0 ? finish[i - 1] : Seconds(0);
        if (slot.from_rank >= 0) {
          const auto from = static_cast<size_t>(slot.from_rank), at = static_cast<size_t>(slot.from_index);
          if (next[from] <= at) break;  // not sent yet
          start = std::max(start, e.finish[from][at] + comm.p2p(slot.from_rank, static_cast<int64_t>(r), slot.bytes));
        }
        const auto k = static_cast<size_t>(slot.task);
        const Task& t = p.tasks[k];
        Seconds& channel = dp_free[r];
        Seconds& alpha = dp_alpha[r];
        for (size_t b = 0; b < t.dp_buckets.size(); ++b) {
          channel = std::max(channel, start + t.compute * ready[k][b]) + comm.dp_transfer(t.rank, t.dp_buckets[b]);
          alpha = std::max(alpha, comm.dp_latency(t.rank, t.dp_buckets[b]));
        }
        Seconds dur = own[k];
        if (t.kind == TaskKind::DP_REDUCE) {
          start = std::max(start, channel);  // overlapped buckets still in flight
          // The engine pays the largest latency term of the all-reduces in flight once they end.
          if (t.dp_bytes.value > 0) alpha = std::max(alpha, comm.dp_latency(t.rank, t.dp_bytes));
          dur += comm.dp_transfer(t.rank, t.dp_bytes) + alpha;
          alpha = Seconds(0);
        }
        finish[i] = start + dur;
        e.step = std::max(e.step, finish[i]);
        ++done;
      }
    }
    SIM_ASSERT(done > 0, "every rank waits on an input that never comes");
    left -= done;
  }
  return e;
}

}  // namespace sim
