// A step's lower bound from its tasks' prices alone, by which the planner and search prune.
#pragma once

#include <cstdint>

#include "sim/core/units.hpp"

namespace sim {

struct Scenario;
struct StageLayout;
class ComputeModel;
class CommCosts;

// A lower bound on the step time the closed-form estimate (sim/plan/estimate.hpp) gives the step program
// that build_step_program would build, from the tasks' prices alone (no program). With T(r,c) a task's time
// as the estimate counts it (compute plus exposed TP/CP collectives): every pipeline rank r runs
// its 2 x m x v tasks one after another; its first task (chunk 0's forward of microbatch 0) waits
// for that forward on every earlier rank and each transfer between them; and after its last task
// (chunk 0's backward of the last microbatch, in every schedule here) that backward still runs on
// every earlier rank, transfers included: step >= max_r [sum_{j<r} (F(j,0) + p2p) + m sum_c
// (F(r,c) + B(r,c)) + sum_{j<r} (B(j,0) + p2p)]; bucket waits, the gradient reduction and the
// optimizer left out. For 1F1B on equal stages and free transfers it is (m + pp - 1)(F + B), the
// classic bubble (Narayanan et al. 2021 §2.2). A schedule that splits the backward counts its
// weight-gradient tasks in the sum; one whose ranks start their next step as they end
// (StepProgram::overlaps_steps) is bounded by the sum alone: step >= max_r m sum_c (F + B + W).
// The planner and search skip building the programs of candidates whose bound cannot beat what
// they have.
Seconds step_lower_bound(const Scenario& s, const StageLayout& layout, int64_t micro_batch, const ComputeModel& cm,
                         const CommCosts& comm);

}  // namespace sim
