// The plans `trainsim search` enumerates (workload/plan_space.hpp), checked against counts worked
// out by hand and against the invariants every plan must satisfy.
#include "sim/plan/plan_space.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <tuple>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

// `moe`: the model's "moe" object, or "" for a dense model.
Scenario scenario(int64_t gpus, int64_t heads, int64_t layers, int64_t global_batch,
                  const std::string& gpu = "a100-sxm-80gb", const std::string& moe = "") {
  const std::string text = fill(R"({"kind": "scenario", "name": "space",
    "model": {"name": "m", "layers": {layers}, "hidden": {hidden}, "heads": {heads}, "kv_heads": {heads},
              "ffn_hidden": 24576, "vocab": 51200, "activation": "gelu"{moe}},
    "cluster": {"gpu": "{gpu}", "gpus": {gpus}, "gpus_per_node": 8,
                "scale_up": {"kind": "nvswitch", "bandwidth": "300 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "200 Gb/s"}},
    "parallelism": {"tp": 1, "pp": 1, "dp": "auto"},
    "training": {"seq_len": 2048, "global_batch": {batch}, "micro_batch": "auto"}})",
                                {{"gpus", std::to_string(gpus)},
                                 {"hidden", std::to_string(128 * heads)},
                                 {"heads", std::to_string(heads)},
                                 {"layers", std::to_string(layers)},
                                 {"batch", std::to_string(global_batch)},
                                 {"gpu", gpu},
                                 {"moe", moe.empty() ? "" : ", \"moe\": " + moe}});
  // As `trainsim search` reads it: sections only, the placeholder plan not cross-checked.
  return parse_scenario_sections(ParamReader::from_text(text, "plan_space.cpp"), TRAINSIM_SOURCE_DIR);
}

// The plans without their ZeRO stage: (tp, cp, pp, sp, recompute, precision).
using Row = std::tuple<int64_t, int64_t, int64_t, bool, int, int>;
Row row(const PlanChoice& c) {
  return {c.tp, c.cp, c.pp, c.sequence_parallel, static_cast<int>(c.recompute), static_cast<int>(c.precision)};
}

}  // namespace

TEST_CASE(
    "16 GPUs, 8 per node: tp in {1,2,4,8}, cp in {1,2}, pp dividing 16/(tp cp), four schedules where pp > 1, SP "
    "off/on for tp > 1, three recomputes, ZeRO 0-3 where dp > 1",
    "[plan]") {
  // seq_len 2048: cp 2 leaves 1,024 tokens a rank (MIN_CP_TOKENS), cp 4 would leave 512.
  // cp 1, divisors of 16/tp: tp 1 -> 5 (1,2,4,8,16), tp 2 -> 4, tp 4 -> 3, tp 8 -> 2; SP doubles
  // tp > 1: 3 x (5 + 2 (4 + 3 + 2)) = 69 (tp, cp, pp, sp, recompute) rows. cp 2, divisors of 8/tp...:
  // 3 x (4 + 2 (3 + 2 + 1)) = 48; 117 in all. Each with pp > 1 comes with four schedules (the
  // scenario's, zb_h1, zb_h2, zb_v): cp 1 has 1 + 4 x 4 = 17 (tp 1, sp off), 1 + 4 x 3 = 13, 1 + 4 x 2
  // = 9 and 1 + 4 = 5 (tp 2, 4, 8, each twice for sp) schedule rows per recompute, 3 x (17 + 2 (13 + 9
  // + 5)) = 213; cp 2: 3 x (13 + 2 (9 + 5 + 1)) = 129; 342 rows. Each has 4 ZeRO stages but those of
  // dp = 1 (pp = 16/(tp cp), pp > 1 but at tp 8 cp 2: cp 1 3 x 4 (1 + 2 x 3) = 84, cp 2 3 x (4 (1 +
  // 2 x 2) + 2) = 66) only the scenario's 0: 4 x 342 - 3 x 150 = 918 plans.
  const Scenario s = scenario(16, 32, 36, 64);
  const auto space = plan_space(s);
  CHECK(space.size() == 918);
  std::set<Row> rows;
  std::set<std::tuple<Row, int64_t, int>> seen;
  for (const auto& c : space) {
    CHECK(c.tp * c.cp * c.pp * c.dp == 16);
    CHECK((c.cp == 1 || c.cp == 2));
    CHECK(s.training.global_batch % c.dp == 0);
    CHECK((c.tp > 1 || !c.sequence_parallel));
    CHECK(c.precision == Precision::BF16);  // the A100 has no fp8
    CHECK((c.dp > 1 || c.zero == 0));
    CHECK((c.pp > 1 || !c.schedule));
    CHECK((!c.schedule || *c.schedule == Schedule::ZB_H1 || *c.schedule == Schedule::ZB_H2 ||
           *c.schedule == Schedule::ZB_V));  // DualPipe on MoE models only
    rows.insert(row(c));
    CHECK(seen.insert({row(c), c.zero, c.schedule ? static_cast<int>(*c.schedule) : -1}).second);
  }
  CHECK(rows.size() == 117);
  // Plans differing only in the ZeRO stage are adjacent (search keeps the best of each run).
  for (size_t i = 1; i < space.size(); ++i)
    if (space[i].same_but_zero(space[i - 1])) CHECK(space[i].zero == space[i - 1].zero + 1);
  // A scenario that names a schedule keeps it as its own and is not offered it twice: of the 918,
  // the 150 plans with pp 1 (cp 1: 3 x 4 (1 + 2 x 3) = 84; cp 2: 3 x 4 (1 + 2 x 2) + 6 = 66) have no
  // schedule to choose and the other 768 are 4 x 192, one schedule in four: 918 - 192 = 726.
  Scenario zb_v = s;
  zb_v.plan.schedule = Schedule::ZB_V, zb_v.plan.schedule_given = true;
  const auto own = plan_space(zb_v);
  CHECK(own.size() == 726);
  for (const auto& c : own) CHECK((!c.schedule || *c.schedule != Schedule::ZB_V));
  // The first plan is the least split: tp 1, pp 1 (dp 16), no recompute.
  CHECK(space.front().tp == 1);
  CHECK(space.front().pp == 1);
  CHECK(space.front().recompute == Recompute::NONE);
}

