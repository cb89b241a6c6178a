// The communication plan (sim/comm/comm_plan.hpp) and the estimate's pricing of its flows on
// the fabric (comm_costs.hpp), against the link budget written out here: a ring all-reduce across
// oversubscribed pods is bound by the pod uplink, inside full bisection by the NIC or NVLink
// port; a pipeline send shares a NIC among the GPUs behind it.
#include "sim/comm/comm_plan.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "sim/comm/comm_costs.hpp"
#include "sim/comm/ring_channels.hpp"
#include "sim/core/error.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/placement.hpp"
#include "test/unit/engine_scenario.hpp"

using namespace sim;
using engine_test::Setup;

namespace {

constexpr double NIC = 25e9, NVLINK = 300e9;  // 200 Gb/s HDR; NVLink 3 per GPU per direction

// The all-reduce of S over dp 32 on 4 DGX A100 nodes in pods of 2 nodes at `over`:1, forced to
// `algo`: its operation, its flows' idle price, and the estimate's price of the same reduction.
struct Priced {
  CommOp op;
  double transfer = 0, estimate = 0;
  CollectiveConstants k;
};
Priced dp_all_reduce_on_4_nodes(double over, CollectiveAlgo algo, Bytes S) {
  Setup u;
  u.dp = 32;
  u.global_batch = 32;
  u.pod_gpus = 16;
  u.oversubscription = over;
  Scenario s = engine_test::scenario(u);
  s.plan.algorithms[CollectiveKind::ALL_REDUCE] = algo;
  const Placement place(s.cluster, s.plan);
  const auto fabric = Fabric::of(s.cluster);
  const CommPlan plan(s, place, *fabric);
  Priced r;
  r.op = plan.collective(CollectiveKind::ALL_REDUCE, dp_group(s.plan, place, 0, 0), S);
  r.transfer = plan.transfer_time(r.op.flows).value;
  r.estimate = CommCosts(s).dp_transfer(0, S).value;
  r.k = s.cluster.device.collectives;
  CHECK(CommCosts(s).dp_latency(0, S).value == r.op.choice.latency.value);
  return r;
}

}  // namespace

TEST_CASE("a ring all-reduce over 4 nodes: pod uplink at 4:1, else the NIC or NVLink port", "[comm]") {
  // dp 32 on 4 DGX A100 nodes, forced to the ring. 8 channels (one per member of a node), each
  // hop carrying per_rank / 8, per_rank = 2 (31/32) S. A channel's ring runs node 0, 1, 2, 3 and
  // back: 4 hops between nodes, each leaving through one NIC; in pods of 2 nodes, the hops 1 -> 2
  // and 3 -> 0 cross pods, one leaving each pod per channel: per_rank up each pod's uplink, whose
  // capacity is 16 NICs x 25 GB/s x eff / 4. Inside a node each GPU sends on 7 of 8 channels over
  // its NVLink port: 7/8 per_rank. The protocol NCCL picks carries bytes at bandwidth_factor of
  // the Simple protocol's rate (LL128: 0.92, tuning.cc).
  for (double over : {1.0, 4.0}) {
    const Bytes S(256.0 * (1 << 20));
    const Priced r = dp_all_reduce_on_4_nodes(over, CollectiveAlgo::RING, S);
    const CommOp& op = r.op;
    const auto& k = r.k;
    CHECK(op.flows.size() == 8 * 32);
    const double per_rank = 2.0 * 31 / 32 * S.value / op.choice.bandwidth_factor;
    const double nic = per_rank / 8 / (NIC * k.scale_out_efficiency);
    const double nvlink = per_rank * 7 / 8 / (NVLINK * k.scale_up_efficiency);
    const double uplink = per_rank / (16 * NIC * k.scale_out_efficiency / 4);
    const double expected = over > 1 ? std::max({nic, nvlink, uplink}) : std::max(nic, nvlink);
    INFO("oversubscription " << over);
    CHECK(r.transfer == Approx(expected).epsilon(1e-9));
    // The estimate prices the same flows: one data-parallel group here (tp = cp = 1).
    CHECK(r.estimate == Approx(expected).epsilon(1e-9));
  }
}

