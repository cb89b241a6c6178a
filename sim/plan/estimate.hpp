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
  // Per pipeline rank, each gradient-reduction launch (an overlapped bucket, or the DP_REDUCE
  // task's own buffer) in program order: when it starts and when the rank's data-parallel channel
  // has carried it (with an optical circuit switch, held buckets go with the DP_REDUCE's buffer).
  // The run-time estimate counts the flows in flight from these.
  struct Launch {
    Seconds start, end;
    int64_t buffers = 1;  // all-reduces launched together: the task's buffer and the buckets held for it
  };
  std::vector<std::vector<Launch>> dp_launches;
};

// The TP and CP collectives inside a task, priced by their closed forms.
Seconds collective_time(const Task& task, const CommCosts& comm);
Estimate estimate_step(const StepProgram& p, const CommCosts& comm);
// Of the program the graph was built from.
Estimate estimate_step(const Scenario& s, const Pipeline& p, const CommCosts& comm);

}  // namespace sim
