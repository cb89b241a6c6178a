// The plans `trainsim search` enumerates (workload/plan_space.hpp), checked against counts worked
// out by hand and against the invariants every plan must satisfy.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <tuple>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/plan_space.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

Scenario scenario(int64_t gpus, int64_t heads, int64_t layers, int64_t global_batch) {
  const std::string text = fill(R"({"kind": "scenario", "name": "space",
    "model": {"name": "m", "layers": {layers}, "hidden": {hidden}, "heads": {heads}, "kv_heads": {heads},
              "ffn_hidden": 24576, "vocab": 51200, "activation": "gelu"},
    "cluster": {"gpu": "a100-sxm-80gb", "gpus": {gpus}, "gpus_per_node": 8,
                "scale_up": {"kind": "nvswitch", "bandwidth": "300 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "200 Gb/s"}},
    "parallelism": {"tp": 1, "pp": 1, "dp": "auto"},
    "training": {"seq_len": 2048, "global_batch": {batch}, "micro_batch": "auto"}})",
                                {{"gpus", std::to_string(gpus)},
                                 {"hidden", std::to_string(128 * heads)},
                                 {"heads", std::to_string(heads)},
                                 {"layers", std::to_string(layers)},
                                 {"batch", std::to_string(global_batch)}});
  // As `trainsim search` reads it: sections only, the placeholder plan not cross-checked.
  return parse_scenario_sections(ParamReader::from_text(text, "workload_plan_space.cpp"), TRAINSIM_SOURCE_DIR);
}

}  // namespace

TEST_CASE("16 GPUs, 8 per node: tp in {1,2,4,8}, pp dividing 16/tp, SP off/on for tp > 1, three recomputes",
          "[workload]") {
  // Divisors of 16/tp: tp 1 -> 5 (1,2,4,8,16), tp 2 -> 4, tp 4 -> 3, tp 8 -> 2. SP doubles tp > 1.
  const size_t expected = 3 * (5 * 1 + 4 * 2 + 3 * 2 + 2 * 2);  // 69
  const Scenario s = scenario(16, 32, 36, 64);
  const auto space = plan_space(s);
  CHECK(space.size() == expected);
  std::set<std::tuple<int64_t, int64_t, bool, int>> seen;
  for (const auto& c : space) {
    CHECK(c.tp * c.pp * c.dp == 16);
    CHECK(s.training.global_batch % c.dp == 0);
    CHECK((c.tp > 1 || !c.sequence_parallel));
    CHECK(seen.insert({c.tp, c.pp, c.sequence_parallel, static_cast<int>(c.recompute)}).second);
  }
  // The first plan is the least split: tp 1, pp 1 (dp 16), no recompute.
  CHECK(space.front().tp == 1);
  CHECK(space.front().pp == 1);
  CHECK(space.front().recompute == Recompute::NONE);
}

TEST_CASE("a scenario running torchtitan's per-op checkpointing also gets it on every plan that can run it",
          "[workload]") {
  // The 69 plans above, plus op where tp = 1 or sequence parallelism is on: tp 1 -> 5 plans,
  // tp 2 -> 4, tp 4 -> 3, tp 8 -> 2 (each with SP on only): 14 more.
  Scenario s = scenario(16, 32, 36, 64);
  s.training.recompute = Recompute::OP;
  size_t op = 0;
  for (const auto& c : plan_space(s))
    if (c.recompute == Recompute::OP) {
      ++op;
      CHECK((c.tp == 1 || c.sequence_parallel));
    }
  CHECK(op == 5 + 4 + 3 + 2);
  CHECK(plan_space(s).size() == 69 + op);
}

TEST_CASE("the model and the batch restrict the plans", "[workload]") {
  // 12 heads: tp 8 does not divide them, so tp in {1, 2, 4}. 4 layers: pp <= 4.
  // Global batch 4: dp in {1, 2, 4}, i.e. tp*pp >= 4 of 16 GPUs.
  // tp 1: pp 4 (dp 4)                       -> 1 plan
  // tp 2: pp 2 (dp 4), pp 4 (dp 2)          -> 2, times SP off/on
  // tp 4: pp 1 (dp 4), pp 2 (dp 2), pp 4 (dp 1) -> 3, times SP off/on
  const Scenario s = scenario(16, 12, 4, 4);
  const auto space = plan_space(s);
  CHECK(space.size() == 3 * (1 + 2 * 2 + 3 * 2));
  for (const auto& c : space) {
    CHECK(12 % c.tp == 0);
    CHECK(c.pp <= 4);
    CHECK(4 % c.dp == 0);
  }
}

TEST_CASE("no plan when nothing divides", "[workload]") {
  // 8 GPUs and a global batch of 1: dp must be 1, so pp = 8/tp; 1 layer allows pp 1 only, and
  // tp 8 would need 8 heads: 3 heads divide no tp > 1 except 3, which does not divide 8.
  CHECK(plan_space(scenario(8, 3, 1, 1)).empty());
}