TEST_CASE("a forced hierarchical all-reduce over 4 nodes: rails cross the pod uplink, NVLink rings stay home",
          "[comm]") {
  // dp 32 on 4 DGX A100 nodes. Inside each node a ring whose hops carry 2 (7/8) S (reduce-scatter
  // and all-gather); on each of the 8 rails a ring over the 4 nodes whose hops carry 2 (3/4) S/8.
  // In pods of 2 nodes, rail hops 1 -> 2 and 3 -> 0 cross pods: each pod sends 8 rails x 2 (3/4) S/8
  // up its uplink of 16 NICs x 25 GB/s x eff / 4 at 4:1.
  for (double over : {1.0, 4.0}) {
    const Bytes S(256.0 * (1 << 20));
    const Priced r = dp_all_reduce_on_4_nodes(over, CollectiveAlgo::HIERARCHICAL, S);
    const CommOp& op = r.op;
    const auto& k = r.k;
    REQUIRE(op.choice.algo == CollectiveAlgo::HIERARCHICAL);
    CHECK(op.flows.size() == 4 * 8 + 8 * 4);
    const double rail = 2.0 * 3 / 4 * S.value / 8;
    const double nic = rail / (NIC * k.scale_out_efficiency);
    const double nvlink = 2.0 * 7 / 8 * S.value / (NVLINK * k.scale_up_efficiency);
    const double uplink = 8 * rail / (16 * NIC * k.scale_out_efficiency / over);
    INFO("oversubscription " << over);
    CHECK(r.transfer == Approx(std::max({nic, nvlink, uplink})).epsilon(1e-9));
    CHECK(r.estimate == Approx(std::max({nic, nvlink, uplink})).epsilon(1e-9));
    CHECK(op.choice.latency.value ==
          Approx(k.base_latency.value + 14 * k.scale_up_step_latency.value + 6 * k.scale_out_step_latency.value)
              .epsilon(1e-12));
  }
}

TEST_CASE("a pipeline send: the GPUs behind one NIC share it", "[comm]") {
  // tp 8, pp 2: stage 0 on node 0, stage 1 on node 1. With 4 NICs per node two GPUs send through
  // each, so the class's 8 sends of B bytes take 2B / (25 GB/s x eff) after NCCL's one step and
  // the route's latency (the scenario's scale_out 1 us on the sender's NIC link and on the
  // receiver's: fat_tree.hpp); with 8 NICs, B / (25 GB/s x eff).
  for (int64_t nics : {8, 4}) {
    Setup u;
    u.tp = 8;
    u.pp = 2;
    u.nics_per_node = nics;
    const Scenario s = engine_test::scenario(u);
    const auto& k = s.cluster.device.collectives;
    const Bytes B(64.0 * (1 << 20));
    const double share = 8.0 / double(nics);
    const double expected =
        k.base_latency.value + k.scale_out_step_latency.value + 2e-6 + share * B.value / (NIC * k.scale_out_efficiency);
    INFO(nics << " NICs per node");
    CHECK(CommCosts(s).p2p(0, 1, B).value == Approx(expected).epsilon(1e-9));
  }
}

TEST_CASE("a group spread unevenly over nodes runs the ring, and a forced tree is refused", "[comm]") {
  // tp 1, pp 6, dp 8 on 6 nodes of 8: pipeline rank 0's data-parallel group is GPUs 0, 6, 12, ...,
  // 42, two on nodes 0 and 3 and one on the others. NCCL's tree and NVLS-tree need as many ranks
  // on every node; the plan prices the ring (fuzz_scenario found a tree priced on it).
  Setup u;
  u.pp = 6, u.dp = 8;
  u.global_batch = 48;
  Scenario s = engine_test::scenario(u);
  const Placement place(s.cluster, s.plan);
  const auto fabric = Fabric::of(s.cluster);
  const auto members = dp_group(s.plan, place, 0, 0);
  CHECK(members == std::vector<int64_t>{0, 6, 12, 18, 24, 30, 36, 42});
  for (double mib : {0.0625, 1.0, 64.0, 4096.0}) {
    const CommPlan plan(s, place, *fabric);
    const CommOp op = plan.collective(CollectiveKind::ALL_REDUCE, members, Bytes(mib * (1 << 20)));
    CHECK(op.choice.algo == CollectiveAlgo::RING);
    CHECK_FALSE(op.flows.empty());
  }
  s.plan.algorithms[CollectiveKind::ALL_REDUCE] = CollectiveAlgo::TREE;
  const CommPlan forced(s, place, *fabric);
  CHECK_THROWS_AS(forced.choose(CollectiveKind::ALL_REDUCE, members, Bytes(1 << 20)), InputError);
}

