// The SimGrid replay of a step (sim/engine/engine.hpp) against closed forms and against the fast
// estimate (sim/plan/estimate.hpp), and folded (one actor per rank class) against full
// fidelity (one actor per GPU). Each TEST_CASE runs in its own process (ctest); the engine forks
// a child per simulate_step call.
#include <catch2/catch.hpp>
#include <initializer_list>
#include <iomanip>
#include <string>
#include <tuple>
#include <utility>

#include "sim/comm/comm_costs.hpp"
#include "sim/core/params.hpp"
#include "sim/cost/collective.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/engine/engine.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/plan/planner.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/ops.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "test/unit/engine_scenario.hpp"
#include "test/unit/input_error_of.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

using engine_test::build;
using engine_test::scenario;
using engine_test::Setup;

size_t dp_task(const Pipeline& p, int64_t rank) {
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v)
    if (p.graph[v].kind == TaskKind::DP_REDUCE && p.graph[v].rank == rank) return v;
  FAIL("no dp-reduce task on rank " << rank);
  return 0;
}

// The engine's step of `s` within 2% of the estimate's, and above the busiest rank's own work
// (a pipeline's ranks wait on each other); returns it.
double engine_agrees_with_estimate(const Scenario& s, const Pipeline& p, const char* schedule) {
  const double estimate = estimate_step(s, p, CommCosts(s)).step.value;
  const EngineResult r = simulate_step(s, p);
  INFO(schedule << ": engine " << r.step.value << " s, estimate " << estimate << " s");
  CHECK(r.step.value == Approx(estimate).epsilon(0.02));
  double busiest = 0;
  for (const auto& program : p.program) {
    double work = 0;
    for (TaskId v : program) work += p.graph[v].compute.value;
    busiest = std::max(busiest, work);
  }
  CHECK(r.step.value > busiest);
  return r.step.value;
}

}  // namespace

TEST_CASE("an intra-node data-parallel all-reduce takes the ring closed form 2(n-1)/n*S/(B*eff) + latency",
          "[engine]") {
  // tp = pp = 1, dp = 8 on one DGX A100: one NCCL ring over NVSwitch. Each GPU sends
  // 2(n-1)/n * S to its successor through its own NVLink port (B = 300 GB/s per direction, the
  // profile's achieved fraction eff), plus NCCL's latency: base + 2(n-1) * step
  // (NCCL src/graph/tuning.cc@5067397), plus the two NVLink port latencies of the platform (1 us each).
  Setup u;
  u.model = "gpt-1.7b";
  u.dp = 8;
  const Scenario s = scenario(u);
  const Pipeline p = build(s);
  const size_t v = dp_task(p, 0);
  const double S = p.graph[v].dp_bytes.total(), n = 8;
  const auto& k = s.cluster.device.collectives;
  const double B = s.cluster.scale_up.bandwidth.value, eff = k.scale_up_efficiency;
  const double expect = 2 * (n - 1) / n * S / (B * eff) + k.base_latency.value +
                        2 * (n - 1) * k.scale_up_step_latency.value + 2 * s.cluster.scale_up.latency.value;
  const EngineResult r = simulate_step(s, p);
  INFO("S = " << S << " B; engine " << r.spans[v].dp << " s, closed form " << expect << " s");
  CHECK(r.spans[v].dp == Approx(expect).epsilon(0.01));
}

TEST_CASE("an intra-node all-reduce on an H100 NVSwitch node takes the NVLS closed form S/(B*eff_nvls) + latency",
          "[engine]") {
  // dp = 8 on one DGX H100: NCCL's default all-reduce there is NVLink SHARP. Each GPU's port
  // carries the buffer once each way at the profile's NVLS fraction of 450 GB/s, plus NCCL's NVLS
  // latency and the two port latencies. With "nvls": false the same reduction is the ring's.
  Setup u;
  u.model = "gpt-1.7b";
  u.dp = 8;
  u.cluster = "dgx-h100-superpod";
  const Scenario s = scenario(u);
  REQUIRE(s.cluster.nvls());
  const Pipeline p = build(s);
  const size_t v = dp_task(p, 0);
  const double S = p.graph[v].dp_bytes.total(), n = 8;
  const auto& k = s.cluster.device.collectives;
  const double B = s.cluster.scale_up.bandwidth.value, port = s.cluster.scale_up.latency.value;
  const double nvls = S / (B * k.nvls_efficiency) + k.nvls_latency.value + 2 * port;
  const double ring = 2 * (n - 1) / n * S / (B * k.scale_up_efficiency) + k.base_latency.value +
                      2 * (n - 1) * k.scale_up_step_latency.value + 2 * port;
  const EngineResult r = simulate_step(s, p);
  INFO("S = " << S << " B; engine " << r.spans[v].dp << " s, NVLS closed form " << nvls << " s, ring " << ring);
  CHECK(r.spans[v].dp == Approx(nvls).epsilon(0.01));

  u.scale_up = R"({"kind": "nvswitch", "bandwidth": "450 GB/s", "latency": "1 us", "nvls": false})";
  const Scenario off = scenario(u);
  REQUIRE_FALSE(off.cluster.nvls());
  const EngineResult r_off = simulate_step(off, build(off));
  CHECK(r_off.spans[v].dp == Approx(ring).epsilon(0.01));
  // The published busbw figures behind the two: NVLS ~480 GB/s against the ring's 370 GB/s.
  CHECK(r_off.spans[v].dp > r.spans[v].dp);
}

