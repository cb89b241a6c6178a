// A direct-connect network designed with the plan (sim/plan/circuit_design.hpp) and its
// collectives (collective_flows.hpp, RING over the design's strides), against the link budget
// written out here: a ring all-reduce over k strides runs 2k channels, each directed circuit
// carrying one, so it takes R / (2k B eff f) for R = ring_cost's bytes per rank and f the chosen
// protocol's bandwidth factor (nccl_tuning.hpp) -- as fast as a
// full-bisection fat-tree of the same NICs when 2k NICs serve a node -- and twice that over half the
// strides; the design's invariants: no node uses more ports than it has, every node reaches every
// other, and each pipeline neighbour and each reduction ring's hop is one circuit.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "sim/comm/comm_costs.hpp"
#include "sim/comm/comm_plan.hpp"
#include "sim/comm/ring_channels.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/plan/circuit_design.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/plan/planner.hpp"
#include "sim/scenario/circuits.hpp"
#include "sim/topology/direct.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/placement.hpp"
#include "sim/workload/pipeline.hpp"
#include "test/unit/engine_scenario.hpp"

using namespace sim;
using engine_test::Setup;

namespace {

constexpr const char* kDirect =
    R"({"kind": "direct", "nics_per_node": 4, "nic_bandwidth": "200 Gb/s", "latency": "1 us"})";
constexpr const char* kDirect8 =
    R"({"kind": "direct", "nics_per_node": 8, "nic_bandwidth": "200 Gb/s", "latency": "1 us"})";

Setup on_direct(int64_t tp, int64_t pp, int64_t dp, const char* scale_out = kDirect, int64_t gpus_per_node = 4) {
  Setup u;
  u.model = "gpt-1.7b";
  u.tp = tp;
  u.pp = pp;
  u.dp = dp;
  u.global_batch = 4 * dp;
  u.gpus_per_node = gpus_per_node;
  u.nics_per_node = 4;
  u.scale_out = scale_out;
  return u;
}

double all_reduce_time(Scenario& s, Bytes S, CommOp* op_out = nullptr) {
  const Placement place(s.cluster, s.plan);
  const auto fabric = Fabric::of(s.cluster);
  const CommPlan plan(s, place, *fabric);
  const CommOp op = plan.collective(CollectiveKind::ALL_REDUCE, dp_group(s.plan, place, 0, 0), S);
  if (op_out) *op_out = op;
  return plan.transfer_time(op.flows).value;
}

}  // namespace

TEST_CASE("direct-connect all-reduce: 2k channels over k stride rings, one circuit per hop", "[plan]") {
  const Bytes S(256.0 * (1 << 20));
  Scenario s = engine_test::scenario(on_direct(1, 1, 32));  // 8 nodes of 4 GPUs, 4 ports each
  design_circuits(s);
  CHECK(s.cluster.scale_out.ring_strides.size() == 2);  // every port to the reduction: 4 / 2
  const auto& k = s.cluster.device.collectives;
  const double R = ring_cost(CollectiveKind::ALL_REDUCE, S, 32).bytes_per_rank.value;
  CommOp op;
  const double direct = all_reduce_time(s, S, &op);
  const double B = 25e9 * k.scale_out_efficiency * op.choice.bandwidth_factor;
  CHECK(direct == Approx(R / (4 * B)).epsilon(1e-9));
  CHECK(op.choice.algo == CollectiveAlgo::RING);
  const auto fabric = Fabric::of(s.cluster);
  for (const GpuFlow& f : op.flows) CHECK(fabric->hops(f.from, f.to).size() <= 1);

  // The same NICs in a full-bisection fat-tree: the same time.
  Setup ft = on_direct(1, 1, 32, "");
  Scenario t = engine_test::scenario(ft);
  t.plan.algorithms[CollectiveKind::ALL_REDUCE] = CollectiveAlgo::RING;
  CHECK(all_reduce_time(t, S) == Approx(R / (4 * B)).epsilon(1e-9));

  // One stride of the user's: its ring carries every channel, two per directed circuit.
  Scenario one = engine_test::scenario(on_direct(
      1, 1, 32,
      R"({"kind": "direct", "nics_per_node": 4, "nic_bandwidth": "200 Gb/s", "latency": "1 us", "strides": [1]})"));
  CHECK(all_reduce_time(one, S) == Approx(R / (2 * B)).epsilon(1e-9));
}

