#include "sim/reliability/job_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

namespace sim::reliability {
namespace {

constexpr double INF = std::numeric_limits<double>::infinity();

enum class Phase { DETECTION, RESTART, RELOAD, PLANNED };
enum class Ran { DONE, FAILURE, STOP };

bool hardware(FailureScope s) { return s != FailureScope::JOB; }
bool silent(const FailureEvent& e) { return e.corrupted_at.value < e.time.value; }

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
  // Storage checkpoints as (wall time the state was captured, progress), for silent corruption.
  std::vector<std::pair<double, double>> history{{0.0, 0.0}};
  // The asynchronous write in the background: ends at bg_end (+infinity: none), persisting
  // bg_progress captured at bg_captured.
  double bg_end = INF, bg_progress = 0, bg_captured = 0;
  // The current recovery episode.
  double reload_length = 0;
  bool fell_back = false;             // IN_MEMORY: this episode lost a whole replica group
  bool job_failed = false;            // a JOB-scope failure in this episode
  bool full = true;                   // CONTINUING: this episode restarts from storage
  int64_t hardware_failed = 0;        // GPU/NODE/NETWORK failures in this episode
  int64_t spares_pending = 0;         // of those, not yet given a spare
  std::vector<int64_t> failed_nodes;  // IN_MEMORY: nodes hit in this episode
  int64_t pool = 0;                   // SPARES: spares ready
  std::vector<double> returns;        // SPARES: repair completions, a min-heap
  // CONTINUING: the nodes down, their returns (time, node) in a min-heap, and a stall (a rejoin).
  std::optional<DownSet> down_set;
  std::vector<std::pair<double, int64_t>> node_returns;
  double stall_until = 0;
  bool planned_stop = false;  // the job is down for planned maintenance (a failure then restarts in full)

  Timeline(const JobParams& j, FailureProcess& f, double stop)
      : job(j), failures(f), stop_time(stop), next_failure(f.next()), pool(j.spares) {
    if (j.strategy == Strategy::CONTINUING) down_set.emplace(*j.degradation);
  }

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

  // A storage checkpoint of the state now (progress) exists.
  void saved(double captured_at, double at_progress) {
    saved_storage = saved_memory = at_progress;
    memory_since_storage = 0;
    history.emplace_back(captured_at, at_progress);
  }

  void fall_back_to_storage() {
    roll_back(saved_storage);
    saved_memory = saved_storage;
    memory_since_storage = 0;
    reload_length = job.reload.value;
    fell_back = true;
  }

  // Silent corruption since `since`: the checkpoints captured after it are bad.
  void forget_checkpoints_after(double since) {
    while (history.size() > 1 && history.back().first > since) history.pop_back();
    saved_storage = saved_memory = history.back().second;
    memory_since_storage = 0;
    if (bg_captured > since) bg_end = INF;
  }

  // CONTINUING: every node back (a restart from storage replaces them).
  void all_nodes_back() {
    down_set->clear();
    node_returns.clear();
    stall_until = 0;
  }

  // The step in flight is lost: back to the last whole step.
  void lose_step() {
    const double step = job.step_time.value;
    const double kept = step > 0 ? std::floor(progress / step + 1e-9) * step : progress;
    roll_back(std::max(saved_storage, std::min(progress, kept)));
  }