TEST_CASE("engine step time agrees with the idle-network estimate within 2%: quickstart", "[engine]") {
  // Neither case has contention (one flow per link direction), so the flow model and the closed
  // forms of CommCosts price the same transfers.
  Scenario s = load_scenario(TRAINSIM_SOURCE_DIR "/configs/quickstart.json", {}, TRAINSIM_SOURCE_DIR);
  ComputeModel cm(s.cluster.device, s.training.precision);
  const ResolvedPlan plan = resolve_plan(s, cm);
  const double estimate = estimate_step(s, *plan.pipeline, CommCosts(s)).step.value;
  const EngineResult r = simulate_step(s, *plan.pipeline);
  INFO("engine " << r.step.value << " s, estimate " << estimate << " s");
  CHECK(r.step.value == Approx(estimate).epsilon(0.02));
}

TEST_CASE("engine step time agrees with the idle-network estimate within 2%: pp = 2 across two nodes", "[engine]") {
  // tp 8 fills each node, so the pipeline transfer crosses the network through the NICs.
  Setup u;
  u.tp = 8;
  u.pp = 2;
  u.global_batch = 16;
  const Scenario s = scenario(u);
  const Pipeline p = build(s);
  const double estimate = estimate_step(s, p, CommCosts(s)).step.value;
  const EngineResult r = simulate_step(s, p);
  INFO("engine " << r.step.value << " s, estimate " << estimate << " s");
  CHECK(r.step.value == Approx(estimate).epsilon(0.02));
}

TEST_CASE("an interleaved pipeline across nodes: engine and estimate receive each transfer alike", "[engine]") {
  // GPT 7.5B (36 layers) on tp 8 x pp 4, one node a stage, 8 microbatches, over 1, 3 and 9 virtual
  // stages: every chunk boundary is a transfer through the NICs. Each is received once the receiver
  // reaches its slot and the sender's data is ready, the slot waiting for it, in the engine
  // (replay.cpp) and in the estimate alike: on an idle network the two agree to rounding. Started at
  // the sender's finish instead, the estimate hid each transfer behind the receiver's previous slot
  // and fell 0.4 %, 1.4 % and 3.9 % short.
  for (int64_t v : {1, 3, 9}) {
    Setup u;
    u.tp = 8;
    u.pp = 4;
    u.recompute = "none";
    u.schedule = v > 1 ? "interleaved" : "1f1b";
    u.virtual_stages = v;
    const Scenario s = scenario(u);
    const Pipeline p = build(s);
    const double estimate = estimate_step(s, p, CommCosts(s)).step.value;
    const EngineResult r = simulate_step(s, p);
    INFO("v " << v << ": engine " << r.step.value << " s, estimate " << estimate << " s");
    CHECK(r.step.value == Approx(estimate).epsilon(0.001));
  }
}

