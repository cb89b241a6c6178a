#include "sim/workload/estimate.hpp"

#include <algorithm>
#include <boost/graph/topological_sort.hpp>
#include <iterator>

#include "sim/scenario/scenario.hpp"
#include "sim/workload/comm_costs.hpp"
#include "sim/workload/pipeline.hpp"

namespace sim {

Seconds task_tp_time(const Pipeline& p, size_t task, const CommCosts& comm) {
  Seconds t;
  for (const auto& use : p.graph[task].tp) t += comm.tp_collective(use.kind, use.bytes) * static_cast<double>(use.count);
  return t;
}

Estimate estimate_step(const Scenario& /*s*/, const Pipeline& p, const CommCosts& comm) {
  const auto& g = p.graph;
  std::vector<TaskId> order;
  boost::topological_sort(g, std::back_inserter(order));
  std::reverse(order.begin(), order.end());
  Estimate e;
  e.finish.assign(boost::num_vertices(g), Seconds(0));
  for (TaskId v : order) {
    Seconds start;
    for (auto [it, end] = boost::in_edges(v, g); it != end; ++it) {
      TaskId u = boost::source(*it, g);
      Seconds ready = e.finish[u];
      if (g[*it].kind == EdgeKind::DATA) ready += comm.p2p(g[u].rank, g[v].rank, g[*it].bytes);
      start = std::max(start, ready);
    }
    const Task& t = g[v];
    Seconds dur = t.compute + task_tp_time(p, v, comm);
    if (t.kind == TaskKind::DP_REDUCE) dur += comm.dp_all_reduce(t.rank, t.dp_bytes);
    e.finish[v] = start + dur;
    e.step = std::max(e.step, e.finish[v]);
  }
  return e;
}

}  // namespace sim
