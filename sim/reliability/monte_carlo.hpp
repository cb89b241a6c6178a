// Monte Carlo over trials of the job timeline (job_timeline.hpp), and the `auto` checkpoint
// interval.
//
// Trial i draws its failures from make_stream(trial_seed(seed, i), "failures"), so a trial's result
// depends only on the seed and its index, not on the order trials run in. Percentiles are linear
// interpolations between order statistics (p = q · (n − 1), Hyndman–Fan type 7).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <vector>

#include "sim/reliability/job_timeline.hpp"
#include "sim/scenario/reliability_spec.hpp"

namespace sim::reliability {

// Daly's Eq. 37 interval (closed_forms.hpp) from M = job_mttf(spec, nodes) and the write time.
Seconds auto_interval(const FailureSpec& spec, int64_t nodes, Seconds write);

uint64_t trial_seed(uint64_t seed, int64_t trial);

// p1 and p99 are the two tails: which is the pessimistic one depends on the quantity (ETTR's p1,
// time to train's p99).
struct Stat {
  double mean = 0, p50 = 0, p99 = 0, p1 = 0;  // p1 last: Stat{mean, p50, p99, p1}
};
Stat stat_of(std::vector<double> values);  // all zero when empty

// One CSV row per trial.
struct TrialRow {
  int64_t trial = 0;
  Seconds wall, useful;
  bool finished = true;
  int64_t unexpected = 0, planned = 0;
  std::optional<Seconds> mean_recovery;  // none when no recovery of the trial finished
  TimeLost lost;
};

struct MonteCarloResult {
  Seconds interval;    // the checkpoint interval the trials used (effective_interval)
  Seconds mttf;        // total wall time / total unexpected failures; +infinity when none
  Stat ettr;           // time training (useful + degraded) / wall per trial
  Stat goodput;        // useful / wall × JobParams::goodput_scale: tokens trained over what the
                       // failure-free baseline plan would train; equals ETTR without degraded
                       // running or a slower healthy plan
  Stat interruptions;  // unexpected, per trial
  Stat planned;        // planned, per trial
  Stat wall;           // seconds per trial (the time to finish in WORK mode)
  // Seconds, over every recovery of every trial (exact up to 4M recoveries, then percentiles to
  // 0.23%: monte_carlo.cpp); none when no recovery finished in any trial (no failure, or each one's
  // recovery cut short by the stop).
  std::optional<Stat> recovery;
  TimeLost lost;               // mean per trial
  std::vector<TrialRow> rows;  // in trial order
};

// Runs `trials` trials (≥ 1) of `job` against failures drawn from `spec`.
// `progress`, when set, is called after each trial with (trials done, trials) — for a progress bar;
// never per event.
using Progress = std::function<void(int64_t done, int64_t total)>;
MonteCarloResult run_monte_carlo(const FailureSpec& spec, const JobParams& job, const Stop& stop, int64_t trials,
                                 uint64_t seed, const Progress& progress = {});

// The rows as CSV with a header line; seconds with 9 significant digits; an empty mean_recovery_s
// when the trial finished no recovery.
void write_trials_csv(std::ostream& out, const std::vector<TrialRow>& rows);

}  // namespace sim::reliability