TEST_CASE("a scenario running torchtitan's per-op checkpointing also gets it on every plan that can run it", "[plan]") {
  // The 117 rows above, plus op where tp = 1 or sequence parallelism is on: cp 1: tp 1 -> 5 rows,
  // tp 2 -> 4, tp 4 -> 3, tp 8 -> 2 (each with SP on only); cp 2: 4 + 3 + 2 + 1. 24 more.
  Scenario s = scenario(16, 32, 36, 64);
  s.training.recompute = Recompute::OP;
  std::set<Row> op, all;
  for (const auto& c : plan_space(s)) {
    all.insert(row(c));
    if (c.recompute == Recompute::OP) {
      op.insert(row(c));
      CHECK((c.tp == 1 || c.sequence_parallel));
    }
  }
  CHECK(op.size() == 14 + 10);
  CHECK(all.size() == 117 + op.size());
}

TEST_CASE(
    "fp8 is tried beside the scenario's precision where the device has it, and the scenario's own plan is "
    "among the plans",
    "[plan]") {
  // H100: bf16 and fp8 peaks. Every row comes twice, bf16 first.
  Scenario s = scenario(16, 32, 36, 64, "h100-sxm");
  const auto space = plan_space(s);
  CHECK(space.size() == 2 * 918);
  CHECK(space.front().precision == Precision::BF16);
  CHECK(space[4].precision == Precision::FP8);  // after the first row's four ZeRO stages
  // The scenario's plan (tp 4, cp 2, pp 1, dp 2, SP, selective, ZeRO 1) is one of them.
  s.plan.tp = 4, s.plan.cp = 2, s.plan.pp = 1, s.plan.dp = 2, s.plan.zero = 1, s.plan.sequence_parallel = true;
  s.training.recompute = Recompute::SELECTIVE;
  bool own = false;
  for (const auto& c : plan_space(s))
    own = own || (c.tp == 4 && c.cp == 2 && c.pp == 1 && c.dp == 2 && c.sequence_parallel &&
                  c.recompute == Recompute::SELECTIVE && c.zero == 1 && c.precision == Precision::BF16);
  CHECK(own);
  // A cp below MIN_CP_TOKENS a rank is not tried, but the scenario's own is.
  s.plan.cp = 4;
  bool cp4 = false;
  for (const auto& c : plan_space(s)) cp4 = cp4 || c.cp == 4;
  CHECK(cp4);
  s.plan.cp = 1;
  for (const auto& c : plan_space(s)) CHECK(c.cp <= 2);
}

