#include "sim/plan/estimate.hpp"

#include <algorithm>
#include <utility>

#include "sim/comm/comm_costs.hpp"
#include "sim/core/error.hpp"
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

namespace {

// One sweep of the programs. With an optical circuit switch that changes circuits (reconfig > 0)
// a transfer that crosses it starts no earlier than the pipeline's circuits are up (reconfig after
// the step starts), and records when it arrived in `last_crossing`; every gradient reduction,
// overlapped buckets included, waits for the reduction's circuits (`reduction_ready`; the buckets
// then go with the final reduction, as the engine holds them).
Estimate sweep(const StepProgram& p, const CommCosts& comm, Seconds reconfig, Seconds reduction_ready,
               Seconds& last_crossing) {
  // Each distinct task's own time (compute and exposed collectives) and its buckets' readiness.
  std::vector<Seconds> own(p.tasks.size());
  std::vector<std::vector<double>> ready(p.tasks.size());
  for (size_t k = 0; k < p.tasks.size(); ++k) {
    own[k] = p.tasks[k].compute + collective_time(p.tasks[k], comm);
    ready[k] = bucket_ready(p.tasks[k]);
  }
  const bool switching = reconfig.value > 0;
  const size_t ranks = p.ranks.size();
  Estimate e;
  e.finish.resize(ranks);
  e.dp_launches.resize(ranks);
  for (size_t r = 0; r < ranks; ++r) e.finish[r].resize(p.ranks[r].size());
  // Per pipeline rank, when its data-parallel channel is free: overlapped gradient buckets queue
  // on it in the order they become ready.
  std::vector<Seconds> dp_free(ranks), dp_alpha(ranks);  // dp_alpha: the largest latency term of the buckets in flight
  std::vector<Seconds> held(ranks);                      // buckets held for the reduction's circuits
  std::vector<Seconds> held_route(ranks);                // the longest route latency of those
  std::vector<int64_t> held_buckets(ranks);
  // Each rank runs its program in order; a slot starts when the slot before it ends and its input
  // has arrived. Sweeps over the ranks advance each as far as its inputs allow.
  std::vector<size_t> next(ranks, 0);
  std::vector<Seconds> first_start(ranks);  // when each rank's first slot starts
  for (int64_t left = p.slots(); left > 0;) {
    int64_t done = 0;
    for (size_t r = 0; r < ranks; ++r) {
      const auto& program = p.ranks[r];
      auto& finish = e.finish[r];
      for (size_t& i = next[r]; i < program.size(); ++i) {
        const StepSlot& slot = program[i];
        Seconds start = i > 0 ? finish[i - 1] : Seconds(0);
        const Seconds before_input = start;  // the awaited gathers launch here (below)
        // Its input, and where it runs a pair, the input of the backward beside it (StepSlot::beside).
        // Two inputs from the same slot travel as one transfer of both (pipeline.cpp).
        const StepSlot* pair =
            i + 1 < program.size() && program[i + 1].beside == static_cast<int64_t>(i) ? &program[i + 1] : nullptr;
        StepSlot both;
        if (pair && pair->from_rank >= 0 && pair->from_rank == slot.from_rank && pair->from_index == slot.from_index) {
          both = slot;
          both.bytes += pair->bytes;
          pair = nullptr;
        }
        bool sent_all = true;
        for (const StepSlot* in : {both.from_rank >= 0 ? &both : &slot, pair}) {
          if (!in || in->from_rank < 0) continue;
          const auto from = static_cast<size_t>(in->from_rank), at = static_cast<size_t>(in->from_index);
          if (next[from] <= at) {  // not sent yet
            sent_all = false;
            break;
          }
          const bool crosses = switching && comm.p2p_crosses(in->from_rank, static_cast<int64_t>(r));
          Seconds sent = e.finish[from][at];
          if (crosses) sent = std::max(sent, reconfig);
          // As the engine runs it (replay.cpp, receive): the transfer starts once the receiver
          // reaches the slot and the sender's data is ready, and the slot waits for it.
          const Seconds arrived = std::max(start, sent) + comm.p2p(in->from_rank, static_cast<int64_t>(r), in->bytes);
          if (crosses) last_crossing = std::max(last_crossing, arrived);
          start = arrived;
        }
        if (!sent_all) break;
        const auto k = static_cast<size_t>(slot.task);
        const Task& t = p.tasks[k];
        Seconds& channel = dp_free[r];
        Seconds& alpha = dp_alpha[r];
        // A bucket's flows move bytes once their route latency has passed from its launch: the
        // task's gathers at its start, its gradient buckets as its compute passes each.
        const auto queue = [&](const GradBucket& bucket, Seconds launch) {
          if (switching) {
            held[r] += comm.dp_transfer(t.rank, bucket);
            held_route[r] = std::max(held_route[r], comm.dp_route_latency(t.rank, bucket));
            ++held_buckets[r];
          } else {
            channel =
                std::max(channel, launch + comm.dp_route_latency(t.rank, bucket)) + comm.dp_transfer(t.rank, bucket);
            e.dp_launches[r].push_back({launch, channel});
          }
          alpha = std::max(alpha, comm.dp_latency(t.rank, bucket));
        };
        // The awaited gathers, launched before the task's input arrives, before the kernels start,
        // behind what the rank launched before (the engine waits for them and their latency term);
        // the others, launched together behind them, share the channel and end together: one
        // launch of all.
        const size_t awaited = std::min(t.dp_awaited.value_or(0), t.dp_gathers.size());
        for (size_t g = 0; g < awaited; ++g) queue(t.dp_gathers[g], before_input);
        if (t.dp_awaited && !switching) {  // held for the reduction's circuits otherwise (the engine's)
          start = std::max(start, channel) + alpha;
          alpha = Seconds(0);
        }
        const size_t launched = e.dp_launches[r].size();
        for (size_t g = awaited; g < t.dp_gathers.size(); ++g) queue(t.dp_gathers[g], start);
        if (e.dp_launches[r].size() > launched + 1) {
          e.dp_launches[r].resize(launched + 1);
          e.dp_launches[r].back() = {start, channel, static_cast<int64_t>(t.dp_gathers.size() - awaited)};
        }
        for (size_t b = 0; b < t.dp_buckets.size(); ++b) queue(t.dp_buckets[b], start + t.compute * ready[k][b]);
        Seconds dur = own[k];
        if (t.dp_sync && !switching) {  // ends with its own traffic, whose largest latency term it then pays
          dur = std::max(dur, channel - start) + alpha;
          alpha = Seconds(0);
        }
        if (t.kind == TaskKind::DP_REDUCE) {
          start = std::max(start, channel);  // overlapped buckets still in flight
          if (switching) start = std::max(start, reduction_ready);
          // The engine pays the largest latency term of the all-reduces in flight once they end.
          if (t.dp_bytes.total() > 0) alpha = std::max(alpha, comm.dp_latency(t.rank, t.dp_bytes));
          // The final reduction, with the buckets held for the circuits, launched together.
          const Seconds route =
              std::max(std::exchange(held_route[r], Seconds(0)), comm.dp_route_latency(t.rank, t.dp_bytes));
          const Seconds carried = route + std::exchange(held[r], Seconds(0)) + comm.dp_transfer(t.rank, t.dp_bytes);
          const int64_t buffers = (t.dp_bytes.total() > 0 ? 1 : 0) + std::exchange(held_buckets[r], 0);
          if (buffers > 0) e.dp_launches[r].push_back({start, start + carried, buffers});
          dur += carried + alpha;
          alpha = Seconds(0);
        }
        finish[i] = start + dur;
        if (i == 0) first_start[r] = start;
        e.step = std::max(e.step, finish[i] - (p.overlaps_steps ? first_start[r] : Seconds(0)));
        ++done;
      }
    }
    SIM_ASSERT(done > 0, "every rank waits on an input that never comes");
    left -= done;
  }
  return e;
}

}  // namespace

Estimate estimate_step(const StepProgram& p, const CommCosts& comm) {
  const Seconds reconfig = comm.reconfiguration();
  Seconds last_crossing;
  Estimate e = sweep(p, comm, reconfig, Seconds(0), last_crossing);
  if (reconfig.value <= 0) return e;
  // The reductions wait for the reduction's circuits: dark from the last crossing's arrival on.
  // Nothing a reduction does moves a pipeline transfer, so the second sweep's crossings are the first's.
  Seconds unused;
  return sweep(p, comm, reconfig, last_crossing + reconfig, unused);
}

}  // namespace sim