TEST_CASE("GB200 NVL72: a rack is one NCCL node - NVLink carries TP across trays and the NICs carry DP across racks",
          "[comm]") {
  // Racks of 72 GPUs in trays of 4 (topologies/gb200-nvl72.json), 2 racks. NCCL treats a
  // multi-node NVLink domain as one node: a TP group of 16 on trays 0-3 of rack 0 has one node,
  // so NVLS (one node only, and B200 has NVLink SHARP) may run it, and all of its flows stay on
  // NVLink ports (Fabric ends below gpus()). A DP group of 18 with tp 8 has 72 / 8 = 9 members in
  // each rack: 2 nodes, so NVLS cannot run it (the message counts the racks), and its ring leaves
  // each rack through 9 channels, one per member's NIC.
  constexpr int64_t RACK = 72, RACKS = 2;
  const Bytes S(64.0 * (1 << 20));
  Setup u;
  u.cluster = "gb200-nvl72";
  u.gpus_per_node = 4;
  u.nics_per_node = 4;
  SECTION("TP 16 across four trays") {
    u.tp = 16;
    u.dp = RACKS * RACK / 16;
    u.global_batch = u.dp;
    Scenario s = engine_test::scenario(u);
    REQUIRE(s.cluster.domain_gpus() == RACK);
    REQUIRE(s.cluster.device.collectives.nvls_efficiency > 0);
    s.plan.algorithms[CollectiveKind::ALL_REDUCE] = CollectiveAlgo::NVLS;
    const Placement place(s.cluster, s.plan);
    const auto fabric = Fabric::of(s.cluster);
    const CommPlan plan(s, place, *fabric);
    std::vector<int64_t> members;
    for (int64_t t = 0; t < 16; ++t) members.push_back(place.gpu({t, 0, 0, 0}));
    CHECK(place.node(members.front()) != place.node(members.back()));  // four trays
    CHECK(plan.choose(CollectiveKind::ALL_REDUCE, members, S).algo == CollectiveAlgo::NVLS);
    for (CollectiveKind kind :
         {CollectiveKind::ALL_REDUCE, CollectiveKind::ALL_GATHER, CollectiveKind::REDUCE_SCATTER}) {
      s.plan.algorithms.clear();
      const CommPlan free(s, place, *fabric);
      const CommOp op = free.collective(kind, members, S);
      REQUIRE_FALSE(op.flows.empty());
      for (const auto& f : op.flows) CHECK(fabric->ends(f.from, f.to).first < fabric->gpus());
    }
    CHECK(ring_channels(place, members) == 1);  // stays inside its domain
  }
  SECTION("DP 18 across two racks") {
    u.tp = 8;
    u.dp = RACKS * RACK / 8;
    u.global_batch = u.dp;
    Scenario s = engine_test::scenario(u);
    s.plan.algorithms[CollectiveKind::ALL_REDUCE] = CollectiveAlgo::NVLS;
    const Placement place(s.cluster, s.plan);
    const auto fabric = Fabric::of(s.cluster);
    const CommPlan plan(s, place, *fabric);
    const auto members = dp_group(s.plan, place, 0, 0);
    REQUIRE(members.size() == size_t(RACKS * RACK / 8));
    CHECK_THROWS_WITH(plan.choose(CollectiveKind::ALL_REDUCE, members, S),
                      Catch::Contains("over 18 GPUs on 2 node(s)"));
    CHECK(ring_channels(place, members) == RACK / 8);
    s.plan.algorithms[CollectiveKind::ALL_REDUCE] = CollectiveAlgo::RING;
    const CommPlan ring(s, place, *fabric);
    const CommOp op = ring.collective(CollectiveKind::ALL_REDUCE, members, S);
    CHECK(op.flows.size() == size_t(RACK / 8 * RACKS * RACK / 8));  // channels x members
    CHECK(std::any_of(op.flows.begin(), op.flows.end(),
                      [&](const GpuFlow& f) { return fabric->ends(f.from, f.to).first >= fabric->gpus(); }));
  }
}