  // The failure at next_failure happens now; `first` when it stops the running job (or a planned
  // stop) and so starts an episode. Decides what is lost and what the reload costs. Returns false
  // when the failure has no effect (CONTINUING: its nodes are already down); it is then not counted.
  bool fail(bool first) {
    const FailureEvent e = next_failure;
    next_failure = failures.next();
    if (down_set) apply_returns(false);
    const bool hw = hardware(e.scope), sdc = silent(e);
    if (job.strategy == Strategy::CONTINUING && hw && !sdc && (first || !full)) {
      bool any = false;
      for (int64_t n = e.node; n < e.node + std::max<int64_t>(1, e.nodes); ++n) any = any || !down_set->is_down(n);
      if (!any) return false;
    }
    t = e.time.value;
    ++r.unexpected;
    bg_end = INF;  // the snapshot being written may have been on the failed nodes
    if (first) {
      job_failed = false;
      hardware_failed = 0;
      spares_pending = 0;
      failed_nodes.clear();
      fell_back = false;
      full = true;
      reload_length = job.reload.value;
    }
    job_failed = job_failed || !hw;
    if (hw) hardware_failed += std::max<int64_t>(1, e.nodes), spares_pending += std::max<int64_t>(1, e.nodes);
    if (sdc) forget_checkpoints_after(e.corrupted_at.value);
    switch (job.strategy) {
      case Strategy::CHECKPOINT_RESTART:
      case Strategy::SPARES: roll_back(saved_storage); break;
      case Strategy::IN_MEMORY_CHECKPOINT: {
        if (first) {
          roll_back(saved_memory);
          reload_length = sdc ? job.reload.value : job.memory_reload.value;
        }
        if (sdc && !fell_back) fall_back_to_storage();
        if (!hw || fell_back) break;
        if (job.replicas <= 1 || e.node < 0) {
          if (job.replicas <= 1) fall_back_to_storage();
          break;
        }
        for (int64_t n = e.node; n < e.node + std::max<int64_t>(1, e.nodes); ++n) failed_nodes.push_back(n);
        for (int64_t n = e.node; n < e.node + std::max<int64_t>(1, e.nodes) && !fell_back; ++n) {
          const int64_t group = n / job.replicas;
          const int64_t size = std::min(job.replicas, job.nodes - group * job.replicas);
          std::vector<int64_t> hit;
          for (int64_t m : failed_nodes)
            if (m / job.replicas == group && std::find(hit.begin(), hit.end(), m) == hit.end()) hit.push_back(m);
          if (static_cast<int64_t>(hit.size()) >= size) fall_back_to_storage();
        }
        break;
      }
      case Strategy::JUST_IN_TIME_CHECKPOINT: {
        if (!first) break;  // already rolled back; the other replicas are assumed to survive
        if (hw && !sdc && job.dp >= 2) {
          lose_step();
          saved(t, progress);  // the just-in-time checkpoint
          reload_length = job.jit_cost.value;
        } else {
          roll_back(saved_storage);
        }
        break;
      }
      case Strategy::CONTINUING: {
        if (!first && full) break;  // a restart from storage is under way: it replaces every node
        bool continues = hw && !sdc && !planned_stop;
        if (continues) {
          for (int64_t n = e.node; n < e.node + std::max<int64_t>(1, e.nodes); ++n) {
            if (down_set->is_down(n)) continue;
            down_set->add(n);
            node_returns.emplace_back(e.time.value + job.repair.value, n);
            std::push_heap(node_returns.begin(), node_returns.end(), std::greater<>());
          }
          continues = !down_set->fatal();
        }
        if (continues) {
          full = false;
          reload_length = 0;
          if (job.loses_step && !(job.warning.value > 0)) lose_step();
        } else {
          full = true;
          all_nodes_back();
          roll_back(saved_storage);
          reload_length = job.reload.value;
        }
        break;
      }
    }
    return true;
  }

  // SPARES: the restart phase from t: the pending failed nodes take spares and join in `swap`; a
  // node the pool cannot cover is found by the scheduler in `restart`, as checkpoint-restart's
  // are; a JOB failure in the episode needs the full restart too. Repaired nodes refill the pool
  // up to its size (beyond it they go back to the cluster).
  double spares_restart() {
    while (!returns.empty() && returns.front() <= t) {
      std::pop_heap(returns.begin(), returns.end(), std::greater<>());
      returns.pop_back();
      pool = std::min(pool + 1, job.spares);
    }
    bool short_of_spares = false;
    for (; spares_pending > 0; --spares_pending) {
      if (pool > 0)
        --pool;
      else
        short_of_spares = true;
    }
    double length = hardware_failed > 0 ? job.swap.value : 0;
    if (job_failed || short_of_spares) length = std::max(length, job.restart.value);
    return length;
  }

  // A hardware failure's nodes go to repair (SPARES).
  void to_repair(double failed_at, int64_t nodes) {
    for (int64_t i = 0; i < std::max<int64_t>(1, nodes); ++i) {
      returns.push_back(failed_at + job.repair.value);
      std::push_heap(returns.begin(), returns.end(), std::greater<>());
    }
  }

  // The failure at next_failure, while the job runs or is down (first: it stops the running job).
  // Returns fail()'s answer; SPARES sends the nodes to repair.
  bool take_failure(bool first) {
    const bool hw = hardware(next_failure.scope);
    const int64_t nodes = next_failure.nodes;
    if (!fail(first)) return false;
    if (job.strategy == Strategy::SPARES && hw) to_repair(t, nodes);
    return true;
  }

