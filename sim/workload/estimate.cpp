#include "sim/workload/estimate.hpp"

#include <algorithm>
#include <boost/graph/topological_sort.hpp>
#include <iterator>

#include "sim/scenario/scenario.hpp"
#include "sim/workload/comm_costs.hpp"
#include "sim/workload/pipeline.hpp"

namespace sim {

Seconds task_collective_time(const Pipeline& p, size_t task, const CommCosts& comm) {
  return collective_time(p.graph[task], comm);
}

Seconds collective_time(const Task& task, const CommCosts& comm) {
  Seconds t;
  for (const auto& use : task.collectives)
    t += exposed(use, comm.group_collective(use.group, use.kind, use.bytes)) * static_cast<double>(use.count);
  return t;
}

Estimate estimate_step(const Scenario& /*s*/, const Pipeline& p, const CommCosts& comm) {
  const auto& g = p.graph;
  std::vector<TaskId> order;
  boost::topological_sort(g, std::back_inserter(order));
  std::reverse(order.begin(), order.end());
  Estimate e;
  e.finish.assign(boost::num_vertices(g), Seconds(0));
  // Per pipeline rank, when its data-parallel channel is free: overlapped gradient buckets queue
  // on it in the order they become ready.
  std::vector<Seconds> dp_free(p.program.size());
  std::vector<Seconds> dp_alpha(p.program.size());  // the largest latency term of the buckets in flight
  for (TaskId v : order) {
    Seconds start;
    for (auto [it, end] = boost::in_edges(v, g); it != end; ++it) {
      TaskId u = boost::source(*it, g);
      Seconds ready = e.finish[u];
      if (g[*it].kind == EdgeKind::DATA) ready += comm.p2p(g[u].rank, g[v].rank, g[*it].bytes);
      start = std::max(start, ready);
    }
    const Task& t = g[v];
    Seconds& channel = dp_free[static_cast<size_t>(t.rank)];
    Seconds& alpha = dp_alpha[static_cast<size_t>(t.rank)];
    const std::vector<double> ready = bucket_ready(t);
    for (size_t k = 0; k < t.dp_buckets.size(); ++k) {
      channel = std::max(channel, start + t.compute * ready[k]) + comm.dp_transfer(t.rank, t.dp_buckets[k]);
      alpha = std::max(alpha, comm.dp_latency(t.rank, t.dp_buckets[k]));
    }
    Seconds dur = t.compute + task_collective_time(p, v, comm);
    if (t.kind == TaskKind::DP_REDUCE) {
      start = std::max(start, channel);  // overlapped buckets still in flight
      // The engine pays the largest latency term of the all-reduces in flight once they end.
      if (t.dp_bytes.value > 0) alpha = std::max(alpha, comm.dp_latency(t.rank, t.dp_bytes));
      dur += comm.dp_transfer(t.rank, t.dp_bytes) + alpha;
      alpha = Seconds(0);
    }
    e.finish[v] = start + dur;
    e.step = std::max(e.step, e.finish[v]);
  }
  return e;
}

}  // namespace sim
