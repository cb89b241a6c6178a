// A run's long-horizon reliability: the scenario's failures and recovery (sim/scenario/
// reliability_spec.hpp) over the step time the step simulator found, through the Monte Carlo job
// timeline of sim/reliability. This is where the step simulator's numbers (step time, tokens/s)
// meet the checkpoint's size and the cluster's storage (write and reload times) and Daly's
// interval; the report only writes the result.
#pragma once

#include <optional>
#include <string>

#include "sim/core/units.hpp"
#include "sim/reliability/monte_carlo.hpp"

namespace sim {

struct Scenario;
struct RunResult;
struct EngineOptions;
struct MemoryEstimate;

struct JobReliability {
  std::string strategy;                   // recovery.kind as written ("checkpoint-restart")
  reliability::MonteCarloResult horizon;  // over failures.horizon: ETTR, interruptions, recoveries
  Bytes checkpoint_bytes;                 // checkpoint_bytes() of the model (14 B/param)
  Seconds checkpoint_write, reload;       // given, or checkpoint_bytes / cluster.storage_bandwidth
  bool interval_auto = false;             // the interval is Daly's (Eq. 37)
  Seconds interval;                       // the storage checkpoint interval given to the timeline
                                          // (before rounding to steps; +infinity: none)
  Seconds horizon_s;
  int64_t trials = 0;
  // With training.tokens: the days to train, failure-free and as simulated with failures (the
  // mean over the trials of the time to checkpoint that much work).
  std::optional<double> train_days_failure_free;
  std::optional<reliability::Stat> train_days;
  // Trials whose job had not finished after 10x the failure-free time (ETTR under 10 %): their
  // time to train is that cap, so train_days is then a lower bound.
  int64_t unfinished_trials = 0;
  // Asynchronous checkpoints: the blocking snapshot and the step's slowdown during the write.
  std::optional<Seconds> snapshot;
  std::optional<double> background_slowdown;
  // Continuing strategies (reconfigure, redundant, reroute, swarm).
  struct Continuing {
    Seconds step;          // the strategy's failure-free step (redundant: slower than the plan's)
    double one_down_rate;  // throughput with one node down, over the failure-free one
    Seconds pause;         // the stop after detection (and at each rejoin)
  };
  std::optional<Continuing> continuing;
};

// The mean time between the failures a just-in-time checkpoint cannot cover: JOB-scope ones when
// dp >= 2 (from the components' rates), every failure when dp = 1 or the law is a trace;
// +infinity when there are none.
Seconds uncovered_mttf(const FailureSpec& f, int64_t nodes, int64_t dp);

// The checks simulate_job_reliability makes before any trial, on a step of `step` (the planner's
// estimate when nothing is simulated yet: run.hpp, check_run): the node limit, whether the plan
// suits a continuing strategy and its degraded plans pass the run's checks (degraded_plans.hpp,
// check_continuing), and whether the trials fit the run's time
// budget (opt: --max-wall). `s` is resolved and has failures; InputErrors. Returns the estimated
// wall time on the development machine of the trials (their events at its measured pace) and of
// the degraded plans check_continuing checks.
Seconds check_job_reliability(const Scenario& s, Seconds step, const MemoryEstimate& memory, const EngineOptions& opt);

// `healthy`: the run of the scenario (resolved plan, step time, tokens/s); degraded plans of the
// continuing strategies are simulated with `opt` (sim/run/degraded_plans.hpp). nodes: at most
// 2^17 (one failure stream per node for Weibull laws); an InputError beyond. opt.trial_progress
// hears (trials done, trials in all), the time-to-train trials after the horizon's.
JobReliability simulate_job_reliability(const RunResult& healthy, const EngineOptions& opt);

}  // namespace sim
