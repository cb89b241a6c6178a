// An optical circuit switch that changes circuits between the pipeline's transfers and the
// gradient reduction (scale_out "ocs", CommPlan::reconfiguration): its reconfiguration latency
// swept from nanoseconds to tens of milliseconds against the closed form of the two dark periods,
// and the engine against the estimate, which implements the same circuits on its own. Each
// TEST_CASE runs in its own process (ctest); the engine forks a child per simulate_step call.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/comm/comm_costs.hpp"
#include "sim/comm/comm_plan.hpp"
#include "sim/core/params.hpp"
#include "sim/engine/engine.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/workload/pipeline.hpp"
#include "test/unit/engine_scenario.hpp"

using namespace sim;
using engine_test::Setup;

namespace {

// Llama 2 7B (untied embeddings: no embedding sync), tp `tp`, pp 2, dp 2, one microbatch, on DGX
// A100s whose NICs are on an optical circuit switch dark for `reconfiguration` at each change.
Scenario ocs_job(int64_t tp, const std::string& reconfiguration) {
  Setup u;
  u.model = "llama2-7b";
  u.tp = tp;
  u.pp = 2;
  u.dp = 2;
  u.global_batch = 2;
  const std::string out = R"({"kind": "ocs", "nics_per_node": 8, "nic_bandwidth": "200 Gb/s", "latency": "1 us",
                              "reconfiguration": ")" +
                          reconfiguration + "\"}";
  u.scale_out = out.c_str();
  return engine_test::scenario(u);
}

struct Stage {
  double reaches_reduction = 0;  // when the stage's reduction task starts (it may then wait)
  double end = 0;                // its last task's end
};

}  // namespace

TEST_CASE("an optical circuit switch's reconfiguration delays the step as its two dark periods say", "[engine]") {
  // One microbatch, so everything runs in a chain. The step starts with the pipeline's circuits
  // being set: stage 0's activations, ready at E (the end of its forward), leave at max(E, R), so
  // everything after them moves by d = max(0, R - E). The last transfer to cross (stage 1's
  // gradient to stage 0) arrives at T; the reduction's circuits are up at T + R, and each stage's
  // reduction starts at max(a_s, T + R), a_s when it reaches it, the stage then taking W_s more:
  //   step(R) = d + max_s ( max(a_s, T + R) + W_s ),
  // with E, T, a_s and W_s those of a run whose switch is dark for 1 ns. Its steps then grow from
  // nothing (nanoseconds, microseconds: hidden behind stage 0's forward and backward) towards 2R
  // (a hundred milliseconds: both exposed).
  const Scenario base = ocs_job(8, "1 ns");
  const Pipeline p = engine_test::build(base);
  const EngineResult r0 = simulate_step(base, p);
  REQUIRE(r0.dark.size() == 2);
  const double eps = 1e-9, T = r0.dark[1].first;
  CHECK(r0.dark[0].first == 0.0);
  double E = 0;
  std::vector<Stage> stages(2);
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) {
    const Task& t = p.graph[v];
    Stage& st = stages[static_cast<size_t>(t.rank)];
    if (t.kind == TaskKind::FORWARD && t.rank == 0) E = r0.spans[v].end;
    if (t.kind == TaskKind::DP_REDUCE) st.reaches_reduction = r0.spans[v].start;
    st.end = std::max(st.end, r0.spans[v].end);
  }
  REQUIRE(E > 0);
  REQUIRE(T > E);
  double last = r0.step.value;
  for (const char* reconfiguration :
       {"1 ns", "100 ns", "1 us", "10 us", "100 us", "1 ms", "10 ms", "30 ms", "100 ms"}) {
    const Scenario s = ocs_job(8, reconfiguration);
    const double R = s.cluster.scale_out.reconfiguration.value;
    double expect = 0;
    for (const Stage& st : stages) {
      const double waited = std::max(st.reaches_reduction, T + eps);  // in the 1 ns run
      expect = std::max(expect, std::max(st.reaches_reduction, T + R) + (st.end - waited));
    }
    expect += std::max(0.0, R - E);
    const EngineResult r = simulate_step(s, p);
    const double estimate = estimate_step(s, p, CommCosts(s)).step.value;
    INFO(reconfiguration << ": engine " << r.step.value << " s, closed form " << expect << " s, estimate " << estimate
                         << " s");
    CHECK(r.step.value == Approx(expect).margin(1e-9));
    CHECK(r.step.value >= last);
    last = r.step.value;
    REQUIRE(r.dark.size() == 2);
    for (const auto& [from, to] : r.dark) CHECK(to - from == Approx(R).margin(1e-12));
    CHECK(estimate == Approx(r.step.value).epsilon(0.01));
  }
  // At 100 ms both dark periods show: more than one R beyond the 1 ns run, less than two.
  CHECK(last - r0.step.value > 100e-3);
  CHECK(last - r0.step.value < 200e-3);
}

TEST_CASE("one set of circuits serves a step whose pipeline stays inside the nodes", "[engine]") {
  // pp 2 inside one DGX A100 (tp 4): only the gradient reduction crosses the switch, so its
  // circuits are set once and nothing is dark.
  const Scenario s = ocs_job(4, "50 ms");
  CHECK(CommCosts(s).reconfiguration().value == 0.0);
  const EngineResult r = simulate_step(s, engine_test::build(s));
  CHECK(r.dark.empty());
}
