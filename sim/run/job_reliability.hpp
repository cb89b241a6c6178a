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
};

// The mean time between the failures a just-in-time checkpoint cannot cover: JOB-scope ones when
// dp >= 2 (from the components' rates), every failure when dp = 1 or the law is a trace;
// +infinity when there are none.
Seconds uncovered_mttf(const FailureSpec& f, int64_t nodes, int64_t dp);

// nodes: at most 2^17 (one failure stream per node for Weibull laws); an InputError beyond.
// `progress` hears (trials done, trials in all), the time-to-train trials after the horizon's.
JobReliability simulate_job_reliability(const Scenario& s, double step_time_s, double tokens_per_s,
                                        const reliability::Progress& progress = {});

}  // namespace sim