TEST_CASE("direct-connect design: ports within budget, every node reached, neighbours one circuit apart", "[plan]") {
  struct Plan {
    int64_t tp, pp, dp;
  };
  for (int64_t gpn : {4, 8})
    for (const Plan& p : {Plan{1, 1, 64}, Plan{1, 2, 32}, Plan{1, 4, 16}, Plan{4, 2, 8}, Plan{2, 4, 8}, Plan{4, 4, 4},
                          Plan{4, 16, 1}, Plan{8, 1, 8}}) {
      INFO("tp " << p.tp << " pp " << p.pp << " dp " << p.dp);
      INFO(gpn << " GPUs and ports per node");
      Scenario s = engine_test::scenario(on_direct(p.tp, p.pp, p.dp, gpn == 4 ? kDirect : kDirect8, gpn));
      design_circuits(s);
      const int64_t n = s.cluster.nodes();
      for (int64_t used : ports_used(n, s.cluster.scale_out.circuits)) CHECK(used <= s.cluster.scale_out.nics_per_node);
      const auto fabric = Fabric::of(s.cluster);
      std::vector<TorusHop> route;
      for (int64_t a = 0; a < n; ++a)
        for (int64_t b = 0; b < n; ++b) CHECK_NOTHROW(direct_route(fabric->network(), a, b, route));
      const Placement place(s.cluster, s.plan);
      for (int64_t r = 0; r + 1 < p.pp; ++r) {
        const int64_t a = place.node(place.gpu({0, 0, r, 0})), b = place.node(place.gpu({0, 0, r + 1, 0}));
        if (a != b) CHECK(fabric->joined(a, b));
      }
      const CommPlan plan(s, place, *fabric);
      const CommOp op =
          plan.collective(CollectiveKind::ALL_REDUCE, dp_group(s.plan, place, 0, 0), Bytes(64.0 * (1 << 20)));
      for (const GpuFlow& f : op.flows) CHECK(fabric->hops(f.from, f.to).size() <= 1);
    }
}

TEST_CASE("direct-connect design: the pipeline's neighbours get their own circuits, faster than rings over all",
          "[plan]") {
  // tp 4 pp 16 on 16 nodes of 4 GPUs and 4 ports: a stage per node, no reduction across nodes.
  // Every rank of stage 0 sends X to stage 1 at once: over c circuits of B per node pair the 4
  // GPUs' 4X take 4X / (c B eff) (c counted in the design's circuit list: an interior stage's two
  // neighbours share the 4 ports, so 2); over the plan-blind rings of all 16 nodes (strides 1 and
  // 3) one circuit joins them and it takes twice as long.
  const Bytes X(32.0 * (1 << 20));
  const auto send_time = [&](Scenario& s) {
    const Placement place(s.cluster, s.plan);
    const auto fabric = Fabric::of(s.cluster);
    const CommPlan plan(s, place, *fabric);
    std::vector<GpuFlow> flows;
    for (int64_t d = 0; d < s.plan.dp; ++d)
      for (int64_t t = 0; t < s.plan.tp; ++t) flows.push_back({place.gpu({t, 0, 0, d}), place.gpu({t, 0, 1, d}), X});
    return plan.transfer_time(flows).value;
  };
  Scenario blind = engine_test::scenario(on_direct(4, 16, 1));
  Scenario s = blind;
  design_circuits(s);
  const Placement place(s.cluster, s.plan);
  const int64_t a = place.node(place.gpu({0, 0, 0, 0})), b = place.node(place.gpu({0, 0, 1, 0}));
  REQUIRE(a != b);
  const auto c = std::count_if(s.cluster.scale_out.circuits.begin(), s.cluster.scale_out.circuits.end(),
                               [&](const Circuit& x) { return std::minmax(x[0], x[1]) == std::minmax(a, b); });
  REQUIRE(c >= 1);
  const double B = 25e9 * s.cluster.device.collectives.scale_out_efficiency;
  CHECK(send_time(s) == Approx(std::max(4 * X.value / (double(c) * B), X.value / B)).epsilon(1e-9));
  CHECK(c == 2);
  CHECK(send_time(blind) == Approx(2 * send_time(s)).epsilon(1e-9));
}

TEST_CASE("the planner keeps the design whose estimated step is the shortest", "[plan]") {
  // tp 8 pp 4 dp 2 on 8 nodes of 8 GPUs and 8 ports: the reduction's rings and the pipeline's pairs
  // share the ports, so there are several designs; every one, estimated on the plan the planner
  // resolved, is no faster than the one it kept.
  Setup u = on_direct(8, 4, 2, kDirect8, 8);
  u.global_batch = 16;
  Scenario s = engine_test::scenario(u);
  ComputeModel cm(s.cluster.device, s.training.precision);
  const ResolvedPlan plan = resolve_plan(s, cm);
  const auto designs = circuit_designs(s);
  REQUIRE(designs.size() > 1);  // the reduction and the pipeline both cross nodes
  const double kept = estimate_step(s, *plan.pipeline, CommCosts(s)).step.value;
  bool found = false;
  for (const CircuitDesign& d : designs) {
    Scenario t = s;
    apply_design(t, d);
    found = found || (d.circuits == s.cluster.scale_out.circuits);
    INFO("k_dp " << d.reduction_strides << ", k_mp " << d.pair_circuits);
    CHECK(kept <= estimate_step(t, *plan.pipeline, CommCosts(t)).step.value * (1 + 1e-12));
  }
  CHECK(found);
}