namespace {

// dp 16 on two DGX A100 nodes.
Scenario dp16_on_two_a100_nodes() {
  Setup u;
  u.dp = 16;
  u.global_batch = 16;
  return engine_test::scenario(u);
}

}  // namespace

TEST_CASE("a forced algorithm is refused even after the same plan was priced without it", "[comm]") {
  // The estimate's per-plan memo (comm_costs.cpp) is shared by every CommCosts of one plan shape;
  // forcing an algorithm changes the plan, so a choice memoised without it must not answer. NVLS
  // cannot run across nodes (nor on A100s).
  Scenario s = dp16_on_two_a100_nodes();
  const Bytes S(64.0 * (1 << 20));
  CHECK(CommCosts(s).dp_latency(0, S).value > 0);
  s.plan.algorithms[CollectiveKind::ALL_REDUCE] = CollectiveAlgo::NVLS;
  CHECK_THROWS_AS(CommCosts(s).dp_latency(0, S), InputError);
}

TEST_CASE("two profiles of one name but other collective costs do not share the memo", "[comm]") {
  // The memo is keyed by the plan's shape and the device: a copy of a profile with other NCCL
  // latencies under the same name (fuzz_platform found it) is priced as it is under a name of its
  // own, which no memo knows: a base latency 100 times the profile's.
  Scenario s = dp16_on_two_a100_nodes();
  const Bytes S(64.0 * (1 << 20));
  const double before = CommCosts(s).dp_latency(0, S).value;
  s.cluster.device.collectives.base_latency = s.cluster.device.collectives.base_latency * 100;
  const double same_name = CommCosts(s).dp_latency(0, S).value;
  s.cluster.device.name += "-copy";  // still an A100 to NCCL's tables (gpu_arch)
  CHECK(same_name == CommCosts(s).dp_latency(0, S).value);
  CHECK(same_name > before);
}

TEST_CASE("a refused forced algorithm leaves nothing in the memo for the next plan of the same shape", "[comm]") {
  // tp 2, dp 6 on three 4-GPU nodes, placed so that tp index 0's gradient group is even (GPUs
  // 0, 1, 2 | 4, 5, 6: three per node) and tp index 1's is not (3 | 7 | 8, 9, 10, 11). Forcing the
  // hierarchical all-reduce is refused -- by group 1, after group 0's choice was made -- and must
  // be refused again by a second estimate of the same plan, which shares the first one's memo.
  Setup u;
  u.tp = 2;
  u.dp = 6;
  u.global_batch = 6;
  u.gpus_per_node = 4;
  u.nics_per_node = 4;
  Scenario s = engine_test::scenario(u);
  s.plan.gpu_of_rank = {0, 3, 1, 7, 2, 8, 4, 9, 5, 10, 6, 11};  // global rank g = t + 2 d
  s.plan.algorithms[CollectiveKind::ALL_REDUCE] = CollectiveAlgo::HIERARCHICAL;
  const Bytes S(64.0 * (1 << 20));
  for (int attempt = 0; attempt < 2; ++attempt) {
    INFO("attempt " << attempt);
    CHECK_THROWS_WITH(CommCosts(s).dp_transfer(0, S), Catch::Contains("spread unevenly over nodes"));
  }
}