TEST_CASE("zero-bubble schedules: engine and estimate agree, and the weight gradients fill 1F1B's bubble", "[engine]") {
  // tp 8 fills each node: four stages on four nodes, 16 microbatches (>= 2p - 1, so ZB-H2's warm-up
  // fills). Each rank starts its next step as it ends (StepProgram::overlaps_steps): engine and
  // estimate time the step alike, from each rank's first task. The weight gradients are a part of
  // the backward, so the step shrinks from 1F1B's (Qi et al. 2024 §2: bubble (p-1)(F + B + W) ->
  // (p-1)(F + B - W) -> (p-1)(F + B - 2W)) yet stays above the busiest rank's own work.
  Setup u;
  u.tp = 8;
  u.pp = 4;
  u.global_batch = 16;
  double step[4];
  int k = 0;
  for (const char* schedule : {"1f1b", "zb_h1", "zb_h2", "zb_v"}) {  // zb_v: two chunks a rank, in a V
    u.schedule = schedule;
    const Scenario s = scenario(u);
    const Pipeline p = build(s);
    CHECK(p.steps.splits_backward == (k > 0));
    CHECK(p.steps.v_shape == (k == 3));
    step[k++] = engine_agrees_with_estimate(s, p, schedule);
  }
  CHECK(step[1] < step[0]);
  CHECK(step[2] < step[1]);
}

TEST_CASE("DualPipe and DualPipeV: engine and estimate agree, and each rank's work is its two chunks'", "[engine]") {
  // Four stages on four nodes, 16 microbatches (at least 2 pp, even). DualPipe runs two model
  // copies, each rank a stage of each, half the microbatches entering at either end; DualPipeV one
  // copy in a V. Engine and estimate time the pairs (a forward and a backward run as one, both
  // inputs before, both outputs after) alike.
  Setup u;
  u.tp = 8;
  u.pp = 4;
  u.global_batch = 16;
  for (const char* schedule : {"dualpipe", "dualpipe_v"}) {
    u.schedule = schedule;
    const Scenario s = scenario(u);
    const Pipeline p = build(s);
    CHECK(p.steps.splits_backward);
    CHECK(p.steps.v_shape);
    CHECK(p.microbatches == (std::string(schedule) == "dualpipe" ? 8 : 16));  // per chunk
    int64_t pairs = 0;
    for (const auto& program : p.steps.ranks)
      for (const StepSlot& slot : program) pairs += slot.beside >= 0 ? 1 : 0;
    CHECK(pairs > 0);
    engine_agrees_with_estimate(s, p, schedule);
  }
}

TEST_CASE("a data-parallel all-reduce over a 4 x 4 x 4 torus takes its bandwidth bound + latency", "[engine]") {
  // dp 64 on one torus of 50 GB/s ICI links (B): the torus algorithm keeps each chip's six links
  // busy, 2(n-1)/n S / (6 B eff) (sim/cost/torus_collective.hpp), plus its latency, base +
  // 2 (3 + 3 + 3) steps, plus the one ICI hop's latency of each flow (1 us; a chip's port to its
  // router has none).
  const Scenario s = scenario(engine_test::dp64_on_4x4x4());
  const Pipeline p = build(s);
  const size_t v = dp_task(p, 0);
  const double S = p.graph[v].dp_bytes.total(), n = 64;
  const auto& k = s.cluster.device.collectives;
  const double expect = 2 * (n - 1) / n * S / (6 * 50e9 * k.scale_up_efficiency) + k.base_latency.value +
                        18 * k.scale_up_step_latency.value + 1e-6;
  const EngineResult r = simulate_step(s, p);
  INFO("S = " << S << " B; engine " << r.spans[v].dp << " s, closed form " << expect << " s");
  CHECK(r.spans[v].dp == Approx(expect).epsilon(0.01));
}

TEST_CASE("engine and estimate route a torus alike: pipeline sends four hops round a ring of 8", "[engine]") {
  // tp 4, pp 2 on a one-dimensional torus of 8 chips: stage 0 holds chips 0-3, stage 1 chips 4-7,
  // so each send goes four hops the + way (a tie) and the four sends share the link 3 -> 4. The
  // estimate prices the sends on the fabric's routes; the engine's SimGrid routes must be the same
  // links for the two to agree.
  Setup u;
  u.tp = 4;
  u.pp = 2;
  u.global_batch = 16;
  const Scenario s = scenario(
      engine_test::on_torus(u, R"({"kind": "torus", "dims": [8], "bandwidth": "50 GB/s", "latency": "1 us"})"));
  const Pipeline p = build(s);
  const double estimate = estimate_step(s, p, CommCosts(s)).step.value;
  const EngineResult r = simulate_step(s, p);
  INFO("engine " << r.step.value << " s, estimate " << estimate << " s");
  CHECK(r.step.value == Approx(estimate).epsilon(0.02));
}

