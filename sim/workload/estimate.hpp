// The fast step-time estimate: the longest path through a pipeline's task graph, with every task
// and transfer priced by the closed forms of CommCosts (an idle network, no contention). Used to
// pick "auto" settings before the engine simulates the chosen plan, and by tests as an
// independent check of the engine.
#pragma once

#include <vector>

#include "sim/core/units.hpp"

namespace sim {

struct Scenario;
struct Pipeline;
struct Task;
class CommCosts;

struct Estimate {
  Seconds step;
  std::vector<Seconds> finish;  // per task id
};

// The TP and CP collectives inside a task, priced by their closed forms.
Seconds task_collective_time(const Pipeline& p, size_t task, const CommCosts& comm);
// The same for a task outside a graph.
Seconds collective_time(const Task& task, const CommCosts& comm);
Estimate estimate_step(const Scenario& s, const Pipeline& p, const CommCosts& comm);

}  // namespace sim
