// A run's long-horizon reliability: the scenario's failures and recovery (sim/scenario/
// reliability_spec.hpp) over the step time the step simulator found, through the Monte Carlo job
// timeline of sim/reliability. This is where the step simulator's numbers (step time, tokens/s)
// meet the checkpoint's size and the cluster's storage (write and reload times) and Daly's
// interval; the report only writes the result.
#pragma once

#include <optional>

#include "sim/core/units.hpp"
#include "sim/reliability/monte_carlo.hpp"

namespace sim {

struct Scenario;

struct JobReliability {
  reliability::MonteCarloResult horizon;  // over failures.horizon: ETTR, interruptions, recoveries
  Bytes checkpoint_bytes;                 // checkpoint_bytes() of the model (14 B/param)
  Seconds checkpoint_write, reload;       // given, or checkpoint_bytes / cluster.storage_bandwidth
  bool interval_auto = false;             // the interval is Daly's (Eq. 37)
  Seconds horizon_s;
  int64_t trials = 0;
  // With training.tokens: the days to train, failure-free and as simulated with failures (the
  // mean over the trials of the time to checkpoint that much work).
  std::optional<double> train_days_failure_free;
  std::optional<reliability::Stat> train_days;
};

// nodes: at most 2^17 (one failure stream per node for Weibull laws); an InputError beyond.
JobReliability simulate_job_reliability(const Scenario& s, double step_time_s, double tokens_per_s);

}  // namespace sim