TEST_CASE("engine and estimate route a direct-connect network alike: forwarded sends, stride rings", "[engine]") {
  // Nodes of 4 GPUs whose 4 ports carry the user's stride-3 ring over 8 nodes: neighbouring
  // pipeline stages (a node each, tp 4 pp 8, one microbatch) are 3 circuits apart (1 = 3 x 3 mod
  // 8), forwarded by the two nodes between; and dp 32 over the same nodes, whose ring runs 2
  // channels over the stride, both ways. The estimate prices the transfers on the fabric's routes; the engine's
  // SimGrid routes must be the same circuits for the two to agree.
  const char* out = R"({"kind": "direct", "nics_per_node": 4, "nic_bandwidth": "200 Gb/s", "latency": "1 us",
                        "strides": [3]})";
  for (const auto& [tp, pp, dp] : {std::tuple<int64_t, int64_t, int64_t>{4, 8, 1}, {1, 1, 32}}) {
    Setup u;
    u.model = "gpt-1.7b";
    u.tp = tp;
    u.pp = pp;
    u.dp = dp;
    u.global_batch = dp;  // one microbatch: the sends run one at a time
    u.gpus_per_node = 4;
    u.nics_per_node = 4;
    u.scale_out = out;
    const Scenario s = scenario(u);
    const Pipeline p = build(s);
    const double estimate = estimate_step(s, p, CommCosts(s)).step.value;
    const EngineResult r = simulate_step(s, p);
    INFO("tp " << tp << " pp " << pp << " dp " << dp << ": engine " << r.step.value << " s, estimate " << estimate
               << " s");
    CHECK(r.step.value == Approx(estimate).epsilon(0.02));
  }
}

TEST_CASE("folded rank classes agree with full fidelity within 1% up to 256 GPUs", "[engine]") {
  // All members of a rank class do the same work at equivalent positions, so simulating one per
  // class (transfers scaled by the members sharing a NIC) must give the step of simulating all.
  // With 2 NICs per node four GPUs share a NIC: for tp 8 or tp 4 all four belong to the class that
  // crosses the node boundary, so folding's factor of 4 is exact; for tp 2, pp 8 only two of them
  // send at the boundary and folding charges 4 (about +0.6%, still inside the 1%).
  struct Case {
    int64_t tp, pp, dp, nics_per_node;
  };
  for (const Case& c : {Case{4, 2, 2, 8}, Case{2, 4, 4, 8}, Case{8, 2, 4, 8}, Case{8, 2, 2, 2}, Case{4, 4, 2, 2},
                        Case{8, 4, 8, 8}, Case{2, 8, 1, 2}, Case{1, 8, 2, 2}}) {
    Setup u;
    u.tp = c.tp, u.pp = c.pp, u.dp = c.dp, u.nics_per_node = c.nics_per_node;
    u.global_batch = 8 * c.dp;  // 8 microbatches
    const Scenario s = scenario(u);
    const Pipeline p = build(s);
    const EngineResult folded = simulate_step(s, p, EngineOptions{false, {}});
    const EngineResult full = simulate_step(s, p, EngineOptions{true, {}});
    INFO(std::setprecision(10) << "tp " << c.tp << " pp " << c.pp << " dp " << c.dp << " nics/node " << c.nics_per_node
                               << ": folded " << folded.step.value << " s (" << folded.actors << " actors), full "
                               << full.step.value << " s (" << full.actors << " actors)");
    CHECK(full.actors == c.tp * c.pp * c.dp);
    CHECK(folded.actors == c.pp);
    CHECK(folded.step.value == Approx(full.step.value).epsilon(0.01));
  }
}

TEST_CASE("an oversubscribed fabric slows a cross-pod data-parallel all-reduce", "[engine]") {
  // tp 8 per node, dp 4 over four nodes, pods of two nodes: the dp ring crosses the pod uplinks.
  // With oversubscription 4 an uplink carries a quarter of its pod's NIC bandwidth, so the
  // reduction must take longer than on a full-bisection fabric (invariant, no closed form).
  Setup u;
  u.model = "gpt-1.7b";
  u.tp = 8;
  u.dp = 4;
  u.global_batch = 4;
  u.pod_gpus = 16;
  u.oversubscription = 1;
  const Scenario flat = scenario(u);
  u.oversubscription = 4;
  const Scenario thin = scenario(u);
  const Pipeline p = build(flat);
  const size_t v = dp_task(p, 0);
  const EngineResult a = simulate_step(flat, p), b = simulate_step(thin, p);
  INFO("dp all-reduce: oversubscription 1 " << a.spans[v].dp << " s, oversubscription 4 " << b.spans[v].dp << " s");
  CHECK(b.spans[v].dp > a.spans[v].dp * 1.05);
  CHECK(b.step.value > a.step.value);
}

