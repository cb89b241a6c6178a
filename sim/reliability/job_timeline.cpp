#include "sim/reliability/job_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace sim::reliability {
namespace {

enum class Phase { DETECTION, RESTART, RELOAD, PLANNED };

bool hardware(FailureScope s) { return s != FailureScope::JOB; }

// The state of one trial's loop; t is the wall-clock now.
struct Timeline {
  const JobParams& job;
  FailureProcess& failures;
  double stop_time;
  TrialResult r;
  FailureEvent next_failure;
  double t = 0;
  // Compute kept so far, and where the last storage and in-memory checkpoints left it.
  double progress = 0, saved_storage = 0, saved_memory = 0;
  int64_t memory_since_storage = 0;  // completed in-memory checkpoints since the last storage one
  // The current recovery episode.
  double reload_length = 0;
  bool fell_back = false;             // IN_MEMORY: this episode lost a whole replica group
  bool job_failed = false;            // a JOB-scope failure in this episode
  int64_t hardware_failed = 0;        // GPU/NODE/NETWORK failures in this episode
  int64_t spares_pending = 0;         // of those, not yet given a spare
  std::vector<int64_t> failed_nodes;  // IN_MEMORY: nodes hit in this episode
  int64_t pool = 0;                   // SPARES: spares ready
  std::vector<double> returns;        // SPARES: repair completions, a min-heap

  Timeline(const JobParams& j, FailureProcess& f, double stop)
      : job(j), failures(f), stop_time(stop), next_failure(f.next()), pool(j.spares) {}

  Seconds& bucket(Phase p) {
    switch (p) {
      case Phase::DETECTION: return r.lost.detection;
      case Phase::RESTART: return r.lost.restart;
      case Phase::RELOAD: return r.lost.reload;
      case Phase::PLANNED: return r.lost.planned;
    }
    return r.lost.planned;
  }

  // Rolls the job back to `to`, the lost compute counted as lost work.
  void roll_back(double to) {
    if (progress > to) r.lost.lost_work += Seconds(progress - to);
    progress = to;
  }

  void fall_back_to_storage() {
    roll_back(saved_storage);
    saved_memory = saved_storage;
    memory_since_storage = 0;
    reload_length = job.reload.value;
    fell_back = true;
  }

  // The failure at next_failure happens now; `first` when it stops the running job (or a planned
  // stop) and so starts an episode. Decides what is lost and what the reload costs.
  void fail(bool first) {
    const FailureEvent e = next_failure;
    t = e.time.value;
    ++r.unexpected;
    next_failure = failures.next();
    if (first) {
      job_failed = false;
      hardware_failed = 0;
      spares_pending = 0;
      failed_nodes.clear();
      fell_back = false;
      reload_length = job.reload.value;
    }
    const bool hw = hardware(e.scope);
    job_failed = job_failed || !hw;
    if (hw) ++hardware_failed, ++spares_pending;
    switch (job.strategy) {
      case Strategy::CHECKPOINT_RESTART:
      case Strategy::SPARES: roll_back(saved_storage); break;
      case Strategy::IN_MEMORY_CHECKPOINT: {
        if (first) {
          roll_back(saved_memory);
          reload_length = job.memory_reload.value;
        }
        if (!hw || fell_back) break;
        if (job.replicas <= 1 || e.node < 0) {
          if (job.replicas <= 1) fall_back_to_storage();
          break;
        }
        failed_nodes.push_back(e.node);
        const int64_t group = e.node / job.replicas;
        const int64_t size = std::min(job.replicas, job.nodes - group * job.replicas);
        std::vector<int64_t> hit;
        for (int64_t n : failed_nodes)
          if (n / job.replicas == group && std::find(hit.begin(), hit.end(), n) == hit.end()) hit.push_back(n);
        if (static_cast<int64_t>(hit.size()) >= size) fall_back_to_storage();
        break;
      }
      case Strategy::JUST_IN_TIME_CHECKPOINT: {
        if (!first) break;  // already rolled back; the other replicas are assumed to survive
        if (hw && job.dp >= 2) {
          const double step = job.step_time.value;
          const double kept = step > 0 ? std::floor(progress / step + 1e-9) * step : progress;
          roll_back(std::max(saved_storage, std::min(progress, kept)));
          saved_storage = progress;  // the just-in-time checkpoint
          reload_length = job.jit_cost.value;
        } else {
          roll_back(saved_storage);
        }
        break;
      }
    }
  }

  // SPARES: the restart phase from t: the pending failed nodes take spares (waiting for repairs
  // when the pool is short), then the swap; a JOB failure in the episode needs the full restart.
  double spares_restart() {
    while (!returns.empty() && returns.front() <= t) {
      std::pop_heap(returns.begin(), returns.end(), std::greater<>());
      returns.pop_back();
      ++pool;
    }
    double ready = t;
    for (; spares_pending > 0; --spares_pending) {
      if (pool > 0) {
        --pool;
        continue;
      }
      if (returns.empty()) break;  // no pool at all (spares = 0 and nothing in repair): cannot happen
      ready = std::max(ready, returns.front());
      std::pop_heap(returns.begin(), returns.end(), std::greater<>());
      returns.pop_back();
    }
    double length = hardware_failed > 0 ? ready - t + job.swap.value : 0;
    if (job_failed) length = std::max(length, job.restart.value);
    return length;
  }

  // A hardware failure's node goes to repair (SPARES).
  void to_repair(double failed_at) {
    returns.push_back(failed_at + job.repair.value);
    std::push_heap(returns.begin(), returns.end(), std::greater<>());
  }

