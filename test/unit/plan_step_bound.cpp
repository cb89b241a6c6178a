// The step-time lower bound (sim/plan/step_bound.hpp, step_lower_bound) and the planner's use of it.
//
// The bound must never pass the closed-form estimate of the graph build_pipeline builds, and must
// be at least what a rank's own tasks take (read here from the graph, task by task). With one
// pipeline rank and no communication it is that rank's work exactly. The planner builds graphs in
// the bounds' order and skips those that cannot win: its choice must be the brute-force minimum
// over the candidates planner.hpp documents (each planned alone, fixed), ties to the smaller
// virtual-stage count, then micro-batch.
#include <catch2/catch.hpp>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/comm/comm_costs.hpp"
#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/plan/planner.hpp"
#include "sim/plan/step_bound.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

struct Plan {
  int64_t gpus = 8, tp = 1, pp = 1, dp = 1, v = 1, layers = 8, batch = 8, micro_batch = 1, zero = 0;
  std::string schedule = "1f1b", recompute = "none", overlap = "false", sp = "false";
};

Scenario scenario(const Plan& p) {
  const std::string text = fill(R"({"kind": "scenario", "name": "bound",
    "model": {"name": "b", "layers": {layers}, "hidden": 2048, "heads": 16, "kv_heads": 16,
              "ffn_hidden": 8192, "vocab": 32000, "activation": "gelu"},
    "cluster": {"gpu": "h100-sxm", "gpus": {gpus}, "gpus_per_node": 8,
                "scale_up": {"kind": "nvswitch", "bandwidth": "450 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "400 Gb/s"}},
    "parallelism": {"tp": {tp}, "pp": {pp}, "dp": {dp}, "virtual_stages": {v}, "schedule": "{schedule}",
                    "zero": {zero}, "overlap_grad_reduce": {overlap}, "sequence_parallel": {sp}},
    "training": {"seq_len": 2048, "global_batch": {batch}, "micro_batch": {mb}, "recompute": "{recompute}",
                 "precision": "bf16"}})",
                                {{"layers", std::to_string(p.layers)},
                                 {"gpus", std::to_string(p.gpus)},
                                 {"tp", std::to_string(p.tp)},
                                 {"pp", std::to_string(p.pp)},
                                 {"dp", std::to_string(p.dp)},
                                 {"v", std::to_string(p.v)},
                                 {"schedule", p.schedule},
                                 {"zero", std::to_string(p.zero)},
                                 {"overlap", p.overlap},
                                 {"sp", p.sp},
                                 {"batch", std::to_string(p.batch)},
                                 {"mb", std::to_string(p.micro_batch)},
                                 {"recompute", p.recompute}});
  return parse_scenario(ParamReader::from_text(text, "plan_step_bound.cpp"), TRAINSIM_SOURCE_DIR);
}

struct Bounded {
  double bound, estimate, busiest_rank;  // busiest_rank: the most compute one rank's tasks have
};

Bounded bound_and_estimate(const Scenario& s) {
  const ComputeModel cm(s.cluster.device, s.training.precision);
  const StageLayout layout = make_stage_layout(s.model, s.plan, s.plan.virtual_stages.value, s.file);
  const int64_t b = s.training.micro_batch.value;
  const CommCosts comm(s);
  const Pipeline p = build_pipeline(s, layout, b, cm);
  std::vector<double> per_rank(static_cast<size_t>(s.plan.pp), 0.0);
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) {
    const Task& t = p.graph[v];
    if (t.kind == TaskKind::FORWARD || t.kind == TaskKind::BACKWARD)
      per_rank[static_cast<size_t>(t.rank)] += t.compute.value;
  }
  return {step_lower_bound(s, layout, b, cm, comm).value, estimate_step(s, p, comm).step.value,
          *std::max_element(per_rank.begin(), per_rank.end())};
}

}  // namespace