TEST_CASE("overlapping the gradient reduction with backward hides it, and engine and estimate agree on it",
          "[engine]") {
  // tp 2, pp 2, dp 4 on 16 GPUs: dp rings cross nodes. With --overlap-grad-reduce each layer's
  // gradient bucket is reduced during the last microbatch's backward, so (invariants) the step
  // is no longer and the exposed reduction is shorter than without overlap, but never shorter
  // than NCCL's latency terms, which are still paid once at the end; the closed-form estimate
  // queues the buckets on one channel, the engine shares links among them, and both see no
  // contention here, so they agree within 2%.
  for (bool overlap : {false, true}) {
    Setup u;
    u.model = "gpt-7.5b";
    u.tp = 2, u.pp = 2, u.dp = 4;
    u.global_batch = 32, u.micro_batch = 1;
    Scenario s = scenario(u);
    s.plan.overlap_grad_reduce = overlap;
    const Pipeline p = build(s);
    const EngineResult r = simulate_step(s, p);
    const double estimate = estimate_step(s, p, CommCosts(s)).step.value;
    INFO("overlap " << overlap << ": engine " << r.step.value << " s, estimate " << estimate << " s");
    CHECK(r.step.value == Approx(estimate).epsilon(0.02));
    if (!overlap) continue;
    s.plan.overlap_grad_reduce = false;
    const Pipeline plain = build(s);
    const EngineResult base = simulate_step(s, plain);
    const size_t v = dp_task(p, 0), w = dp_task(plain, 0);
    CHECK(r.step.value <= base.step.value);
    CHECK(r.spans[v].dp < base.spans[w].dp);
    // The engine pays the largest latency term of the buckets' all-reduces: at least any one's.
    Bytes bucket;
    for (size_t t = 0; t < boost::num_vertices(p.graph); ++t)
      if (p.graph[t].rank == 0 && !p.graph[t].dp_buckets.empty()) bucket = p.graph[t].dp_buckets.front().dense;
    REQUIRE(bucket.value > 0);
    CHECK(r.spans[v].dp >= CommCosts(s).dp_latency(0, bucket).value);
  }
}

namespace {

// tp 2, cp 2, dp 2 on one DGX A100 (the cp group is two GPUs on NVLink), gpt-1.7b, micro-batch 1.
Scenario cp_scenario() {
  Setup u;
  u.model = "gpt-1.7b";
  u.tp = 2, u.dp = 4;  // 8 GPUs, then split dp 4 into cp 2 x dp 2
  u.global_batch = 4, u.micro_batch = 1;
  Scenario s = scenario(u);
  s.plan.cp = 2;
  s.plan.dp = 2;
  s.training.attention = Attention::UNFUSED;  // the attention core as separate kernels (below)
  return s;
}

// The all-gather of the whole sequence's K and V over cp, S = 2 (bytes) * b * s * 2 * kv_heads *
// d / tp: (n-1)/n * S / (B * eff) + base + (n-1) * step (NCCL's tuning.cc) + the two NVLink
// port latencies.
double cp_gather_closed_form(const Scenario& s) {
  const auto& k = s.cluster.device.collectives;
  const double n = 2, S = 2.0 * 1 * 2048 * 2 * double(s.model.kv_heads * s.model.head_dim()) / 2;
  return (n - 1) / n * S / (s.cluster.scale_up.bandwidth.value * k.scale_up_efficiency) + k.base_latency.value +
         (n - 1) * k.scale_up_step_latency.value + 2 * s.cluster.scale_up.latency.value;
}

}  // namespace

TEST_CASE("context-parallel K/V exchange costs the ring all-gather and reduce-scatter closed forms", "[engine]") {
  // cp_comm all_gather: per layer, forward gathers K and V and backward reduce-scatters their
  // gradients, each the closed form above. The engine's cp time of a forward task is (layers in
  // the chunk) times that, and engine and estimate agree.
  Scenario s = cp_scenario();
  s.plan.cp_comm = ParallelPlan::CpComm::ALL_GATHER;
  const Pipeline p = build(s);
  const double one = cp_gather_closed_form(s);
  const EngineResult r = simulate_step(s, p);
  size_t fwd = 0;
  while (p.graph[fwd].kind != TaskKind::FORWARD) ++fwd;
  INFO("engine cp " << r.spans[fwd].cp << " s, closed form " << one << " s x " << s.model.layers << " layers");
  CHECK(r.spans[fwd].cp == Approx(one * double(s.model.layers)).epsilon(0.01));
  CHECK(r.step.value == Approx(estimate_step(s, p, CommCosts(s)).step.value).epsilon(0.02));
}