  // The job is down from t: a failure recovery (planned = false) or planned maintenance. Returns
  // false when the stop time comes first (t is then the stop time).
  bool down(bool planned) {
    double episode_start = t;
    bool recovering = !planned;
    if (planned) reload_length = job.reload.value;
    for (bool start_over = true; start_over;) {
      start_over = false;
      const Phase failure_phases[] = {Phase::DETECTION, Phase::RESTART, Phase::RELOAD};
      const Phase planned_phases[] = {Phase::PLANNED, Phase::RESTART, Phase::RELOAD};
      for (Phase p : planned ? planned_phases : failure_phases) {
        const double end = t + length(p, planned);
        const double f = next_failure.time.value;
        if (f < end && f < stop_time) {
          bucket(p) += Seconds(f - t);
          const bool hw = hardware(next_failure.scope);
          fail(!recovering);
          if (job.strategy == Strategy::SPARES && hw) to_repair(t);
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
        bucket(p) += Seconds(end - t);
        t = end;
      }
    }
    if (recovering) r.recoveries.push_back(Seconds(t - episode_start));
    hardware_failed = 0;
    job_failed = false;
    return true;
  }

  // The length of phase p starting at t. Called once per phase start (SPARES takes its spares here).
  double length(Phase p, bool planned) {
    switch (p) {
      case Phase::DETECTION: return job.detection.value;
      case Phase::RESTART: return job.strategy == Strategy::SPARES && !planned ? spares_restart() : job.restart.value;
      case Phase::RELOAD: return reload_length;
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
  for (double v :
       {write, job.detection.value, job.restart.value, job.reload.value, every, job.planned_duration.value,
        job.memory_write.value, job.memory_reload.value, job.jit_cost.value, job.swap.value, job.repair.value})
    if (!(v >= 0)) throw std::logic_error("run_trial: negative or NaN duration");
  if (!(tau > 0)) throw std::logic_error("run_trial: checkpoint interval must be > 0");
  const bool in_memory = job.strategy == Strategy::IN_MEMORY_CHECKPOINT;
  double memory_tau = 0;
  int64_t memory_per_storage = 1;  // in-memory checkpoints per storage one (the last is the storage one)
  if (in_memory) {
    JobParams memory = job;
    memory.interval = job.memory_interval;
    memory_tau = effective_interval(memory).value;
    if (!(memory_tau > 0) || std::isinf(memory_tau))
      throw std::logic_error("run_trial: in-memory checkpoint interval must be > 0 and finite");
    const double n = std::ceil(tau / memory_tau - 1e-9);
    memory_per_storage = std::isinf(n) || n > 9e15 ? INT64_MAX : std::max<int64_t>(1, static_cast<int64_t>(n));
  }
  if (job.strategy == Strategy::SPARES && job.spares < 0) throw std::logic_error("run_trial: spares < 0");
  double next_due = every > 0 ? every : 0;
  bool stopped = false;
  while (!(work_mode && tl.saved_storage >= stop.amount.value)) {
    // The next segment: compute, then a write at the storage or in-memory level (or none: a
    // just-in-time job without storage checkpoints runs up to the next planned stop).
    double compute;
    double w = write;
    bool storage_level = true;
    if (in_memory) {
      compute = memory_tau - (tl.progress - tl.saved_memory);
      if (tl.memory_since_storage + 1 < memory_per_storage) {
        storage_level = false;
        w = job.memory_write.value;
      }
    } else {
      compute = tau - (tl.progress - tl.saved_storage);
      if (std::isinf(tau)) {
        storage_level = false;
        w = 0;
        if (every > 0) compute = std::max(0.0, next_due - tl.t);
      }
    }
    const bool last = work_mode && stop.amount.value - tl.progress <= compute;  // the shortened last segment
    if (last) {
      compute = stop.amount.value - tl.progress;
      storage_level = true;
      w = write;
    }
    const double segment_end = tl.t + compute + w;
    if (tl.next_failure.time.value < segment_end && tl.next_failure.time.value < tl.stop_time) {
      const double elapsed = tl.next_failure.time.value - tl.t;
      tl.progress += std::min(elapsed, compute);
      if (elapsed > compute) r.lost.lost_work += Seconds(elapsed - compute);
      const bool hw = hardware(tl.next_failure.scope);
      tl.fail(true);
      if (job.strategy == Strategy::SPARES && hw) tl.to_repair(tl.t);
      if (!tl.down(false)) {
        stopped = true;
        break;
      }
      continue;
    }
    if (tl.stop_time < segment_end) {
      const double elapsed = tl.stop_time - tl.t;
      tl.progress += std::min(elapsed, compute);
      r.lost.checkpoint_writes += Seconds(std::max(0.0, elapsed - compute));
      tl.t = tl.stop_time;
      stopped = true;
      break;
    }
    tl.t = segment_end;
    tl.progress = last ? stop.amount.value : tl.progress + compute;
    r.lost.checkpoint_writes += Seconds(w);
    if (storage_level) {
      tl.saved_storage = tl.saved_memory = tl.progress;
      tl.memory_since_storage = 0;
    } else if (in_memory) {
      tl.saved_memory = tl.progress;
      ++tl.memory_since_storage;
    }
    if (every > 0 && next_due <= tl.t && tl.t < tl.stop_time && !(work_mode && tl.saved_storage >= stop.amount.value)) {
      ++r.planned;
      tl.saved_storage = tl.saved_memory = tl.progress;  // a planned stop saves the state
      tl.memory_since_storage = 0;
      const bool ok = tl.down(true);
      next_due = (std::floor(tl.t / every) + 1.0) * every;
      if (!ok) {
        stopped = true;
        break;
      }
    }
  }
  r.useful = Seconds(tl.progress);
  r.wall = Seconds(tl.t);
  r.finished = !(work_mode && stopped);
  return r;
}

}  // namespace sim::reliability
