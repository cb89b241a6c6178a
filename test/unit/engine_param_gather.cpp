// The distributed optimizer's parameter all-gather in the forward (ZeRO-1/2 with
// overlap_param_gather: ParallelPlan::gathers_params_in_forward): each pipeline rank's first
// forward waits for its first layer's gather, which the rank launched as the step started, not
// when its input arrived.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iomanip>

#include "sim/comm/comm_costs.hpp"
#include "sim/engine/engine.hpp"
#include "test/unit/engine_scenario.hpp"

using namespace engine_test;

TEST_CASE("ZeRO-1's gather: a pipeline rank's first forward waits for what is left of its first layer's gather",
          "[engine][zero1]") {
  // GPT 7.5B, pp 2 x dp 8 on two DGX A100 nodes (a 200 Gb/s NIC per GPU; the data-parallel group
  // spans both), two chunks a rank, ZeRO-1, overlapped. Rank 0's first forward starts at 0 and
  // waits for its first layer's gather whole: CommCosts' closed form of it on an idle network.
  // Rank 1's first layer's was launched at 0 too,
  // so its first forward, which starts when rank 0's output arrives, waits for what is left of its
  // flows, max(0, flows - start), and the latency term. (With one chunk a rank, a first forward would also end no
  // earlier than its chunk's other buckets: tested by their bytes in workload_grad_buckets.cpp.)
  Setup u;
  u.pp = 2, u.dp = 8, u.global_batch = 16, u.micro_batch = 1;
  Scenario s = scenario(u);
  s.plan.virtual_stages.value = 2;
  s.plan.schedule = Schedule::INTERLEAVED;
  s.plan.zero = 1;
  s.plan.overlap_grad_reduce = true;
  s.plan.overlap_param_gather = true;
  REQUIRE(s.plan.gathers_params_in_forward());
  const Pipeline p = build(s);
  const CommCosts comm(s);
  const EngineResult r = simulate_step(s, p);
  int64_t firsts = 0;
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) {
    const Task& t = p.graph[v];
    if (!t.dp_awaited || t.chunk != 0) continue;  // the later chunk's wait for the prefetched
    ++firsts;
    REQUIRE(*t.dp_awaited == 1);
    REQUIRE(t.dp_gathers.front().kind == CollectiveKind::ALL_GATHER);
    // The engine moves the flows from the launch and pays the NCCL latency term when the gather is
    // awaited (as it does for every awaited reduction).
    const double gather = comm.dp_all_reduce(t.rank, t.dp_gathers.front()).value;
    const double latency = comm.dp_latency(t.rank, t.dp_gathers.front()).value;
    const double start = r.spans[v].start, expected = std::max(0.0, gather - latency - start) + latency;
    INFO(std::setprecision(9) << "rank " << t.rank << ": starts at " << start << " s, waited " << r.spans[v].dp
                              << " s, first layer's gather " << gather << " s");
    CHECK(r.spans[v].dp == Approx(expected).margin(1e-4 * gather));
    if (t.rank == 1) CHECK(start > 0);  // after rank 0's first forward
  }
  CHECK(firsts == 2);
}
