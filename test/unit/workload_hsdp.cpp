// Hybrid sharding (parallelism.dp_shard, ZeRO-3 only; sim/comm/ring_channels.hpp,
// grad_groups): the state is sharded over groups of dp_shard consecutive data-parallel ranks and
// replicated over dp / dp_shard of them. Per layer a shard group gathers the weights (twice when
// resharded after the forward) and reduce-scatters the gradients, and then each shard's replicas
// all-reduce its gradient. The expectations are those rules written out on the member lists, the
// ring's closed form and the model's parameter count.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/comm/comm_costs.hpp"
#include "sim/comm/comm_plan.hpp"
#include "sim/comm/ring_channels.hpp"
#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/placement.hpp"
#include "sim/workload/grad_sync.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/stage_layout.hpp"
#include "test/unit/input_error_of.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

// GPT 1.7B data-parallel over dp 16 on two DGX A100 nodes, ZeRO `zero`, the ring forced;
// `shard` 0: no dp_shard key.
Scenario gpt(int64_t zero, int64_t shard) {
  const std::string text = fill(
      R"({"kind": "scenario", "name": "hsdp", "model": "gpt-1.7b",
    "cluster": {"from": "dgx-a100-superpod", "gpus": 16},
    "parallelism": {"tp": 1, "pp": 1, "dp": 16, "zero": {z}, "overlap_grad_reduce": true{s},
                    "collective_algorithms": {"all_reduce": "ring"}},
    "training": {"seq_len": 2048, "global_batch": 16, "micro_batch": 1}})",
      {{"z", std::to_string(zero)}, {"s", shard != 0 ? ", \"dp_shard\": " + std::to_string(shard) : std::string()}});
  return parse_scenario(ParamReader::from_text(text, "workload_hsdp.cpp"), TRAINSIM_SOURCE_DIR);
}

// Bytes GPU `gpu` sends in all the gradient-reduction collectives of a step whose buckets sum to
// `buffer` all-reduce bytes.
double sent_by(const Scenario& s, int64_t gpu, Bytes buffer) {
  const Placement place(s.cluster, s.plan);
  const auto fabric = Fabric::of(s.cluster);
  const CommPlan plan(s, place, *fabric);
  double sent = 0;
  for (int64_t g = 0; g < grad_groups(s.plan); ++g) {
    const CommOp op = plan.collective(CollectiveKind::ALL_REDUCE, dp_group(s.plan, place, 0, g),
                                      buffer * grad_group_share(s.plan, g));
    for (const auto& f : op.flows)
      if (f.from == gpu) sent += f.bytes.value;
  }
  return sent;
}

// The parameters each GPU holds (tp 1, pp 1: the whole model's).
double gpu_params(const Scenario& s) { return rank_params(s, make_stage_layout(s.model, s.plan, 1, s.file), 0); }

double step_buffer(const Scenario& s) {
  const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
  double total = 0;
  for (const GradBucket& b : grad_buckets(s, layout, 0, 0)) total += b.total();
  return total;
}

}  // namespace

TEST_CASE("hsdp: shard groups of dp_shard consecutive ranks, then each shard's replicas", "[workload]") {
  const Scenario s = gpt(3, 4);
  const Placement place(s.cluster, s.plan);
  CHECK(s.plan.shard_group_size() == 4);
  CHECK(s.plan.replicas() == 4);
  REQUIRE(grad_groups(s.plan) == 8);  // 4 shard groups, then 4 groups of a shard's replicas
  for (int64_t g = 0; g < 4; ++g) {
    CHECK(dp_group(s.plan, place, 0, g) == std::vector<int64_t>{4 * g, 4 * g + 1, 4 * g + 2, 4 * g + 3});
    CHECK_FALSE(replicates(s.plan, g));
    CHECK(grad_group_share(s.plan, g) == 1.0);
  }
  for (int64_t k = 0; k < 4; ++k) {
    CHECK(dp_group(s.plan, place, 0, 4 + k) == std::vector<int64_t>{k, k + 4, k + 8, k + 12});
    CHECK(replicates(s.plan, 4 + k));
    // The shard's gradient, 1/4 of the layer's, against the bucket's 1.5 all-reduces of it.
    CHECK(grad_group_share(s.plan, 4 + k) == Approx(1.0 / (1.5 * 4)));
  }
  // Without dp_shard (or with dp_shard = dp): one group of all 16, as before.
  for (const Scenario& full : {gpt(3, 0), gpt(3, 16), gpt(1, 0)}) {
    REQUIRE(grad_groups(full.plan) == 1);
    CHECK(dp_group(full.plan, place, 0, 0).size() == 16);
    CHECK(full.plan.replicas() == 1);
  }
}

