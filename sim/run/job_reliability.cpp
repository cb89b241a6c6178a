#include "sim/run/job_reliability.hpp"

#include <cmath>
#include <limits>

#include "sim/core/error.hpp"
#include "sim/reliability/closed_forms.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"

namespace sim {

Seconds uncovered_mttf(const FailureSpec& f, int64_t nodes, int64_t dp) {
  if (dp < 2 || f.law == FailureLaw::TRACE) return reliability::job_mttf(f, nodes);
  double job_rate = 0;
  for (const auto& c : f.components)
    if (c.scope == FailureScope::JOB) job_rate += c.per_node_day;
  if (!(job_rate > 0)) return Seconds(std::numeric_limits<double>::infinity());
  // Components' rates are shares of the node rate (also under Weibull: the mean rate).
  return Seconds(reliability::job_mttf(f, nodes).value * f.per_node_day / job_rate);
}

JobReliability simulate_job_reliability(const Scenario& s, double step_time_s, double tokens_per_s,
                                        const reliability::Progress& progress) {
  SIM_ASSERT(s.reliability.has_value(), "no failures configured");
  const FailureSpec& f = s.reliability->failures;
  const RecoverySpec& rec = s.reliability->recovery;
  const int64_t nodes = s.cluster.nodes();
  if (nodes > MAX_RELIABILITY_NODES)
    throw InputError(s.file, "/failures",
                     std::to_string(nodes) + " nodes are more than the reliability simulation's limit of " +
                         std::to_string(MAX_RELIABILITY_NODES),
                     "a cluster of at most 131072 nodes");
  if (!rec.blocking)
    throw InputError(s.file, "/recovery/blocking", "asynchronous checkpoints are not implemented in this version",
                     "true (blocking checkpoint writes)");
  JobReliability r;
  r.strategy = to_string(rec.kind);
  r.checkpoint_bytes = checkpoint_bytes(s);
  const Seconds transfer(r.checkpoint_bytes.value / s.cluster.storage_bandwidth.value);
  r.checkpoint_write = rec.checkpoint_write.value_or(transfer);
  r.reload = rec.reload.value_or(transfer);
  r.interval_auto = !rec.checkpoint_interval.has_value();
  r.horizon_s = f.horizon;
  r.trials = f.trials;

  reliability::JobParams job;
  job.nodes = nodes;
  job.step_time = Seconds(step_time_s);
  job.interval = rec.checkpoint_interval.value_or(reliability::auto_interval(f, nodes, r.checkpoint_write));
  switch (rec.kind) {
    case RecoveryKind::CHECKPOINT_RESTART: break;
    case RecoveryKind::IN_MEMORY_CHECKPOINT: {
      job.strategy = reliability::Strategy::IN_MEMORY_CHECKPOINT;
      SIM_ASSERT(rec.replicas <= nodes, "the scenario parser checks replicas against the nodes");
      job.replicas = rec.replicas;
      job.memory_interval = rec.memory_interval.value_or(Seconds(step_time_s));
      job.memory_write = rec.memory_write;
      // A replacement node receives its shard from a peer over its NICs.
      const double node_bw = double(s.cluster.scale_out.nics_per_node) * s.cluster.scale_out.nic_bandwidth.value;
      job.memory_reload = rec.memory_reload.value_or(Seconds(r.checkpoint_bytes.value / double(nodes) / node_bw));
      break;
    }
    case RecoveryKind::JUST_IN_TIME_CHECKPOINT: {
      job.strategy = reliability::Strategy::JUST_IN_TIME_CHECKPOINT;
      job.dp = s.plan.dp;
      job.jit_cost = rec.jit_cost;
      if (!rec.checkpoint_interval)
        job.interval = reliability::daly_interval(r.checkpoint_write, uncovered_mttf(f, nodes, job.dp));
      break;
    }
    case RecoveryKind::SPARES: {
      job.strategy = reliability::Strategy::SPARES;
      job.spares = spare_pool(rec, nodes);
      SIM_ASSERT(job.spares <= nodes, "the scenario parser checks the pool against the nodes");
      job.swap = rec.swap;
      job.repair = rec.repair;
      break;
    }
  }
  r.interval = job.interval;
  job.write = r.checkpoint_write;
  job.detection = rec.detection;
  job.restart = rec.restart;
  job.reload = r.reload;
  job.planned_every = f.planned_every;
  job.planned_duration = f.planned_duration;
  const uint64_t seed = s.seed;
  reliability::Stop horizon;
  horizon.mode = reliability::StopMode::HORIZON;
  horizon.amount = f.horizon;
  const int64_t phases = s.training.tokens ? 2 : 1;
  const auto phase = [&](int64_t k) -> reliability::Progress {
    if (!progress) return {};
    return [&progress, k, phases](int64_t done, int64_t total) { progress(k * total + done, phases * total); };
  };
  r.horizon = reliability::run_monte_carlo(f, job, horizon, f.trials, seed, phase(0));
  if (s.training.tokens) {
    const double compute_s = double(*s.training.tokens) / tokens_per_s;
    r.train_days_failure_free = compute_s / 86400;
    reliability::Stop work_stop;
    work_stop.mode = reliability::StopMode::WORK;
    work_stop.amount = Seconds(compute_s);
    const auto work = reliability::run_monte_carlo(f, job, work_stop, f.trials, seed, phase(1));
    r.train_days = reliability::Stat{work.wall.mean / 86400, work.wall.p50 / 86400, work.wall.p99 / 86400};
  }
  return r;
}

}  // namespace sim