TEST_CASE("inside a torus the data-parallel all-reduce runs the torus algorithm at its bandwidth bound", "[comm]") {
  // dp 64 on one 4 x 4 x 4 torus of 50 GB/s ICI links: the group is the whole torus, so the torus
  // algorithm runs it; on the idle network it takes 2 (63/64) S / (2 x 3 x B x eff) (every chip's
  // six links busy, torus_collective.hpp), and its latency is base + 2 x (3 + 3 + 3) steps.
  const Scenario s = engine_test::scenario(engine_test::dp64_on_4x4x4());
  const Placement place(s.cluster, s.plan);
  const auto fabric = Fabric::of(s.cluster);
  const CommPlan plan(s, place, *fabric);
  const Bytes S(64.0 * (1 << 20));
  const CommOp op = plan.collective(CollectiveKind::ALL_REDUCE, dp_group(s.plan, place, 0, 0), S);
  const auto& k = s.cluster.device.collectives;
  CHECK(op.choice.algo == CollectiveAlgo::TORUS);
  CHECK(op.choice.latency.value == Approx(k.base_latency.value + 18 * k.scale_up_step_latency.value));
  CHECK(plan.transfer_time(op.flows).value ==
        Approx(2 * 63.0 / 64 * S.value / (6 * 50e9 * k.scale_up_efficiency)).epsilon(1e-9));
  CHECK_FALSE(plan.leaves_domain(op));
  // Every flow joins two torus neighbours: one ICI hop between the chips' routers.
  for (const GpuFlow& f : op.flows) CHECK(fabric->hops(f.from, f.to).size() == 1);
}

TEST_CASE("over two tori the all-reduce reduces in each over its ICI and across them over the NICs", "[comm]") {
  // dp 128 on two 4 x 4 x 4 tori (TPU multislice), hosts of 4 chips with one NIC of N. In each
  // torus the torus algorithm's flows take 2 (63/64) S / (6 B eff_up); across the two, each of the
  // 64 positions rings its 1/64 share: ring_cost gives 2 (1/2) S / 64 per member, and the 4 chips
  // of a host share its NIC: 4 S / 64 / (N eff_out). Pipelined, the slower sets the time (the
  // torus at 200 Gb/s, the NICs at 10 Gb/s). The latency: base + 18 ICI steps + 2 network steps.
  for (const char* nic : {"200 Gb/s", "10 Gb/s"}) {
    Setup u = engine_test::dp64_on_4x4x4();
    u.dp = 128;
    u.global_batch = 128;
    const std::string out = std::string(R"({"kind": "fat-tree", "nics_per_node": 1, "nic_bandwidth": ")") + nic + "\"}";
    u.scale_out = out.c_str();
    const Scenario s = engine_test::scenario(u);
    const auto& k = s.cluster.device.collectives;
    const Placement place(s.cluster, s.plan);
    const auto fabric = Fabric::of(s.cluster);
    const CommPlan plan(s, place, *fabric);
    const Bytes S(64.0 * (1 << 20));
    const CommOp op = plan.collective(CollectiveKind::ALL_REDUCE, dp_group(s.plan, place, 0, 0), S);
    CHECK(op.choice.algo == CollectiveAlgo::TORUS);
    CHECK(op.choice.latency.value ==
          Approx(k.base_latency.value + 18 * k.scale_up_step_latency.value + 2 * k.scale_out_step_latency.value));
    const double torus = 2 * 63.0 / 64 * S.value / (6 * 50e9 * k.scale_up_efficiency);
    const double rails = 4 * S.value / 64 / (s.cluster.scale_out.nic_bandwidth.value * k.scale_out_efficiency);
    INFO(nic << ": torus " << torus << " s, rails " << rails << " s");
    CHECK(plan.transfer_time(op.flows).value == Approx(std::max(torus, rails)).epsilon(1e-9));
    CHECK(plan.leaves_domain(op));
  }
}