  // The job is down from t: a failure recovery (planned = false) or planned maintenance. Returns
  // false when the stop time comes first (t is then the stop time).
  bool down(bool planned) {
    double episode_start = t;
    bool recovering = !planned;
    planned_stop = planned;
    if (planned) reload_length = job.reload.value;
    for (bool start_over = true; start_over;) {
      start_over = false;
      const Phase failure_phases[] = {Phase::DETECTION, Phase::RESTART, Phase::RELOAD};
      const Phase planned_phases[] = {Phase::PLANNED, Phase::RESTART, Phase::RELOAD};
      for (Phase p : planned ? planned_phases : failure_phases) {
        const double end = t + length(p, planned);
        bool interrupted = false;
        while (!interrupted && next_failure.time.value < end && next_failure.time.value < stop_time) {
          bucket(p) += Seconds(next_failure.time.value - t);
          t = next_failure.time.value;
          interrupted = take_failure(!recovering);  // false: no effect, the phase goes on
        }
        if (interrupted) {
          if (!recovering) episode_start = t;
          recovering = true;
          planned = planned_stop = false;
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
    if (job.strategy == Strategy::CONTINUING && full) all_nodes_back();
    return true;
  }

  // The length of phase p starting at t. Called once per phase start (SPARES takes its spares here).
  double length(Phase p, bool planned) {
    const bool continuing = job.strategy == Strategy::CONTINUING && !full && !planned;
    switch (p) {
      case Phase::DETECTION: return continuing && job.warning.value > 0 ? 0.0 : job.detection.value;
      case Phase::RESTART:
        if (job.strategy == Strategy::SPARES && !planned) return spares_restart();
        return continuing ? std::max(0.0, job.pause.value - job.warning.value) : job.restart.value;
      case Phase::RELOAD: return reload_length;
      case Phase::PLANNED: return job.planned_duration.value;
    }
    return 0;
  }

  // CONTINUING: nodes whose repair is done by now rejoin; with `stall`, each costs `rejoin`.
  void apply_returns(bool stall) {
    while (!node_returns.empty() && node_returns.front().first <= t) {
      const auto [at, node] = node_returns.front();
      std::pop_heap(node_returns.begin(), node_returns.end(), std::greater<>());
      node_returns.pop_back();
      down_set->remove(node);
      if (stall && job.rejoin.value > 0) stall_until = std::max(stall_until, std::max(t, at) + job.rejoin.value);
    }
  }

  // Computes until progress reaches `target`, at the rate the down nodes and a background write
  // leave (a rejoin stall computes nothing). FAILURE: a failure with an effect happened at t (fail()
  // has run; the caller takes the job down); STOP: the stop time came.
  Ran compute_until(double target) {
    for (;;) {
      if (down_set) apply_returns(true);
      const bool stalled = stall_until > t;
      const double r_nodes = down_set ? down_set->rate() : 1.0;
      const double r_bg = bg_end < INF ? 1.0 - job.background_slowdown : 1.0;
      const double rate = stalled ? 0.0 : r_nodes * r_bg;
      if (!stalled && progress >= target) return Ran::DONE;
      const double reach = rate > 0 ? t + (target - progress) / rate : INF;
      double until = std::min({reach, stop_time, bg_end, stalled ? stall_until : INF});
      if (down_set && !node_returns.empty()) until = std::min(until, node_returns.front().first);
      const double f = next_failure.time.value;
      const bool failure = f < stop_time && (f < until || (f == until && until != reach));
      const double next = failure ? f : until;
      const double dt = next - t;
      if (stalled) {
        r.lost.restart += Seconds(dt);
      } else {
        progress = next == reach ? target : progress + rate * dt;
        r.lost.degraded += Seconds((1.0 - r_nodes) * dt);
        r.lost.checkpoint_writes += Seconds(r_nodes * (1.0 - r_bg) * dt);
      }
      t = next;
      if (failure) {
        if (take_failure(true)) return Ran::FAILURE;
        continue;
      }
      if (t >= stop_time) return Ran::STOP;
      if (t >= bg_end) {
        saved(bg_captured, bg_progress);
        bg_end = INF;
      }
    }
  }

  // Blocks the job for `length` (a checkpoint write or a wait), booked to `done` when it completes
  // and to `failed` up to a failure that interrupts it. As compute_until.
  Ran block(double length, Seconds& done, Seconds& failed) {
    const double start = t, end = t + length;
    while (next_failure.time.value < end && next_failure.time.value < stop_time) {
      const double f = next_failure.time.value;
      t = f;
      if (take_failure(true)) {
        failed += Seconds(f - start);
        return Ran::FAILURE;
      }
    }
    if (stop_time < end) {
      done += Seconds(stop_time - start);
      t = stop_time;
      return Ran::STOP;
    }
    done += Seconds(length);
    t = end;
    return Ran::DONE;
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
  degraded += o.degraded;
  return *this;
}

Seconds effective_interval(const JobParams& job) {
  const double step = job.step_time.value, tau = job.interval.value;
  if (step <= 0 || std::isinf(tau)) return job.interval;
  return Seconds(std::max(1.0, std::ceil(tau / step)) * step);
}

TrialResult run_trial(const JobParams& job, const Stop& stop, FailureProcess& failures) {
  const bool work_mode = stop.mode == StopMode::WORK;
  const double tau = effective_interval(job).value, write = job.write.value, every = job.planned_every.value;
  for (double v : {write, job.detection.value, job.restart.value, job.reload.value, every, job.planned_duration.value,
                   job.memory_write.value, job.memory_reload.value, job.jit_cost.value, job.swap.value,
                   job.repair.value, job.pause.value, job.rejoin.value, job.warning.value, job.snapshot.value})
    if (!(v >= 0)) throw std::logic_error("run_trial: negative or NaN duration");
  if (!(tau > 0)) throw std::logic_error("run_trial: checkpoint interval must be > 0");
  if (!(job.background_slowdown >= 0 && job.background_slowdown < 1))
    throw std::logic_error("run_trial: background slowdown outside [0, 1)");
  if (job.strategy == Strategy::CONTINUING && (job.degradation == nullptr || job.degradation->nodes != job.nodes))
    throw std::logic_error("run_trial: a continuing strategy needs the job's degradation tables");
  Timeline tl(job, failures, work_mode ? stop.wall_cap.value : stop.amount.value);
  TrialResult& r = tl.r;
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
    // A background write persisting the state since the last storage checkpoint moves the base.
    if (!in_memory && tl.bg_end < INF && !std::isinf(tau)) compute = tau - (tl.progress - tl.bg_progress);
    compute = std::max(0.0, compute);
    const bool last = work_mode && stop.amount.value - tl.progress <= compute;  // the shortened last segment
    if (last) {
      compute = stop.amount.value - tl.progress;
      storage_level = true;
      w = write;
    }
    const bool async = job.async && storage_level && !last;
    if (async) w = job.snapshot.value;
    Ran ran = std::isinf(compute) ? tl.compute_until(INF) : tl.compute_until(tl.progress + compute);
    // An asynchronous snapshot waits for the previous background write.
    if (ran == Ran::DONE && async && tl.bg_end < INF) {
      const double wait = tl.bg_end - tl.t;
      ran = tl.block(wait, r.lost.checkpoint_writes, r.lost.checkpoint_writes);
      if (ran == Ran::DONE) {
        tl.saved(tl.bg_captured, tl.bg_progress);
        tl.bg_end = INF;
      }
    }
    const double write_start = tl.t;
    if (ran == Ran::DONE) ran = tl.block(w, r.lost.checkpoint_writes, r.lost.lost_work);
    if (ran == Ran::FAILURE) {
      if (!tl.down(false)) {
        stopped = true;
        break;
      }
      continue;
    }
    if (ran == Ran::STOP) {
      stopped = true;
      break;
    }
    if (last) tl.progress = stop.amount.value;
    if (storage_level) {
      if (async) {
        tl.bg_end = tl.t + write;
        tl.bg_progress = tl.progress;
        tl.bg_captured = write_start;
      } else {
        tl.bg_end = INF;  // a blocking checkpoint supersedes a write in the background
        tl.saved(write_start, tl.progress);
      }
    } else if (in_memory) {
      tl.saved_memory = tl.progress;
      ++tl.memory_since_storage;
    }
    if (every > 0 && next_due <= tl.t && tl.t < tl.stop_time && !(work_mode && tl.saved_storage >= stop.amount.value)) {
      ++r.planned;
      tl.bg_end = INF;
      tl.saved(tl.t, tl.progress);  // a planned stop saves the state
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