TEST_CASE("hsdp: the bytes each GPU sends per step, against the ring's closed form", "[workload]") {
  // P parameters per GPU in fp32 gradient buffers (g = 4 bytes, the default), resharded after the
  // forward: the buckets sum to B = 1.5 g P all-reduce bytes. A ring all-reduce of b over n
  // members sends 2 (n - 1)/n b from each. FULL_SHARD over 16: 2 (15/16) B. HSDP, shards of 4
  // replicated 4 times: 2 (3/4) B in the shard group, then 2 (3/4) (g P / 4) among the replicas.
  const Scenario full = gpt(3, 0), hybrid = gpt(3, 4);
  const double P = gpu_params(full), g = 4, B = 1.5 * g * P;
  CHECK(step_buffer(full) == Approx(B));
  CHECK(step_buffer(hybrid) == Approx(B));
  CHECK(sent_by(full, 0, Bytes(B)) == Approx(2.0 * 15 / 16 * B));
  CHECK(sent_by(hybrid, 0, Bytes(B)) == Approx(2.0 * 3 / 4 * B + 2.0 * 3 / 4 * (g * P / 4)));
  CHECK(sent_by(hybrid, 13, Bytes(B)) == Approx(sent_by(hybrid, 0, Bytes(B))));  // every GPU alike
}

TEST_CASE("hsdp: the state is sharded over the shard group, not over dp", "[workload]") {
  // Weights (2 bytes), gradients (4) and Adam's fp32 state (12) per parameter, each over the 4 of
  // a shard group instead of the 16 of dp.
  const Scenario full = gpt(3, 0), hybrid = gpt(3, 4);
  const double P = gpu_params(full);
  auto stage = [](const Scenario& s) {
    return estimate_memory(s, make_stage_layout(s.model, s.plan, 1, s.file), 1).stages[0];
  };
  const StageMemory f = stage(full), h = stage(hybrid);
  CHECK(f.weights.value == Approx(2 * P / 16));
  CHECK(h.weights.value == Approx(2 * P / 4));
  CHECK(h.grads.value == Approx(4 * P / 4));
  CHECK(h.optimizer.value == Approx(12 * P / 4));
}

TEST_CASE("hsdp: the estimate's reduction pays the shard group's and then the replicas' latency", "[workload]") {
  const Scenario full = gpt(3, 0), hybrid = gpt(3, 4);
  const CommCosts c(hybrid);
  const Placement place(hybrid.cluster, hybrid.plan);
  const auto fabric = Fabric::of(hybrid.cluster);
  const CommPlan plan(hybrid, place, *fabric);
  const Bytes b(64e6);
  const double shard = plan.choose(CollectiveKind::ALL_REDUCE, dp_group(hybrid.plan, place, 0, 0), b).latency.value;
  const double replicas =
      plan.choose(CollectiveKind::ALL_REDUCE, dp_group(hybrid.plan, place, 0, 4), b * (1.0 / 6)).latency.value;
  CHECK(c.dp_latency(0, b).value == Approx(shard + replicas));
  CHECK(replicas > 0);
}

TEST_CASE("hsdp: dp_shard is read strictly", "[workload]") {
  CHECK_THAT(error_of([] { gpt(1, 4); }),
             Catch::Contains("/parallelism/dp_shard: shards ZeRO-3's (FSDP's) state, and zero is 1"));
  CHECK_THAT(error_of([] { gpt(3, 5); }), Catch::Contains("/parallelism/dp_shard: 5 does not divide dp=16"));
  CHECK_THAT(error_of([] { gpt(3, -2); }), Catch::Contains("/parallelism/dp_shard:"));
  CHECK_NOTHROW(gpt(1, 16));  // dp_shard = dp shards nothing differently
}