TEST_CASE("folded beside tensor parallelism, an expert-parallel group is ep consecutive ranks of tp x dp", "[comm]") {
  // tp 2, pp 2, dp 8 on 32 GPUs of 8 per node, placed tp-cp-dp-pp, ep 8 (ParallelPlan::expert_tp 1):
  // tp x dp is 16 ranks per stage, tp fastest, two groups of 8, each a node; the expert-data-
  // parallel groups are the 8 positions in a group, each the 2 ranks 8 apart in tp x dp.
  engine_test::Setup u;
  u.tp = 2, u.pp = 2, u.dp = 8;
  Scenario s = engine_test::scenario(u);
  s.plan.ep = 8;
  s.plan.sequence_parallel = true;
  s.plan.order = {ParallelDim::TP, ParallelDim::CP, ParallelDim::DP, ParallelDim::PP};
  REQUIRE(s.plan.expert_tp() == 1);
  REQUIRE(s.plan.expert_dp() == 2);
  const Placement place(s.cluster, s.plan);
  for (int64_t d = 0; d < s.plan.dp; ++d)
    for (int64_t t = 0; t < s.plan.tp; ++t) {
      const auto g = model_group(s.plan, place, CommGroup::EP, {t, 0, 1, d});
      REQUIRE(g.size() == 8);
      const int64_t first = (t + 2 * d) / 8 * 8;
      for (int64_t i = 0; i < 8; ++i) {
        const RankCoord x = place.coord(g[static_cast<size_t>(i)]);
        CHECK(x.tp + 2 * x.dp == first + i);
        CHECK(x.pp == 1);
        CHECK(place.node(g[static_cast<size_t>(i)]) == place.node(g.front()));
      }
    }
  const int64_t first_expert = grad_groups(s.plan) - 8;  // one expert-data-parallel group per position
  for (int64_t k = 0; k < 8; ++k) {
    REQUIRE(reduces_experts(s.plan, first_expert + k));
    const auto members = dp_group(s.plan, place, 1, first_expert + k);
    REQUIRE(members.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
      const RankCoord x = place.coord(members[i]);
      CHECK(x.tp + 2 * x.dp == k + 8 * int64_t(i));
    }
  }
  CHECK_FALSE(reduces_experts(s.plan, first_expert - 1));
}

TEST_CASE("an expert-parallel group is ep consecutive ranks of cp x dp, cp fastest: the groups tile them", "[comm]") {
  // tp 1, cp 2, pp 2, dp 8 on 32 GPUs of 8 per node, placed tp-cp-dp-pp, ep 4: cp x dp is 16 ranks
  // per stage, four groups of 4 -- cp 0 and 1 of dp 0 and 1, then of dp 2 and 3, ... -- each on
  // one node (cp and dp are the dimensions next to tp). With tp > 1 the groups fold tp in too (the
  // test above).
  engine_test::Setup u;
  u.tp = 1, u.pp = 2, u.dp = 16, u.global_batch = 16;
  Scenario s = engine_test::scenario(u);  // 32 GPUs; the plan below is another on them
  s.plan.cp = 2, s.plan.pp = 2, s.plan.dp = 8, s.plan.ep = 4;
  REQUIRE(s.plan.expert_tp() == 1);
  s.plan.order = {ParallelDim::TP, ParallelDim::CP, ParallelDim::DP, ParallelDim::PP};
  const Placement place(s.cluster, s.plan);
  for (int64_t t = 0; t < s.plan.tp; ++t) {
    std::vector<int> members(static_cast<size_t>(s.cluster.gpus), 0);
    for (int64_t d = 0; d < s.plan.dp; ++d)
      for (int64_t c = 0; c < s.plan.cp; ++c) {
        const RankCoord me{t, c, 1, d};
        const auto g = model_group(s.plan, place, CommGroup::EP, me);
        REQUIRE(g.size() == 4);
        const int64_t first = (c + s.plan.cp * d) / 4 * 4;
        for (int64_t i = 0; i < 4; ++i) {
          const RankCoord x = place.coord(g[static_cast<size_t>(i)]);
          CHECK(x.tp == t);
          CHECK(x.pp == 1);
          CHECK(x.cp + s.plan.cp * x.dp == first + i);
          CHECK(place.node(g[static_cast<size_t>(i)]) == place.node(g.front()));
          ++members[static_cast<size_t>(g[static_cast<size_t>(i)])];
        }
        CHECK(std::count(g.begin(), g.end(), place.gpu(me)) == 1);
      }
    // Each of the tp index's 8 ranks is in its own group and in 4 groups' listings (one per member).
    for (int64_t d = 0; d < s.plan.dp; ++d)
      for (int64_t c = 0; c < s.plan.cp; ++c) CHECK(members[static_cast<size_t>(place.gpu({t, c, 1, d}))] == 4);
  }
}
