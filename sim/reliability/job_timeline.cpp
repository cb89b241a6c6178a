#include "sim/reliability/job_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sim::reliability {
namespace {

enum class Phase { DETECTION, RESTART, RELOAD, PLANNED };

// The state of one trial's loop; t is the wall-clock now.
struct Timeline {
  const JobParams& job;
  FailureProcess& failures;
  double stop_time;
  TrialResult r;
  FailureEvent next_failure;
  double t = 0;

  Timeline(const JobParams& j, FailureProcess& f, double stop)
      : job(j), failures(f), stop_time(stop), next_failure(f.next()) {}

  Seconds& bucket(Phase p) {
    switch (p) {
      case Phase::DETECTION: return r.lost.detection;
      case Phase::RESTART: return r.lost.restart;
      case Phase::RELOAD: return r.lost.reload;
      case Phase::PLANNED: return r.lost.planned;
    }
    return r.lost.planned;
  }

  // The failure at next_failure happens now.
  void fail() {
    t = next_failure.time.value;
    ++r.unexpected;
    next_failure = failures.next();
  }

  // The job is down from t: a failure recovery (planned = false) or planned maintenance. Returns
  // false when the stop time comes first (t is then the stop time).
  bool down(bool planned) {
    double episode_start = t;
    bool recovering = !planned;
    for (bool start_over = true; start_over;) {
      start_over = false;
      const Phase failure_phases[] = {Phase::DETECTION, Phase::RESTART, Phase::RELOAD};
      const Phase planned_phases[] = {Phase::PLANNED, Phase::RESTART, Phase::RELOAD};
      for (Phase p : planned ? planned_phases : failure_phases) {
        const double end = t + length(p);
        const double f = next_failure.time.value;
        if (f < end && f < stop_time) {
          bucket(p) += Seconds(f - t);
          fail();
          if (!recovering) episode_start = t;
          recovering = true;
          planned = false;
          start_over = true;
          break;
        }
        if (stop_time < end) {
          bucket(p) += Seconds(stop_time - t);
          t = stop_time;
          return false;
        }
        bucket(p) += Seconds(length(p));
        t = end;
      }
    }
    if (recovering) r.recoveries.push_back(Seconds(t - episode_start));
    return true;
  }

  double length(Phase p) const {
    switch (p) {
      case Phase::DETECTION: return job.detection.value;
      case Phase::RESTART: return job.restart.value;
      case Phase::RELOAD: return job.reload.value;
      case Phase::PLANNED: return job.planned_duration.value;
    }
    return 0;
  }
};

}  // namespace

TimeLost& TimeLost::operator+=(const TimeLost& o) {
  detection += o.detection;
  restart += o.restart;
  reload += o.reload;
  lost_work += o.lost_work;
  checkpoint_writes += o.checkpoint_writes;
  planned += o.planned;
  return *this;
}

Seconds effective_interval(const JobParams& job) {
  const double step = job.step_time.value, tau = job.interval.value;
  if (step <= 0 || std::isinf(tau)) return job.interval;
  return Seconds(std::max(1.0, std::ceil(tau / step)) * step);
}

TrialResult run_trial(const JobParams& job, const Stop& stop, FailureProcess& failures) {
  const bool work_mode = stop.mode == StopMode::WORK;
  Timeline tl(job, failures, work_mode ? stop.wall_cap.value : stop.amount.value);
  TrialResult& r = tl.r;
  const double tau = effective_interval(job).value, write = job.write.value, every = job.planned_every.value;
  for (double v : {write, job.detection.value, job.restart.value, job.reload.value, every, job.planned_duration.value})
    if (!(v >= 0)) throw std::logic_error("run_trial: negative or NaN duration");
  if (!(tau > 0)) throw std::logic_error("run_trial: checkpoint interval must be > 0");
  double committed = 0;  // compute saved by completed checkpoints
  double next_due = every > 0 ? every : 0;
  bool stopped = false;
  while (!(work_mode && committed >= stop.amount.value)) {
    const bool last = work_mode && stop.amount.value - committed <= tau;  // the shortened last segment
    const double compute = last ? stop.amount.value - committed : tau;
    const double segment_end = tl.t + compute + write;
    if (tl.next_failure.time.value < segment_end && tl.next_failure.time.value < tl.stop_time) {
      r.lost.lost_work += tl.next_failure.time - Seconds(tl.t);
      tl.fail();
      if (!tl.down(false)) {
        stopped = true;
        break;
      }
      continue;
    }
    if (tl.stop_time < segment_end) {
      const double elapsed = tl.stop_time - tl.t;
      r.useful += Seconds(std::min(elapsed, compute));
      r.lost.checkpoint_writes += Seconds(std::max(0.0, elapsed - compute));
      tl.t = tl.stop_time;
      stopped = true;
      break;
    }
    tl.t = segment_end;
    committed = last ? stop.amount.value : committed + compute;
    r.useful += Seconds(compute);
    r.lost.checkpoint_writes += Seconds(write);
    if (every > 0 && next_due <= tl.t && tl.t < tl.stop_time && !(work_mode && committed >= stop.amount.value)) {
      ++r.planned;
      const bool ok = tl.down(true);
      next_due = (std::floor(tl.t / every) + 1.0) * every;
      if (!ok) {
        stopped = true;
        break;
      }
    }
  }
  r.wall = Seconds(tl.t);
  r.finished = !(work_mode && stopped);
  return r;
}

}  // namespace sim::reliability
