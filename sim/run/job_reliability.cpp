#include "sim/run/job_reliability.hpp"

#include <cmath>

#include "sim/core/error.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"

namespace sim {
namespace {

// FailureProcess keeps one Weibull renewal stream per node (sim/reliability/failure_process.hpp).
constexpr int64_t MAX_NODES = int64_t{1} << 17;

}  // namespace

JobReliability simulate_job_reliability(const Scenario& s, double step_time_s, double tokens_per_s) {
  SIM_ASSERT(s.reliability.has_value(), "no failures configured");
  const FailureSpec& f = s.reliability->failures;
  const RecoverySpec& rec = s.reliability->recovery;
  const int64_t nodes = s.cluster.nodes();
  if (nodes > MAX_NODES)
    throw InputError(s.file, "/failures",
                     std::to_string(nodes) + " nodes are more than the reliability simulation's limit of " +
                         std::to_string(MAX_NODES),
                     "a cluster of at most 131072 nodes");
  if (!rec.blocking)
    throw InputError(s.file, "/recovery/blocking", "asynchronous checkpoints are not implemented in this version",
                     "true (blocking checkpoint writes)");
  JobReliability r;
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
  r.horizon = reliability::run_monte_carlo(f, job, horizon, f.trials, seed);
  if (s.training.tokens) {
    const double compute_s = double(*s.training.tokens) / tokens_per_s;
    r.train_days_failure_free = compute_s / 86400;
    reliability::Stop work_stop;
    work_stop.mode = reliability::StopMode::WORK;
    work_stop.amount = Seconds(compute_s);
    const auto work = reliability::run_monte_carlo(f, job, work_stop, f.trials, seed);
    r.train_days = reliability::Stat{work.wall.mean / 86400, work.wall.p50 / 86400, work.wall.p99 / 86400};
  }
  return r;
}

}  // namespace sim
