#include "sim/run/job_reliability.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/error.hpp"
#include "sim/reliability/closed_forms.hpp"
#include "sim/run/degraded_plans.hpp"
#include "sim/run/run.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"

namespace sim {
namespace {

// A continuing strategy's stop after detection, and a rejoin, when "auto": re-initialising the
// process groups around the new membership, 20 s (TrainMover's ~20 s migration, a
// secondary source, unverified); reconfigure also copies a node's share of the state from a surviving replica
// over the node's NICs. SWARM rewires its next micro-batches at once (no stop).
constexpr double REINIT_S = 20;
// Asynchronous checkpoints: staging to host memory at 0.68 GB/s per GPU, Meta and Crusoe's PyTorch
// DCP measurement (PyTorch blog, Meta and Crusoe, 2025: Llama3-70B on 1,856 H200, GPU blocked 0.78 s; 70e9 ·
// 14 B / 1,856 GPUs / 0.78 s).
constexpr double STAGING_BYTES_PER_S = 70e9 * 14 / 1856 / 0.78;
constexpr double MAX_AUTO_SLOWDOWN = 0.5;
// The Monte Carlo's pace on the 2-core development machine, at 97e8994 with jemalloc: 100 trials
// less 5 (the step's own time cancels) of the Llama 3 config at 0.05 and 0.5 failures per
// node-day (241,000 and 3.3 million events per trial: 0.48 s and 5.97 s, 20 and 18 ns an event)
// and of its in-memory checkpoint at every step (2.36 million, mostly checkpoints: 2.0 s for 45
// trials, 19 ns): 5e7 events/s, failures and checkpoints alike. It was 5e6, a third of an older
// measurement, which put that in-memory run at 47 s for 2.4 s measured.
constexpr double EVENTS_PER_S = 5e7;
// A time-to-train trial that has not finished after this many times the failure-free time is
// stopped (its job barely progresses: ETTR under 10 %) and reported as unfinished.
constexpr double WORK_CAP_FACTOR = 10;

// Events per second of simulated wall time: failures (and CONTINUING's returns), segment ends
// (storage and in-memory checkpoints), planned stops.
double event_rate(const FailureSpec& f, const reliability::JobParams& job, int64_t nodes) {
  const double failures = f.law == FailureLaw::TRACE ? double(f.trace.size()) / std::max(1.0, f.horizon.value)
                                                     : double(nodes) * f.per_node_day / 86400.0;
  double rate = failures * (job.strategy == reliability::Strategy::CONTINUING ? 2.0 : 1.0);
  const double tau = reliability::effective_interval(job).value;
  if (std::isfinite(tau) && tau > 0) rate += 1.0 / tau;
  if (job.strategy == reliability::Strategy::IN_MEMORY_CHECKPOINT) {
    const double step = std::max(job.step_time.value, 1e-3);
    rate += 1.0 / std::max(job.memory_interval.value, step);
  }
  if (job.planned_every.value > 0) rate += 1.0 / job.planned_every.value;
  return rate;
}

}  // namespace

Seconds uncovered_mttf(const FailureSpec& f, int64_t nodes, int64_t dp) {
  if (dp < 2 || f.law == FailureLaw::TRACE) return reliability::job_mttf(f, nodes);
  double job_rate = 0;
  for (const auto& c : f.components)
    if (c.scope == FailureScope::JOB || c.silent_latency.value > 0) job_rate += c.per_node_day;
  if (!(job_rate > 0)) return Seconds(std::numeric_limits<double>::infinity());
  // Components' rates are shares of the node rate (also under Weibull: the mean rate).
  return Seconds(reliability::job_mttf(f, nodes).value * f.per_node_day / job_rate);
}

namespace {

// The job the timeline simulates on a step of `step_time_s`, and the report's figures that come
// with it; for a continuing strategy, all but what its degraded plans decide (plan_continuing).
struct Setup {
  JobReliability r;
  reliability::JobParams job;
};

Setup set_up(const Scenario& s, double step_time_s) {
  const FailureSpec& f = s.reliability->failures;
  const RecoverySpec& rec = s.reliability->recovery;
  const int64_t nodes = s.cluster.nodes();
  if (nodes > MAX_RELIABILITY_NODES)
    throw InputError(s.file, s.json_path("/failures"),
                     std::to_string(nodes) + " nodes are more than the reliability simulation's limit of " +
                         std::to_string(MAX_RELIABILITY_NODES),
                     "a cluster of at most 131072 nodes");
  Setup out;
  JobReliability& r = out.r;
  reliability::JobParams& job = out.job;
  r.strategy = to_string(rec.kind);
  r.checkpoint_bytes = checkpoint_bytes(s);
  const Seconds transfer(r.checkpoint_bytes.value / s.cluster.storage_bandwidth.value);
  r.checkpoint_write = rec.checkpoint_write.value_or(transfer);
  r.reload = rec.reload.value_or(transfer);
  r.interval_auto = !rec.checkpoint_interval.has_value();
  r.horizon_s = f.horizon;
  r.trials = f.trials;

  job.nodes = nodes;
  job.step_time = Seconds(step_time_s);
  // A node's share of the state over its NICs: in-memory reloads and reconfiguration copies.
  const double node_bw = double(s.cluster.scale_out.nics_per_node) * s.cluster.scale_out.nic_bandwidth.value;
  const Seconds node_share(r.checkpoint_bytes.value / double(nodes) / node_bw);
  if (!rec.blocking) {
    job.async = true;
    job.snapshot =
        rec.snapshot.value_or(Seconds(r.checkpoint_bytes.value / double(s.cluster.gpus) / STAGING_BYTES_PER_S));
    const double write_per_node = s.cluster.storage_bandwidth.value / double(nodes);
    job.background_slowdown = rec.background_slowdown.value_or(std::min(MAX_AUTO_SLOWDOWN, write_per_node / node_bw));
    r.snapshot = job.snapshot;
    r.background_slowdown = job.background_slowdown;
  }
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
      job.memory_reload = rec.memory_reload.value_or(node_share);
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
    case RecoveryKind::SPARES:
    case RecoveryKind::REWIRE: {
      job.strategy = reliability::Strategy::SPARES;
      job.spares = spare_pool(rec, nodes);
      SIM_ASSERT(job.spares <= nodes, "the scenario parser checks the pool against the nodes");
      job.swap = rec.swap;
      job.repair = rec.repair;
      break;
    }
    case RecoveryKind::RECONFIGURE:
    case RecoveryKind::REDUNDANT:
    case RecoveryKind::REROUTE:
    case RecoveryKind::SWARM: {
      job.strategy = reliability::Strategy::CONTINUING;
      const double fixed = rec.kind == RecoveryKind::SWARM ? 0.0 : REINIT_S;
      job.pause = rec.pause.value_or(Seconds(fixed + (rec.kind == RecoveryKind::RECONFIGURE ? node_share.value : 0.0)));
      job.rejoin = job.pause;
      job.warning = rec.warning;
      job.loses_step = rec.kind == RecoveryKind::RECONFIGURE || rec.kind == RecoveryKind::REROUTE;
      job.repair = rec.repair;
      // Daly's interval against what the strategy cannot ride through (software failures, silent
      // corruption), at most the 3-h fallback: fatal combinations of hardware failures need a
      // checkpoint too.
      if (!rec.checkpoint_interval)
        job.interval =
            Seconds(std::min(FALLBACK_STORAGE_INTERVAL_S,
                             reliability::daly_interval(r.checkpoint_write, uncovered_mttf(f, nodes, 2)).value));
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
  return out;
}

// With training.tokens: the compute the time-to-train trials must checkpoint, in seconds of the
// strategy's failure-free step (redundant computation makes it longer).
std::optional<double> train_compute_s(const Scenario& s, const reliability::JobParams& job, double tokens_per_s) {
  if (!s.training.tokens) return std::nullopt;
  return double(*s.training.tokens) / tokens_per_s / job.goodput_scale;
}

// What the trials will cost, before running them: the horizon's events, and the time to train's
// (Daly's expected wall time, at most the cap); an InputError beyond the run's time budget, else
// the trials' estimated wall time.
Seconds check_trial_budget(const Scenario& s, const reliability::JobParams& job, double tokens_per_s,
                           const EngineOptions& opt) {
  const FailureSpec& f = s.reliability->failures;
  const double rate = event_rate(f, job, job.nodes);
  double events = f.horizon.value * rate;
  if (const auto compute_s = train_compute_s(s, job, tokens_per_s)) {
    const double u0 = job.detection.value + job.restart.value + job.reload.value;
    const double expected = reliability::daly_wallclock(Seconds(*compute_s), reliability::effective_interval(job),
                                                        job.write, Seconds(u0), reliability::job_mttf(f, job.nodes))
                                .value;
    const double cap = WORK_CAP_FACTOR * *compute_s;
    events += (std::isfinite(expected) ? std::min(expected, cap) : cap) * rate;
  }
  const double seconds = double(f.trials) * events / EVENTS_PER_S;
  const double limit = simulation_budget(opt).max_wall.value;
  if (seconds > limit)
    throw InputError(s.file, s.json_path("/failures/trials"),
                     fmt::format("the reliability simulation would take about {:.0f} s ({} trials of about {:.3g} "
                                 "events at {:.0e} events/s), more than the limit of {:.0f} s",
                                 seconds, f.trials, events, EVENTS_PER_S, limit),
                     "fewer trials, a shorter horizon, fewer failures, or a longer --max-wall");
  return Seconds(seconds);
}

double tokens_per_s_at(const Scenario& s, Seconds step) {
  return double(s.training.global_batch * s.training.seq_len) / step.value;
}

}  // namespace

Seconds check_job_reliability(const Scenario& s, Seconds step, const MemoryEstimate& memory, const EngineOptions& opt) {
  SIM_ASSERT(s.reliability.has_value(), "no failures configured");
  const Setup st = set_up(s, step.value);
  const Seconds degraded = is_continuing(s.reliability->recovery.kind) ? check_continuing(s, memory, opt) : Seconds(0);
  return degraded + check_trial_budget(s, st.job, tokens_per_s_at(s, step), opt);
}

JobReliability simulate_job_reliability(const RunResult& healthy, const EngineOptions& opt) {
  const Scenario& s = healthy.scenario;
  const double step_time_s = healthy.step_time_s, tokens_per_s = healthy.tokens_per_s;
  const reliability::Progress& progress = opt.trial_progress;
  SIM_ASSERT(s.reliability.has_value(), "no failures configured");
  const FailureSpec& f = s.reliability->failures;
  Setup st = set_up(s, step_time_s);
  JobReliability& r = st.r;
  reliability::JobParams& job = st.job;
  std::optional<ContinuingPlan> continuing;  // the tables job.degradation points to
  if (job.strategy == reliability::Strategy::CONTINUING) {
    continuing = plan_continuing(healthy, opt);
    job.degradation = &continuing->degradation;
    job.step_time = Seconds(continuing->step_s);
    job.goodput_scale = step_time_s / continuing->step_s;
    reliability::DownSet one(continuing->degradation);
    one.add(0);
    r.continuing = JobReliability::Continuing{Seconds(continuing->step_s), one.rate(), job.pause};
  }
  check_trial_budget(s, job, tokens_per_s, opt);
  const std::optional<double> compute_s = train_compute_s(s, job, tokens_per_s);

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
  if (compute_s) {
    r.train_days_failure_free = *compute_s / 86400;
    reliability::Stop work_stop;
    work_stop.mode = reliability::StopMode::WORK;
    work_stop.amount = Seconds(*compute_s);
    work_stop.wall_cap = Seconds(std::max(f.horizon.value, WORK_CAP_FACTOR * *compute_s));
    const auto work = reliability::run_monte_carlo(f, job, work_stop, f.trials, seed, phase(1));
    r.train_days =
        reliability::Stat{work.wall.mean / 86400, work.wall.p50 / 86400, work.wall.p99 / 86400, work.wall.p1 / 86400};
    for (const auto& row : work.rows) r.unfinished_trials += row.finished ? 0 : 1;
  }
  return r;
}

}  // namespace sim
