// Engine-internal bookkeeping of a failure inside the step (engine.hpp, "Faults"): which
// operations the failed GPU or NIC blocks once it is gone, and when the last rank that is still
// alive blocked for good. No SimGrid here: times are the simulated clock in seconds. A rank actor
// stands for one GPU at full fidelity and for its whole rank class (every tp, cp and dp index of
// its pipeline rank) when folded: an operation of a folded class needs the failed component when
// any member's does.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/cost/collective.hpp"
#include "sim/scenario/plan.hpp"
#include "sim/scenario/step_faults.hpp"
#include "sim/topology/placement.hpp"

namespace sim {

class FailureWatch {
 public:
  FailureWatch(const Placement& place, const ParallelPlan& plan, bool full_fidelity,
               std::optional<StepFaultEvent> failure)
      : place_(place), plan_(plan), full_fidelity_(full_fidelity), failure_(failure) {}

  bool armed() const { return failure_.has_value(); }
  // The component is gone from `now` on.
  void fail(double now) { failed_at_ = now; }
  std::optional<double> failed_at() const { return failed_at_; }

  // Whether a collective or transfer among `gpus` needs the failed component: the GPU is one of
  // them, or the NIC is one of theirs and the operation leaves their NVLink domain. False before
  // the failure.
  bool touches(const std::vector<int64_t>& gpus) const;
  // Whether the transfer between actor `me` and pipeline rank `peer_pp` (either way) needs it.
  bool transfer_blocked(const RankCoord& me, int64_t peer_pp) const;
  // Whether a tensor- or context-parallel collective of actor `me` needs it.
  bool collective_blocked(const RankCoord& me, CommGroup group) const;

  // One record per rank actor: an actor is "blocked" from the start of an operation that may never
  // end (a receive, a collective, the gradient reduction) until it ends; block() keeps the
  // earlier start when the actor is already blocked.
  int add_actor();
  void block(int actor, double now);
  void unblock(int actor) { actors_[static_cast<size_t>(actor)].blocked_since = -1; }
  void finish(int actor) { actors_[static_cast<size_t>(actor)].done = true; }

  // When the job stalled: the latest time an unfinished actor blocked, and never before the
  // failure (an actor killed with its GPU counts from the failure). Nullopt when every actor
  // finished its program.
  std::optional<double> stalled_at() const;

 private:
  struct ActorState {
    double blocked_since = -1;
    bool done = false;
  };
  std::vector<RankCoord> members(const RankCoord& me) const;  // the GPUs actor `me` stands for

  const Placement& place_;
  const ParallelPlan& plan_;
  bool full_fidelity_;
  std::optional<StepFaultEvent> failure_;
  std::optional<double> failed_at_;
  std::vector<ActorState> actors_;
};

}  // namespace sim