TEST_CASE("the step lower bound lies between a rank's own work and the estimate, across plans", "[plan]") {
  std::vector<Plan> plans;
  for (const char* schedule : {"1f1b", "gpipe"})
    for (int64_t pp : {1, 2, 4})
      for (int64_t batch : {8, 16}) {
        Plan p;
        p.pp = pp, p.dp = 8 / pp, p.batch = batch, p.schedule = schedule;
        plans.push_back(p);
      }
  for (const char* schedule : {"zb_h1", "zb_h2", "zb_v"}) {  // split backward; each rank's step from its first task
    Plan zb;
    zb.pp = 4, zb.dp = 2, zb.batch = 16, zb.schedule = schedule;
    if (std::string(schedule) == "zb_v") zb.v = 2;  // two chunks a rank, in a V
    plans.push_back(zb);
  }
  Plan interleaved;
  interleaved.pp = 4, interleaved.dp = 2, interleaved.v = 2, interleaved.schedule = "interleaved";
  interleaved.batch = 16;
  plans.push_back(interleaved);
  Plan tensor;  // TP collectives on every task, full recompute
  tensor.tp = 4, tensor.pp = 2, tensor.sp = "true", tensor.recompute = "full";
  plans.push_back(tensor);
  Plan fsdp;  // ZeRO-3: a parameter all-gather per layer; overlapped gradient buckets
  fsdp.dp = 8, fsdp.zero = 3, fsdp.overlap = "true";
  plans.push_back(fsdp);
  Plan uneven;  // 10 layers on 4 ranks: 2, 3, 3, 2
  uneven.layers = 10, uneven.pp = 4, uneven.dp = 2, uneven.batch = 16;
  plans.push_back(uneven);
  for (const Plan& p : plans) {
    INFO("tp " << p.tp << " pp " << p.pp << " v " << p.v << " batch " << p.batch << " " << p.schedule << " zero "
               << p.zero);
    const Bounded b = bound_and_estimate(scenario(p));
    CHECK(b.bound <= b.estimate * (1 + 1e-12));
    CHECK(b.bound >= b.busiest_rank * (1 - 1e-12));
  }
}

TEST_CASE("with one pipeline rank and no communication the bound is that rank's work", "[plan]") {
  // tp = pp = dp = 1 on one GPU: nothing to wait for, nothing to send. The rank runs m forwards and
  // m backwards: the bound is exactly their compute, read from the graph.
  Plan p;
  p.gpus = 1, p.batch = 4;
  const Bounded b = bound_and_estimate(scenario(p));
  CHECK(b.bound == Approx(b.busiest_rank).epsilon(1e-12));
  CHECK(b.estimate > b.bound);  // the optimizer step comes after
}

TEST_CASE("the planner's choice is the brute-force minimum over its candidates", "[plan]") {
  // pp 4 of 30 layers, dp 2, global batch 32: micro_batch divides 16 (1, 2, 4, 8, 16); virtual
  // stages 1, or v whose 4 v stages fall at most 2 layers short of splitting 30 evenly (v = 2: 30
  // = 8 x 4 - 2; v = 4: 30 = 16 x 2 - 2; v = 3, 5, 6, 7 fall 6, 10, 18, 26 short), with m = 16 / b
  // a multiple of 4 when v > 1.
  Plan p;
  p.layers = 30, p.pp = 4, p.dp = 2, p.batch = 32;
  Scenario base = scenario(p);
  const ComputeModel cm(base.cluster.device, base.training.precision);
  std::optional<ResolvedPlan> brute;
  for (int64_t v = 1; v * p.pp <= p.layers; ++v) {
    const int64_t stages = v * p.pp, short_by = (stages - p.layers % stages) % stages;
    if (v > 1 && short_by > 2) continue;
    for (int64_t b : {1, 2, 4, 8, 16}) {
      if (v > 1 && (16 / b) % p.pp != 0) continue;
      Scenario s = base;
      s.training.micro_batch = AutoCount{b};
      s.plan.virtual_stages = AutoCount{v};
      s.plan.schedule = v > 1 ? Schedule::INTERLEAVED : Schedule::ONE_F_ONE_B;
      ResolvedPlan r = resolve_plan(s, cm);
      if (!brute || r.estimated_step < brute->estimated_step) brute = r;
    }
  }
  REQUIRE(brute);
  Scenario s = base;
  s.training.micro_batch = AutoCount{0};  // "auto"
  s.plan.virtual_stages = AutoCount{0};
  s.plan.schedule_given = false;
  const ResolvedPlan chosen = resolve_plan(s, cm);
  CHECK(chosen.micro_batch == brute->micro_batch);
  CHECK(chosen.virtual_stages == brute->virtual_stages);
  CHECK(chosen.estimated_step.value == brute->estimated_step.value);

  // With a cutoff above its estimate the same plan comes back; with one below every bound (0 s),
  // nothing does, and the scenario keeps its "auto".
  Scenario t = base;
  t.training.micro_batch = AutoCount{0};
  t.plan.virtual_stages = AutoCount{0};
  t.plan.schedule_given = false;
  const auto above = resolve_plan_below(t, cm, Seconds(chosen.estimated_step.value * 1.01));
  REQUIRE(above);
  CHECK(above->estimated_step.value == chosen.estimated_step.value);
  Scenario u = base;
  u.training.micro_batch = AutoCount{0};
  u.plan.virtual_stages = AutoCount{0};
  u.plan.schedule_given = false;
  CHECK_FALSE(resolve_plan_below(u, cm, Seconds(0)));
  CHECK(u.training.micro_batch.is_auto());
}
