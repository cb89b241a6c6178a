// ZeRO-3 without a pipeline as DeepSpeed and FSDP run it (ParallelPlan::shards_each_microbatch):
// every microbatch gathers every unit's weights for its forward and again for its backward, and
// reduce-scatters its gradients. On nodes whose one NIC is the bottleneck, the step of a
// communication-bound job follows from the link budget alone, whatever the number of GPUs: each
// GPU moves every parameter three times per microbatch, through its node's NIC.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iomanip>

#include "sim/comm/comm_costs.hpp"
#include "sim/engine/engine.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/workload/memory.hpp"
#include "test/unit/engine_scenario.hpp"

using namespace engine_test;

namespace {

// GPT 7.5B (Narayanan et al. 2021 Table 1) on DGX A100 nodes with one 100 Gb/s NIC per node,
// ZeRO-3 over every GPU, overlapped (FSDP's prefetch), weights resharded after the forward, no
// recompute. `thin`: one 100 Gb/s NIC a node, else DGX A100's eight of 200 Gb/s.
Scenario zero3(int64_t gpus, int64_t global_batch, int64_t micro_batch, bool thin = true) {
  Setup u;
  u.dp = gpus;
  u.global_batch = global_batch;
  u.micro_batch = micro_batch;
  if (thin)
    u.scale_out = R"({"kind": "fat-tree", "nics_per_node": 1, "nic_bandwidth": "100 Gb/s", "latency": "1 us",
                     "oversubscription": 1})";
  u.recompute = "none";
  Scenario s = scenario(u);
  s.plan.zero = 3;
  s.plan.overlap_grad_reduce = true;
  s.plan.reshard_after_forward = true;
  return s;
}

// The link budget of one microbatch: a ring all-gather or reduce-scatter of a buffer B over n
// GPUs carries (n - 1)/n B across every node boundary it passes, all of a node's rings through its
// one NIC; per microbatch the weights are gathered twice in bf16 (2 bytes) and the gradients
// reduce-scattered in fp32 (grad_reduce_in_fp32, 4 bytes).
double microbatch_link_budget(const Scenario& s) {
  const double n = static_cast<double>(s.plan.dp), params = s.model.total_params();
  const double bytes_per_param = 2.0 + 2.0 + 4.0;
  const double nic = 100e9 / 8;  // bytes/s
  return (n - 1) / n * params * bytes_per_param / nic;
}

}  // namespace

TEST_CASE("ZeRO-3 at fixed batch: a communication-bound step stays at its link budget as GPUs double",
          "[engine][zero3]") {
  // Global batch 128 sequences over 32, 64 and 128 GPUs (4, 8 and 16 nodes), one microbatch each
  // (4, 2, 1 sequences): the computation per GPU halves with each doubling, the traffic per GPU
  // does not.
  for (const int64_t gpus : {32, 64, 128}) {
    const Scenario s = zero3(gpus, 128, 128 / gpus);
    REQUIRE(s.plan.shards_each_microbatch());
    const Pipeline p = build(s);
    const double budget = microbatch_link_budget(s);
    // Communication-bound: every task's computation is shorter than its traffic (a forward's one
    // gather is a quarter of the microbatch's bytes, a backward's gather and reduce-scatter the rest).
    for (const Task& t : p.steps.tasks) {
      if (t.kind == TaskKind::FORWARD) REQUIRE(t.compute.value < budget / 4);
      if (t.kind == TaskKind::BACKWARD) REQUIRE(t.compute.value < budget * 3 / 4);
    }
    const double engine = simulate_step(s, p).step.value;
    const double estimate = estimate_step(s, p, CommCosts(s)).step.value;
    INFO(std::setprecision(6) << gpus << " GPUs: engine " << engine << " s, estimate " << estimate << " s, link budget "
                              << budget << " s");
    // Within 10 %: NCCL's latency terms and the optimizer step come on top of the bytes.
    CHECK(engine == Approx(budget).epsilon(0.10));
    CHECK(engine >= budget * 0.999);
    CHECK(estimate == Approx(engine).epsilon(0.02));
  }
}

TEST_CASE("ZeRO-3 gathers and reduces again for every microbatch", "[engine][zero3]") {
  // 32 GPUs, micro-batch 1: global batch 32 is one microbatch per GPU, 96 three; the traffic, and
  // with it the communication-bound step, triples.
  const Scenario one = zero3(32, 32, 1), three = zero3(32, 96, 1);
  const double t1 = simulate_step(one, build(one)).step.value;
  const double t3 = simulate_step(three, build(three)).step.value;
  INFO(std::setprecision(6) << "1 microbatch " << t1 << " s, 3 microbatches " << t3 << " s");
  CHECK(t3 == Approx(3 * microbatch_link_budget(three)).epsilon(0.10));
  CHECK(t3 / t1 == Approx(3.0).epsilon(0.05));
}

TEST_CASE("ZeRO-3 on two nodes: class and full fidelity agree, and the gathers run as rings", "[engine][zero3]") {
  // 16 GPUs, two microbatches each. Over two nodes NCCL would run an all-reduce as a tree, which
  // carries half a ring's bytes across the nodes; an all-gather or a reduce-scatter has no tree,
  // so the step is still two microbatches' link budget.
  const Scenario s = zero3(16, 32, 1);
  const Pipeline p = build(s);
  const EngineResult cls = simulate_step(s, p), full = simulate_step(s, p, EngineOptions(true));
  INFO(std::setprecision(12) << "class " << cls.step.value << " s, full " << full.step.value << " s, budget "
                             << 2 * microbatch_link_budget(s) << " s");
  CHECK(cls.step.value == Approx(full.step.value).epsilon(1e-6));
  CHECK(cls.step.value == Approx(2 * microbatch_link_budget(s)).epsilon(0.10));
}

TEST_CASE("ZeRO-3 bound by its computation: each pass waits for its first unit's gather alone", "[engine][zero3]") {
  // 32 GPUs with eight 200 Gb/s NICs a node, micro-batch 4: the gathers hide behind the kernels
  // but the first layer's, which a pass's kernels wait for (FSDP's pre-forward and pre-backward
  // hooks of its first unit). Each forward's data-parallel wait is that one gather on an idle
  // network (CommCosts' closed form of its flows) and, after its kernels, only the largest NCCL
  // latency term of the others (the engine pays a reduction's latency terms when it is awaited, as
  // the step's last reduction does: at most one collective's per task).
  const Scenario s = zero3(32, 128, 4, false);
  const Pipeline p = build(s);
  const CommCosts comm(s);
  const EngineResult r = simulate_step(s, p);
  int64_t forwards = 0;
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) {
    const Task& t = p.graph[v];
    if (t.kind != TaskKind::FORWARD) continue;
    ++forwards;
    const double first = comm.dp_all_reduce(t.rank, t.dp_gathers.front()).value;
    double all = 0, latency = 0;
    for (const GradBucket& b : t.dp_gathers) all += comm.dp_transfer(t.rank, b).value;
    for (size_t g = 1; g < t.dp_gathers.size(); ++g)
      latency = std::max(latency, comm.dp_latency(t.rank, t.dp_gathers[g]).value);
    INFO("forward " << forwards << ": waited " << r.spans[v].dp << " s, first gather " << first << " s, all " << all
                    << " s, kernels " << t.compute.value << " s");
    REQUIRE(all < t.compute.value);  // bound by its computation
    CHECK(r.spans[v].dp == Approx(first + latency).epsilon(0.02));
    CHECK(latency < first / 4);
  }
  CHECK(forwards == 1);
}
