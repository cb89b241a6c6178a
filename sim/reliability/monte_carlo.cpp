#include "sim/reliability/monte_carlo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "sim/core/rng.hpp"
#include "sim/reliability/closed_forms.hpp"

namespace sim::reliability {

Seconds auto_interval(const FailureSpec& spec, int64_t nodes, Seconds write) {
  return daly_interval(write, job_mttf(spec, nodes));
}

namespace {

// The recovery durations of every trial, for their mean and percentiles: kept exactly up to
// EXACT_LIMIT values (32 MiB), then folded into a histogram of 1,000 logarithmic bins per decade
// from 1 ms to 10^9 s (relative resolution 0.23%; shorter durations share the first bin), so that
// 10^5 trials of 2^17 nodes do not hold billions of values.
class Durations {
 public:
  void add(double v) {
    sum_ += v;
    ++count_;
    if (bins_.empty()) {
      exact_.push_back(v);
      if (exact_.size() > EXACT_LIMIT) {
        bins_.assign(BINS, 0);
        for (double x : exact_) ++bins_[bin_of(x)];
        exact_ = {};
      }
    } else {
      ++bins_[bin_of(v)];
    }
  }

  std::optional<Stat> stat() {
    if (count_ == 0) return std::nullopt;
    if (bins_.empty()) return stat_of(std::move(exact_));
    Stat s;
    s.mean = sum_ / static_cast<double>(count_);
    s.p1 = quantile(0.01);
    s.p50 = quantile(0.5);
    s.p99 = quantile(0.99);
    return s;
  }

 private:
  static constexpr size_t EXACT_LIMIT = size_t{1} << 22;
  static constexpr double LOW = 1e-3;  // seconds
  static constexpr int PER_DECADE = 1000;
  static constexpr size_t BINS = 12 * PER_DECADE;

  static size_t bin_of(double v) {
    if (!(v > LOW)) return 0;
    const double b = std::floor(std::log10(v / LOW) * PER_DECADE);
    return std::min(BINS - 1, static_cast<size_t>(b));
  }
  // The value at the geometric middle of the bin holding the q-th value (nearest rank).
  double quantile(double q) const {
    const int64_t rank = static_cast<int64_t>(std::ceil(q * static_cast<double>(count_)));
    int64_t seen = 0;
    for (size_t b = 0; b < BINS; ++b) {
      seen += bins_[b];
      if (seen >= std::max<int64_t>(rank, 1))
        return b == 0 ? 0.0 : LOW * std::pow(10.0, (static_cast<double>(b) + 0.5) / PER_DECADE);
    }
    return 0.0;
  }

  std::vector<double> exact_;
  std::vector<int64_t> bins_;
  double sum_ = 0;
  int64_t count_ = 0;
};

}  // namespace

uint64_t trial_seed(uint64_t seed, int64_t trial) {
  return splitmix64(seed ^ splitmix64(static_cast<uint64_t>(trial)));
}

Stat stat_of(std::vector<double> values) {
  Stat s;
  if (values.empty()) return s;
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  std::sort(values.begin(), values.end());
  auto quantile = [&](double q) {
    const double pos = q * static_cast<double>(values.size() - 1);
    const size_t lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
  };
  s.p1 = quantile(0.01);
  s.p50 = quantile(0.5);
  s.p99 = quantile(0.99);
  return s;
}

MonteCarloResult run_monte_carlo(const FailureSpec& spec, const JobParams& job, const Stop& stop, int64_t trials,
                                 uint64_t seed, const Progress& progress) {
  if (trials < 1) throw std::logic_error("run_monte_carlo: trials < 1");
  MonteCarloResult out;
  out.interval = effective_interval(job);
  std::vector<double> ettr, goodput, interruptions, planned, wall;
  Durations recoveries;
  double total_wall = 0, total_failures = 0;
  for (int64_t i = 0; i < trials; ++i) {
    FailureProcess failures(spec, job.nodes, trial_seed(seed, i));
    const TrialResult r = run_trial(job, stop, failures);
    TrialRow row{i, r.wall, r.useful, r.finished, r.unexpected, r.planned, std::nullopt, r.lost};
    double sum = 0;
    for (Seconds d : r.recoveries) {
      recoveries.add(d.value);
      sum += d.value;
    }
    if (!r.recoveries.empty()) row.mean_recovery = Seconds(sum / static_cast<double>(r.recoveries.size()));
    ettr.push_back(r.wall.value > 0 ? (r.useful + r.lost.degraded) / r.wall : 0.0);
    goodput.push_back(r.wall.value > 0 ? r.useful / r.wall * job.goodput_scale : 0.0);
    interruptions.push_back(static_cast<double>(r.unexpected));
    planned.push_back(static_cast<double>(r.planned));
    wall.push_back(r.wall.value);
    total_wall += r.wall.value;
    total_failures += static_cast<double>(r.unexpected);
    out.lost += r.lost;
    out.rows.push_back(row);
    if (progress) progress(i + 1, trials);
  }
  const double n = static_cast<double>(trials);
  out.lost =
      TimeLost{out.lost.detection / n,         out.lost.restart / n, out.lost.reload / n,  out.lost.lost_work / n,
               out.lost.checkpoint_writes / n, out.lost.planned / n, out.lost.degraded / n};
  out.mttf = Seconds(total_failures > 0 ? total_wall / total_failures : std::numeric_limits<double>::infinity());
  out.ettr = stat_of(ettr);
  out.goodput = stat_of(std::move(goodput));
  out.interruptions = stat_of(std::move(interruptions));
  out.planned = stat_of(std::move(planned));
  out.wall = stat_of(std::move(wall));
  out.recovery = recoveries.stat();
  return out;
}

void write_trials_csv(std::ostream& out, const std::vector<TrialRow>& rows) {
  out << "trial,wall_s,useful_s,ettr,finished,unexpected,planned,mean_recovery_s,detection_s,restart_s,reload_s,"
         "lost_work_s,checkpoint_writes_s,planned_s,degraded_s\n";
  for (const auto& r : rows) {
    const double ettr = r.wall.value > 0 ? (r.useful + r.lost.degraded) / r.wall : 0.0;
    const std::string mean_recovery = r.mean_recovery ? fmt::format("{:.9g}", r.mean_recovery->value) : "";
    out << fmt::format("{},{:.9g},{:.9g},{:.9g},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g}\n",
                       r.trial, r.wall.value, r.useful.value, ettr, r.finished ? 1 : 0, r.unexpected, r.planned,
                       mean_recovery, r.lost.detection.value, r.lost.restart.value, r.lost.reload.value,
                       r.lost.lost_work.value, r.lost.checkpoint_writes.value, r.lost.planned.value,
                       r.lost.degraded.value);
  }
}

}  // namespace sim::reliability
