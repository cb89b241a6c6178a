// The task graph of one training step for the rank classes of a plan: one class per pipeline
// rank (all tp x dp x cp ranks of a pipeline rank do identical work at equivalent positions).
//
// Vertices are tasks (a chunk's forward or backward for one microbatch, the exchange of the tied
// word-embedding gradients between the first and last pipeline ranks, the data-parallel gradient
// reduction, the optimizer step); edges are PROGRAM order on one rank and DATA
// dependencies between ranks (activations forward, gradients backward), which carry the bytes a
// GPU sends. `program[r]` lists rank r's tasks in execution order, as the schedule (GPipe, 1F1B,
// interleaved 1F1B of Narayanan et al. 2021 §2.2) issues them.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/workload/step_program.hpp"
#include "sim/workload/task.hpp"

namespace sim {

struct Scenario;
struct StageLayout;
class ComputeModel;

enum class EdgeKind { PROGRAM, DATA };
struct Dependency {
  EdgeKind kind = EdgeKind::PROGRAM;
  Bytes bytes;  // DATA: what each GPU of the sending rank sends to its peer
};

using TaskGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Task, Dependency>;
using TaskId = TaskGraph::vertex_descriptor;

struct Pipeline {
  TaskGraph graph;
  std::vector<std::vector<TaskId>> program;  // per pipeline rank, in issue order
  int64_t microbatches = 0;
  int64_t micro_batch = 0;
  int64_t virtual_stages = 1;
  // What the graph was built from: program[r][i] is the task of steps.ranks[r][i].
  StepProgram steps;
};

// Builds the step's task graph; `micro_batch` and the layout's virtual stages are resolved values.
Pipeline build_pipeline(const Scenario& s, const StageLayout& layout, int64_t micro_batch, const ComputeModel& cm);
// The graph of a step program: its slots as vertices, numbered rank by rank (the end-of-step tasks
// last), with the program's order and data inputs as edges.
Pipeline build_pipeline(StepProgram steps);

// Bytes of the activation (or its gradient) one GPU sends between adjacent stages per microbatch:
// b*s*h*2, divided by tp (Megatron's scatter/gather optimisation, or sequence parallelism).
Bytes p2p_bytes(const Scenario& s, int64_t micro_batch);

// The buffers each of the `pp` pipeline ranks reduces over data parallel: its gradient buckets and
// its reduction buffers, zeros left out.
std::vector<std::vector<GradBucket>> dp_buffers(const StepProgram& p);

}  // namespace sim
