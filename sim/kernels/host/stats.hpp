// Summary statistics of timed repetitions, and how many repetitions to time.
//
// All times are in seconds. Percentiles use the nearest-rank definition: the p-th percentile of n
// sorted samples is the sample of 1-based rank ceil(p/100 * n) (at least 1), so every reported
// value is one that was actually measured. The median is the p50 by that rule, i.e. the lower of
// the two middle samples when n is even.
//
// The repetition budget follows triton's do_bench: estimate the time of one run, then time
// target/estimate runs, clamped to [min_reps, max_reps].
#pragma once

#include <vector>

namespace sim::kernels {

struct Stats {
  double median = 0.0;  // s
  double p10 = 0.0;     // s
  double p90 = 0.0;     // s
  int reps = 0;         // number of samples summarized
};

// The nearest-rank p-th percentile (0 < p <= 100) of samples sorted ascending. Throws
// std::invalid_argument when `sorted` is empty or p is out of range.
double nearest_rank(const std::vector<double>& sorted, double p);

// Median, p10 and p90 of the samples (any order). Throws std::invalid_argument when empty.
Stats summarize(std::vector<double> samples);

// Repetitions to time: floor(target_s / estimate_s) clamped to [min_reps, max_reps]; max_reps
// when the estimate is zero or negative (a kernel too short to time).
int rep_budget(double estimate_s, double target_s, int min_reps, int max_reps);

}  // namespace sim::kernels