TEST_CASE("the model and the batch restrict the plans", "[plan]") {
  // 12 heads: tp 8 does not divide them, so tp in {1, 2, 4}. 4 layers: pp <= 4.
  // Global batch 4: dp in {1, 2, 4}, i.e. tp*pp >= 4 of 16 GPUs.
  // tp 1: pp 4 (dp 4)                       -> 1 plan
  // tp 2: pp 2 (dp 4), pp 4 (dp 2)          -> 2, times SP off/on
  // tp 4: pp 1 (dp 4), pp 2 (dp 2), pp 4 (dp 1) -> 3, times SP off/on
  // (cp 1 here; cp 2 has its own rows.)
  const Scenario s = scenario(16, 12, 4, 4);
  const auto space = plan_space(s);
  std::set<Row> rows;
  for (const auto& c : space)
    if (c.cp == 1) rows.insert(row(c));
  CHECK(rows.size() == 3 * (1 + 2 * 2 + 3 * 2));
  for (const auto& c : space) {
    CHECK(12 % c.tp == 0);
    CHECK(c.pp <= 4);
    CHECK(4 % c.dp == 0);
  }
}

TEST_CASE("an MoE model's plans try each expert-parallel degree with each dispatcher", "[plan]") {
  // 8 GPUs, 3 heads (tp 1 only), 2 layers (pp 1, 2), seq_len 2048 (cp 1, 2), global batch 8, 8
  // experts. The (cp, pp) rows fold the experts over dp x cp = 8 / pp ranks: ep 2, 4, 8 for pp 1
  // and 2, 4 for pp 2, each with the 3 dispatchers, beside ep 1; pp 2 with 6 schedules (the
  // scenario's, zb_h1, zb_h2, zb_v, dualpipe, dualpipe_v). Each is 3 recomputes x 4 ZeRO stages
  // (dp > 1 everywhere): 12 x ((1 + 3 x 3) + 6 (1 + 3 x 2)) x 2 cp = 1,248 plans.
  const Scenario s = scenario(8, 3, 2, 8, "a100-sxm-80gb", R"({"experts": 8, "top_k": 2})");
  const auto space = plan_space(s);
  CHECK(space.size() == 1248);
  std::set<std::tuple<int64_t, int>> experts;
  for (const auto& c : space) {
    INFO("tp " << c.tp << " cp " << c.cp << " pp " << c.pp << " dp " << c.dp << " ep " << c.ep);
    CHECK(8 % c.ep == 0);
    CHECK((c.tp * c.dp * c.cp) % c.ep == 0);
    if (c.ep > 1) experts.insert({c.ep, static_cast<int>(c.dispatcher)});
  }
  CHECK(experts.size() == 3 * 3);
  // A dense model keeps the scenario's ep 1 alone.
  for (const auto& c : plan_space(scenario(8, 3, 2, 8))) CHECK(c.ep == 1);
}

TEST_CASE("beside tp > 1 the alltoall dispatcher's plans also split the experts over tp", "[plan]") {
  // 8 GPUs, 8 heads (tp 1, 2, 4, 8), 8 experts: a plan splits its experts over tp (etp = tp) only
  // with ep > 1, tp > 1 and the alltoall dispatcher, and where ep divides the dp x cp ranks its
  // groups then span (scenario.cpp); every plan with whole experts that meets those has its twin.
  const Scenario s = scenario(8, 8, 2, 8, "a100-sxm-80gb", R"({"experts": 8, "top_k": 2})");
  using Key = std::tuple<int64_t, int64_t, int64_t, bool, int, int, int64_t, int64_t, int>;
  const auto key = [](const PlanChoice& c) {
    return Key{c.tp,
               c.cp,
               c.pp,
               c.sequence_parallel,
               static_cast<int>(c.recompute),
               static_cast<int>(c.precision),
               c.zero,
               c.ep,
               c.schedule ? static_cast<int>(*c.schedule) : -1};
  };
  std::set<Key> whole, split;
  for (const auto& c : plan_space(s)) {
    INFO("tp " << c.tp << " cp " << c.cp << " pp " << c.pp << " dp " << c.dp << " ep " << c.ep << " etp " << c.etp);
    if (c.etp > 0) {
      CHECK(c.etp == c.tp);
      CHECK(c.tp > 1);
      CHECK(c.ep > 1);
      CHECK(c.dispatcher == Dispatcher::ALLTOALL);
      CHECK((c.dp * c.cp) % c.ep == 0);
      CHECK(split.insert(key(c)).second);
    } else if (c.ep > 1 && c.tp > 1 && c.dispatcher == Dispatcher::ALLTOALL && (c.dp * c.cp) % c.ep == 0) {
      whole.insert(key(c));
    }
  }
  CHECK(!split.empty());
  CHECK(split == whole);
}

TEST_CASE("no plan when nothing divides", "[plan]") {
  // 8 GPUs and a global batch of 1: dp must be 1, so pp = 8/tp; 1 layer allows pp 1 only, and
  // tp 8 would need 8 heads: 3 heads divide no tp > 1 except 3, which does not divide 8.
  CHECK(plan_space(scenario(8, 3, 1, 1)).empty());
}