TEST_CASE("context parallel's ring hides each key/value transfer behind attention on the block before", "[engine]") {
  // The setup above on 6 GB/s NVLink with cp_comm p2p (the default): the forward passes the same
  // bytes around the ring of n = 2 as the all-gather, C (its closed form), beside the attention
  // core's kernels G (scores, softmax, dropout, context: unfused here), so each layer's forward
  // shows (n-1) max(0, C/(n-1) - G/n); engine and estimate agree.
  Scenario s = cp_scenario();
  s.cluster.scale_up.bandwidth = BytesPerSecond(6e9);  // slow NVLink: the transfer outlasts a block
  REQUIRE(s.plan.cp_comm == ParallelPlan::CpComm::P2P);
  const Pipeline p = build(s);
  const double n = 2, C = cp_gather_closed_form(s);
  const ComputeModel cm(s.cluster.device, s.training.precision);
  double G = 0;
  for (const Op& op : layer_ops(s, 1).forward)
    if (op.attention_core && op.cls == OpClass::GEMM)
      G += cm.gemm(op.shape, op.bytes, op.precision).value;
    else if (op.attention_core && op.cls == OpClass::MEMORY)
      G += cm.memory_op(op.bytes).value;
  const double shown = (n - 1) * std::max(0.0, C / (n - 1) - G / n);
  CHECK(shown > 0);  // the transfer outlasts attention on one block here: partly exposed
  CHECK(shown < C);  // and partly hidden
  const EngineResult r = simulate_step(s, p);
  size_t fwd = 0;
  while (p.graph[fwd].kind != TaskKind::FORWARD) ++fwd;
  INFO("engine cp " << r.spans[fwd].cp << " s; C " << C << " s, G " << G << " s per layer");
  CHECK(r.spans[fwd].cp == Approx(shown * double(s.model.layers)).epsilon(0.01));
  CHECK(r.step.value == Approx(estimate_step(s, p, CommCosts(s)).step.value).epsilon(0.02));
}

TEST_CASE("full fidelity beyond 65,536 GPUs is an input error naming the limit", "[engine]") {
  // tp 8 x dp 8200 = 65,600 GPUs: one actor per GPU would be too many; nothing is simulated.
  Setup u;
  u.model = "gpt-1.7b";
  u.tp = 8;
  u.dp = 8200;
  u.global_batch = 8200;
  const Scenario s = scenario(u);
  const Pipeline p = build(s);
  const std::string what = error_of([&] { simulate_step(s, p, EngineOptions{true, {}}); });
  CHECK_THAT(what,
             Catch::Contains("/cluster/gpus: --fidelity full would simulate 65600 GPUs, more than the limit of 65536"));
}

TEST_CASE(
    "a tensor-parallel group across two nodes runs live: class and full fidelity agree, and it is never "
    "faster than on an idle network",
    "[engine]") {
  // tp 16 on 8-GPU nodes: every tensor-parallel collective leaves the node, so the engine runs
  // it live on the fabric (replay.cpp run_live) beside the gradient reductions and pipeline
  // transfers instead of replaying a probe. Class and full fidelity must agree (within 2%), and
  // sharing links can only slow a collective: each task's tensor-parallel time is at least the
  // closed-form estimate's on the idle network (the same flows, comm_costs.hpp), less 0.1% for
  // whole-byte rounding of the flows.
  Setup u;
  u.tp = 16, u.pp = 2, u.dp = 2;
  u.global_batch = 4, u.micro_batch = 1;
  const Scenario s = scenario(u);
  const Pipeline p = build(s);
  const EngineResult cls = simulate_step(s, p);
  const EngineResult full = simulate_step(s, p, EngineOptions(true));
  CHECK(cls.step.value == Approx(full.step.value).epsilon(0.02));
  const CommCosts comm(s);
  int checked = 0;
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) {
    double idle = 0;
    for (const auto& use : p.graph[v].collectives)
      if (use.group == CommGroup::TP) idle += comm.group_collective(use.group, use.kind, use.bytes).value * use.count;
    if (idle <= 0) continue;
    INFO("task " << v);
    CHECK(cls.spans[v].tp >= idle * 0.999);
    ++checked;
  }
  CHECK(checked > 0);
}
