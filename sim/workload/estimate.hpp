// The fast step-time estimate: the longest path through a step's programs (step_program.hpp),
// with every task and transfer priced by the closed forms of CommCosts (an idle network, no
// contention). Used to pick "auto" settings before the engine simulates the chosen plan, and by
// tests as an independent check of the engine.
#pragma once

#include <vector>

#include "sim/core/units.hpp"

namespace sim {

struct Scenario;
struct Pipeline;
struct StepProgram;
struct Task;
class CommCosts;

struct Estimate {
  Seconds step;
  // Per pipeline rank, when each slot of its program ends (StepProgram::ranks, Pipeline::program).
  std::vector<std::vector<Seconds>> finish;
};

// The TP and CP collectives inside a task, priced by their closed forms.
Seconds collective_time(const Task& task, const CommCosts& comm);
Estimate estimate_step(const StepProgram& p, const CommCosts& comm);
// Of the program the graph was built from.
Estimate estimate_step(const Scenario& s, const Pipeline& p, const CommCosts& comm);

}  // namespace sim
