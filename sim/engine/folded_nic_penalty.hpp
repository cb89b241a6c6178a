// Engine-internal: what a slow NIC of another class member costs a folded rank class's transfer
// (engine.hpp, "Faults"). A folded class sends on its representative's NICs, so SimGrid slows the
// class's transfer only when one of those is slow; when another member's NIC is, that member's
// transfer takes up to `factor` times longer and the class waits for it (its members meet at the
// next collective). The representative's flow then carries the slowest member pair's factor over
// the one SimGrid already applies to its own NICs, in bytes. 1 when no NIC is slow.
#pragma once

#include <cstdint>
#include <map>
#include <utility>

#include "sim/scenario/plan.hpp"
#include "sim/scenario/step_faults.hpp"
#include "sim/topology/placement.hpp"

namespace sim {

class FoldedNicPenalty {
 public:
  FoldedNicPenalty(const Placement& place, const ParallelPlan& plan, const StepFaults& faults)
      : place_(place), plan_(plan), faults_(faults) {}

  // For the transfer from pipeline rank `from_pp` to `to_pp` (every member pair (tp, cp, dp)).
  double operator()(int64_t from_pp, int64_t to_pp);

 private:
  double factor(int64_t a, int64_t b) const;  // of the NICs a transfer from GPU a to GPU b crosses

  const Placement& place_;
  const ParallelPlan& plan_;
  const StepFaults& faults_;
  std::map<std::pair<int64_t, int64_t>, double> cache_;
};

}  // namespace sim
