// The step program (step_program.hpp) and the graph built from it: the graph holds exactly the
// program's slots, in order, with its inputs as data edges; and the estimate the planner computes
// from the program alone equals the longest path through the graph, computed here by a plain
// topological sweep (tasks weighted by their compute and collectives, the reduction by its
// all-reduce, data edges by their transfer), on quickstart's GPT 7.5B under every schedule.
#include <algorithm>
#include <boost/graph/topological_sort.hpp>
#include <catch2/catch.hpp>
#include <iterator>
#include <string>
#include <vector>

#include "sim/comm/comm_costs.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "sim/workload/step_program.hpp"

using namespace sim;

namespace {

struct Case {
  const char* schedule;
  int64_t tp, pp, dp, v, micro_batch;
};

Scenario quickstart(const Case& c) {
  return load_scenario(TRAINSIM_SOURCE_DIR "/configs/quickstart.json",
                       {{"parallelism.tp", std::to_string(c.tp)},
                        {"parallelism.pp", std::to_string(c.pp)},
                        {"parallelism.dp", std::to_string(c.dp)},
                        {"parallelism.schedule", std::string("\"") + c.schedule + "\""},
                        {"parallelism.virtual_stages", std::to_string(c.v)},
                        {"training.micro_batch", std::to_string(c.micro_batch)}});
}

const Case kCases[] = {{"gpipe", 4, 2, 2, 1, 4},       {"1f1b", 4, 2, 2, 1, 2}, {"1f1b", 2, 4, 2, 1, 4},
                       {"interleaved", 2, 4, 2, 2, 4}, {"1f1b", 8, 1, 2, 1, 8}, {"interleaved", 1, 4, 4, 4, 4},
                       {"1f1b", 4, 4, 1, 1, 1}};

}  // namespace

TEST_CASE("a step program's graph has its slots as vertices, in order, and its inputs as data edges", "[workload]") {
  for (const Case& c : kCases) {
    INFO(c.schedule << " tp " << c.tp << " pp " << c.pp << " dp " << c.dp << " v " << c.v);
    const Scenario s = quickstart(c);
    const ComputeModel cm(s.cluster.device, s.training.precision);
    const StageLayout layout = make_stage_layout(s.model, s.plan, c.v, s.file);
    const Pipeline p = build_pipeline(s, layout, c.micro_batch, cm);
    const StepProgram& steps = p.steps;
    const int64_t m = s.training.global_batch / (c.dp * c.micro_batch);
    CHECK(steps.microbatches == m);
    CHECK(static_cast<int64_t>(boost::num_vertices(p.graph)) == steps.slots());
    int64_t inputs = 0;
    for (size_t r = 0; r < steps.ranks.size(); ++r) {
      REQUIRE(p.program[r].size() == steps.ranks[r].size());
      for (size_t i = 0; i < steps.ranks[r].size(); ++i) {
        const Task& t = p.graph[p.program[r][i]];
        const StepSlot& slot = steps.ranks[r][i];
        CHECK(t.rank == static_cast<int64_t>(r));
        CHECK(t.kind == steps.task(r, i).kind);
        CHECK(t.microbatch == slot.microbatch);
        CHECK(t.compute.value == steps.task(r, i).compute.value);
        int64_t data_in = 0;
        for (auto [it, end] = boost::in_edges(p.program[r][i], p.graph); it != end; ++it) {
          if (p.graph[*it].kind != EdgeKind::DATA) continue;
          ++data_in;
          REQUIRE(slot.from_rank >= 0);
          CHECK(boost::source(*it, p.graph) ==
                p.program[static_cast<size_t>(slot.from_rank)][static_cast<size_t>(slot.from_index)]);
          CHECK(p.graph[*it].bytes.value == slot.bytes.value);
        }
        CHECK(data_in == (slot.from_rank >= 0 ? 1 : 0));
        inputs += data_in;
      }
    }
    // Every unit but the first forward and the last backward of the pipeline receives, and with
    // tied embeddings the first and last ranks' exchanges: 2 m (pp v - 1) (+ 2).
    const int64_t tied = s.model.tied_embeddings && c.pp > 1 ? 2 : 0;
    CHECK(inputs == 2 * m * (c.pp * c.v - 1) + tied);
  }
}

TEST_CASE("the estimate from a step program is the longest path through its graph", "[workload]") {
  // Without overlapped gradient buckets the reduction is a task like the others, so the estimate
  // is a longest path: no channel to wait for. A transfer starts once both its sender's data and
  // its receiver are ready (the receiver's previous task done), and the task waits for it, as the
  // engine receives (replay.cpp).
  for (const Case& c : kCases) {
    INFO(c.schedule << " tp " << c.tp << " pp " << c.pp << " dp " << c.dp << " v " << c.v);
    Scenario s = quickstart(c);
    s.plan.overlap_grad_reduce = false;  // stated: the default overlaps them
    const ComputeModel cm(s.cluster.device, s.training.precision);
    const StageLayout layout = make_stage_layout(s.model, s.plan, c.v, s.file);
    const StepProgram steps = build_step_program(s, layout, c.micro_batch, cm);
    const CommCosts comm(s);
    const Estimate e = estimate_step(steps, comm);

    const Pipeline p = build_pipeline(steps);
    const auto& g = p.graph;
    std::vector<TaskId> order;
    boost::topological_sort(g, std::back_inserter(order));
    std::reverse(order.begin(), order.end());
    std::vector<double> end(boost::num_vertices(g), 0.0);
    double longest = 0;
    for (TaskId v : order) {
      double start = 0;
      for (auto [it, stop] = boost::in_edges(v, g); it != stop; ++it)
        if (g[*it].kind != EdgeKind::DATA) start = std::max(start, end[boost::source(*it, g)]);
      for (auto [it, stop] = boost::in_edges(v, g); it != stop; ++it) {
        const TaskId u = boost::source(*it, g);
        if (g[*it].kind == EdgeKind::DATA)
          start = std::max(start, end[u]) + comm.p2p(g[u].rank, g[v].rank, g[*it].bytes).value;
      }
      const Task& t = g[v];
      double own = t.compute.value + collective_time(t, comm).value;
      if (t.kind == TaskKind::DP_REDUCE && t.dp_bytes.total() > 0) own += comm.dp_all_reduce(t.rank, t.dp_bytes).value;
      end[v] = start + own;
      longest = std::max(longest, end[v]);
    }
    CHECK(e.step.value == Approx(longest).epsilon(1e-12));
    for (size_t r = 0; r < p.program.size(); ++r)
      for (size_t i = 0; i < p.program[r].size(); ++i)
        CHECK(e.finish[r][i].value == Approx(end[p.program[r][i]]).epsilon(1e-12));
  }
}
