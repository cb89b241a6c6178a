// Pipeline schedules (GPipe, 1F1B, interleaved 1F1B) and the stage layout.
//
// Structure: every rank's program issues each (chunk, microbatch) forward and backward exactly
// once, and program order plus the data dependencies form a DAG.
//
// Timing with unit costs and free communication (Narayanan et al. 2021 §2.2.1, §2.2.2): with p
// stages, m microbatches, forward t_f = 1 s and backward t_b = 2 s per full stage,
//   GPipe and 1F1B:          step = (m + p - 1)(t_f + t_b)        bubble fraction (p-1)/(m+p-1)
//   interleaved, v chunks of 1/v of the stage each (t_f/v, t_b/v):
//                            step = (m + (p - 1)/v)(t_f + t_b)    bubble (p-1)/(v m) of the ideal m(t_f + t_b)
// Communication is made free by a 1e21 B/s fabric (set past the reader's bound of 1 PB/s) and
// zero NCCL latencies; what remains is bytes / 1e21 B/s, below 1e-12 s per transfer.
// Uneven splits (layers_per_stage), with forward 1 s and backward 2 s per layer: GPipe against the
// flow-shop makespan, an interleaved case worked by hand on Megatron's order, and larger 1F1B and
// interleaved splits against their task graph's critical path and each rank's lower bound.
#include <algorithm>
#include <boost/graph/topological_sort.hpp>
#include <catch2/catch.hpp>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/comm/comm_costs.hpp"
#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/plan/planner.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

// A 16-layer GPT-like model, 8 GPUs per node; tp = dp = 1 so each pipeline rank is one GPU.
Scenario pipeline_scenario(int64_t pp, int64_t v, int64_t m, const char* schedule, const char* bandwidth = "300 GB/s") {
  const std::string text = fill(R"({"kind": "scenario", "name": "pipeline",
    "model": {"name": "test-16l", "layers": 16, "hidden": 1024, "heads": 16, "kv_heads": 16,
              "ffn_hidden": 4096, "vocab": 51200, "activation": "gelu"},
    "cluster": {"gpu": "a100-sxm-80gb", "gpus": {pp}, "gpus_per_node": {node},
                "scale_up": {"kind": "nvswitch", "bandwidth": "{bw}"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": {node}, "nic_bandwidth": "{bw}"}},
    "parallelism": {"tp": 1, "pp": {pp}, "dp": 1, "virtual_stages": {v}, "schedule": "{schedule}"},
    "training": {"seq_len": 2048, "global_batch": {m}, "micro_batch": 1, "recompute": "none",
                 "precision": "bf16"}})",
                                {{"pp", std::to_string(pp)},
                                 {"node", std::to_string(std::min<int64_t>(pp, 8))},
                                 {"bw", bandwidth},
                                 {"v", std::to_string(v)},
                                 {"schedule", schedule},
                                 {"m", std::to_string(m)}});
  return parse_scenario(ParamReader::from_text(text, "workload_pipeline.cpp"), TRAINSIM_SOURCE_DIR);
}

Pipeline build(const Scenario& s) {
  ComputeModel cm(s.cluster.device, s.training.precision);
  StageLayout layout = make_stage_layout(s.model, s.plan, s.plan.virtual_stages.value, s.file);
  return build_pipeline(s, layout, s.training.micro_batch.value, cm);
}

// Applies `f` to every task of the pipeline: its graph's and those of the program it was built
// from, which the estimate reads.
template <class F>
void set_costs(Pipeline& p, F f) {
  for (Task& task : p.steps.tasks) f(task);
  for (size_t t = 0; t < boost::num_vertices(p.graph); ++t) f(p.graph[t]);
}

// Forward 1/v s, backward 2/v s per chunk, no TP collectives, DP and optimizer free.
void unit_costs(Pipeline& p) {
  const double v = double(p.virtual_stages);
  set_costs(p, [&](Task& task) {
    task.collectives.clear();
    task.dp_bytes = Bytes(0);
    switch (task.kind) {
      case TaskKind::FORWARD: task.compute = Seconds(1.0 / v); break;
      case TaskKind::BACKWARD: task.compute = Seconds(2.0 / v); break;
      default: task.compute = Seconds(0); break;
    }
  });
}

void free_communication(Scenario& s) {
  s.cluster.scale_up.bandwidth = s.cluster.scale_out.nic_bandwidth = BytesPerSecond(1e21);
  auto& k = s.cluster.device.collectives;
  k.base_latency = k.scale_up_step_latency = k.scale_out_step_latency = Seconds(0);
}

double unit_cost_step(int64_t pp, int64_t v, int64_t m, const char* schedule) {
  Scenario s = pipeline_scenario(pp, v, m, schedule);
  free_communication(s);
  Pipeline p = build(s);
  unit_costs(p);
  CommCosts comm(s);
  return estimate_step(s, p, comm).step.value;
}

void check_structure(const Scenario& s, const Pipeline& p) {
  const int64_t pp = s.plan.pp, v = p.virtual_stages, m = p.microbatches;
  REQUIRE(p.program.size() == size_t(pp));
  for (int64_t r = 0; r < pp; ++r) {
    INFO("rank " << r);
    std::map<std::tuple<int64_t, int64_t, bool>, int> seen;  // (chunk, microbatch, forward) -> count
    std::map<std::pair<int64_t, int64_t>, size_t> forward_at;
    size_t pos = 0;
    for (TaskId id : p.program[size_t(r)]) {
      const Task& t = p.graph[id];
      CHECK(t.rank == r);
      if (t.kind == TaskKind::FORWARD || t.kind == TaskKind::BACKWARD) {
        const bool fwd = t.kind == TaskKind::FORWARD;
        ++seen[{t.chunk, t.microbatch, fwd}];
        if (fwd)
          forward_at[{t.chunk, t.microbatch}] = pos;
        else
          CHECK(forward_at.count({t.chunk, t.microbatch}) == 1);  // a backward follows its forward
      }
      ++pos;
    }
    CHECK(seen.size() == size_t(2 * v * m));
    for (int64_t c = 0; c < v; ++c)
      for (int64_t mb = 0; mb < m; ++mb)
        for (bool fwd : {true, false}) {
          INFO("chunk " << c << " microbatch " << mb << (fwd ? " forward" : " backward"));
          CHECK(seen[{c, mb, fwd}] == 1);
        }
  }
  std::vector<TaskId> order;
  CHECK_NOTHROW(boost::topological_sort(p.graph, std::back_inserter(order)));
  CHECK(order.size() == boost::num_vertices(p.graph));
}

}  // namespace

TEST_CASE("every schedule issues each (rank, chunk, microbatch) forward and backward exactly once, as a DAG",
          "[workload]") {
  struct Case {
    const char* schedule;
    int64_t pp, v, m;
  };
  for (const Case& c : {Case{"gpipe", 4, 1, 8}, Case{"1f1b", 4, 1, 8}, Case{"1f1b", 4, 1, 2}, Case{"1f1b", 8, 1, 16},
                        Case{"interleaved", 4, 2, 8}, Case{"interleaved", 4, 4, 4}, Case{"interleaved", 2, 8, 6}}) {
    INFO(c.schedule << " pp=" << c.pp << " v=" << c.v << " m=" << c.m);
    const Scenario s = pipeline_scenario(c.pp, c.v, c.m, c.schedule);
    const Pipeline p = build(s);
    CHECK(p.microbatches == c.m);
    CHECK(p.virtual_stages == c.v);
    check_structure(s, p);
  }
}

TEST_CASE("1F1B keeps at most p - r microbatches in flight on rank r (Narayanan et al. 2021 §2.2.1)", "[workload]") {
  // PipeDream-Flush: rank r runs p - r - 1 warm-up forwards, then alternates, so it never holds
  // more than p - r forwards whose backward has not run; GPipe holds all m.
  const int64_t pp = 4, m = 8;
  for (const char* schedule : {"1f1b", "gpipe"}) {
    const Scenario s = pipeline_scenario(pp, 1, m, schedule);
    const Pipeline p = build(s);
    for (int64_t r = 0; r < pp; ++r) {
      int64_t in_flight = 0, most = 0;
      for (TaskId id : p.program[size_t(r)]) {
        if (p.graph[id].kind == TaskKind::FORWARD) most = std::max(most, ++in_flight);
        if (p.graph[id].kind == TaskKind::BACKWARD) --in_flight;
      }
      INFO(schedule << " rank " << r);
      CHECK(most == (std::string(schedule) == "gpipe" ? m : pp - r));
    }
  }
}

TEST_CASE("with unit costs and free communication, 1F1B and GPipe take (m + p - 1)(t_f + t_b)", "[workload]") {
  // Narayanan et al. 2021 §2.2.1: bubble fraction (p - 1)/(m + p - 1) of the step.
  struct Case {
    int64_t pp, m;
  };
  for (const char* schedule : {"1f1b", "gpipe"})
    for (const Case& c : {Case{2, 4}, Case{4, 8}, Case{4, 4}, Case{8, 16}, Case{4, 3}}) {
      INFO(schedule << " p=" << c.pp << " m=" << c.m);
      const double step = unit_cost_step(c.pp, 1, c.m, schedule);
      CHECK(step == Approx(double(c.m + c.pp - 1) * 3.0).epsilon(1e-9));
      const double bubble = (step - double(c.m) * 3.0) / step;
      CHECK(bubble == Approx(double(c.pp - 1) / double(c.m + c.pp - 1)).epsilon(1e-9));
    }
}

TEST_CASE("with unit costs and free communication, interleaved 1F1B takes (m + (p - 1)/v)(t_f + t_b)", "[workload]") {
  // Narayanan et al. 2021 §2.2.2: the bubble shrinks by v, to (p - 1)/(v m) of the ideal m(t_f + t_b).
  struct Case {
    int64_t pp, v, m;
  };
  for (const Case& c : {Case{2, 2, 4}, Case{4, 2, 8}, Case{4, 4, 4}, Case{4, 2, 16}, Case{8, 2, 8}}) {
    INFO("p=" << c.pp << " v=" << c.v << " m=" << c.m);
    const double step = unit_cost_step(c.pp, c.v, c.m, "interleaved");
    const double ideal = double(c.m) * 3.0;
    CHECK(step == Approx((double(c.m) + double(c.pp - 1) / double(c.v)) * 3.0).epsilon(1e-9));
    CHECK((step - ideal) / ideal == Approx(double(c.pp - 1) / double(c.v * c.m)).epsilon(1e-9));
  }
}

TEST_CASE("stage layout: Llama 3 405B's 126 layers on 16 stages are 7, 8 x 14, 7 (Llama 3 paper §3.3.2)",
          "[workload]") {
  ModelSpec model;
  model.layers = 126;
  ParallelPlan plan;
  plan.pp = 16;
  const StageLayout layout = make_stage_layout(model, plan, 1, "test");
  std::vector<int64_t> expect(16, 8);
  expect.front() = expect.back() = 7;
  CHECK(layout.layers == expect);
}

TEST_CASE("stage layout: an even split gives every virtual stage layers / (p v)", "[workload]") {
  ModelSpec model;
  model.layers = 96;
  ParallelPlan plan;
  plan.pp = 8;
  const StageLayout layout = make_stage_layout(model, plan, 3, "test");
  CHECK(layout.layers == std::vector<int64_t>(24, 4));
  for (int64_t r = 0; r < 8; ++r) CHECK(layout.layers_on_rank(r) == 12);
}

TEST_CASE("stage layout: sliding-window layers counted per stage, dense and MoE apart", "[workload]") {
  // GPT-OSS's pattern (Megatron-Core window_attn_skip_freq 2): layers 2, 4, ... (from 1) attend over
  // the whole sequence, so of 36 layers on 4 stages of 9 the even-indexed ones (from 0) slide:
  // 0-8 holds five, 9-17 four (10, 12, 14, 16), and so on; with every 3rd layer MoE (from the
  // first), of stage 0's MoE layers 2, 5, 8 the sliding ones are 2 and 8.
  ModelSpec model;
  model.layers = 36;
  model.sliding_window = 128;
  model.full_attention_interval = 2;
  model.moe = MoeSpec{};
  model.moe->layer_interval = 3;
  ParallelPlan plan;
  plan.pp = 4;
  const StageLayout layout = make_stage_layout(model, plan, 1, "test");
  for (int64_t r = 0; r < 4; ++r) {
    int64_t dense = 0, moe = 0;
    for (int64_t i = 9 * r; i < 9 * r + 9; ++i)
      if (i % 2 == 0) ++(model.moe_layer(i) ? moe : dense);
    CHECK(layout.windowed_dense_layers_of(r, 0) == dense);
    CHECK(layout.windowed_moe_layers_of(r, 0) == moe);
  }
  CHECK(layout.windowed_dense_layers_of(0, 0) + layout.windowed_moe_layers_of(0, 0) == 5);
  CHECK(layout.windowed_dense_layers_of(1, 0) + layout.windowed_moe_layers_of(1, 0) == 4);
  CHECK(layout.windowed_moe_layers_of(0, 0) == 2);
}

TEST_CASE("every task's compute is exactly its gemm + attention + elementwise parts", "[workload]") {
  // Invariant of the breakdown the report prints: the three kernel classes partition the compute.
  for (const char* attention : {"unfused", "flash"})
    for (const char* recompute : {"none", "selective", "full"}) {
      Scenario s = load_scenario(
          TRAINSIM_SOURCE_DIR "/configs/quickstart.json",
          {{"training.attention", attention}, {"training.recompute", recompute}, {"training.micro_batch", "1"}});
      ComputeModel cm(s.cluster.device, s.training.precision);
      const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
      const Pipeline p = build_pipeline(s, layout, 1, cm);
      INFO(attention << " " << recompute);
      for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) {
        const Task& t = p.graph[v];
        CHECK((t.gemm + t.attention + t.elementwise).value == Approx(t.compute.value).epsilon(1e-12));
        if (t.kind == TaskKind::FORWARD) CHECK(t.attention.value > 0);
      }
    }
}

TEST_CASE("the gradient reduction carries 4 bytes per parameter in fp32, 2 in 16 bits", "[workload]") {
  // pp 2, dp 2, tp 1, no overlap: each pipeline rank reduces its 8 layers' parameters plus the word
  // embedding (tied: held by both ranks) once, at TrainingSpec::grad_bytes per parameter. The
  // learned position embedding (rank 0) and the final norm (rank 1) are not counted in the
  // reduction's buffer (grad_sync.cpp): within 1.4 % of the closed form, and exactly half in 16 bits.
  std::map<int64_t, double> bytes[2];
  for (bool fp32 : {true, false}) {
    const std::string text = fill(R"({"kind": "scenario", "name": "grads",
      "model": {"name": "test-16l", "layers": 16, "hidden": 1024, "heads": 16, "kv_heads": 16,
                "ffn_hidden": 4096, "vocab": 51200, "activation": "gelu"},
      "cluster": {"gpu": "a100-sxm-80gb", "gpus": 4, "gpus_per_node": 4,
                  "scale_up": {"kind": "nvswitch", "bandwidth": "300 GB/s"},
                  "scale_out": {"kind": "fat-tree", "nics_per_node": 4, "nic_bandwidth": "25 GB/s"}},
      "parallelism": {"tp": 1, "pp": 2, "dp": 2, "overlap_grad_reduce": false},
      "training": {"seq_len": 2048, "global_batch": 4, "micro_batch": 1, "precision": "bf16",
                   "grad_reduce_in_fp32": {fp32}}})",
                                  {{"fp32", fp32 ? "true" : "false"}});
    const Scenario s = parse_scenario(ParamReader::from_text(text, "workload_pipeline.cpp"), TRAINSIM_SOURCE_DIR);
    const Pipeline p = build(s);
    const double per_param = fp32 ? 4.0 : 2.0;
    const double h = 1024, layer = 12 * h * h + 13 * h;  // GPT layer: 12h^2 weights + 13h biases and norms
    for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) {
      const Task& t = p.graph[v];
      if (t.kind != TaskKind::DP_REDUCE) continue;
      INFO("fp32 " << fp32 << ", rank " << t.rank);
      const double held = 8 * layer + 51200 * h + (t.rank == 0 ? 2048 * h : 2 * h);  // + positions / final norm
      CHECK(t.dp_bytes.total() == Approx(held * per_param).epsilon(0.014));
      bytes[fp32 ? 1 : 0][t.rank] = t.dp_bytes.total();
    }
  }
  REQUIRE(bytes[0].size() == 2);
  for (const auto& [rank, b] : bytes[0]) CHECK(bytes[1][rank] == 2 * b);
}

namespace {

// Forward 1 s and backward 2 s per layer of the task's chunk (an uneven split's chunks differ).
void per_layer_costs(Pipeline& p, const StageLayout& layout) {
  set_costs(p, [&](Task& task) {
    task.collectives.clear();
    task.dp_bytes = Bytes(0);
    const double layers = double(layout.layers_of(task.rank, task.chunk));
    switch (task.kind) {
      case TaskKind::FORWARD: task.compute = Seconds(1.0 * layers); break;
      case TaskKind::BACKWARD: task.compute = Seconds(2.0 * layers); break;
      default: task.compute = Seconds(0); break;
    }
  });
}

// The step of `layers` split as `split` (per virtual stage) under unit per-layer costs.
double uneven_step(int64_t layers, std::vector<int64_t> split, int64_t v, int64_t m, const char* schedule,
                   double* critical_path = nullptr) {
  const int64_t pp = int64_t(split.size()) / v;
  Scenario s = pipeline_scenario(pp, v, m, schedule);
  free_communication(s);
  s.model.layers = layers;
  s.plan.layers_per_stage = std::move(split);
  const StageLayout layout = make_stage_layout(s.model, s.plan, v, s.file);
  ComputeModel cm(s.cluster.device, s.training.precision);
  Pipeline p = build_pipeline(s, layout, 1, cm);
  per_layer_costs(p, layout);
  if (critical_path) {
    // Longest path through the task graph (program order and data edges), each task its cost.
    std::vector<TaskId> order;
    boost::topological_sort(p.graph, std::back_inserter(order));
    std::vector<double> end(boost::num_vertices(p.graph), 0.0);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      double start = 0;
      for (auto [e, e_end] = boost::in_edges(*it, p.graph); e != e_end; ++e)
        start = std::max(start, end[boost::source(*e, p.graph)]);
      end[*it] = start + p.graph[*it].compute.value;
    }
    *critical_path = *std::max_element(end.begin(), end.end());
  }
  CommCosts comm(s);
  return estimate_step(s, p, comm).step.value;
}

}  // namespace

TEST_CASE("an uneven split's bubble: GPipe is two flow shops bound by the largest stage", "[workload]") {
  // Stage r takes f_r = L_r and b_r = 2 L_r. GPipe runs every forward, then every backward: two
  // permutation flow shops of m identical jobs, each of makespan sum + (m - 1) max, so
  // step = 3 (sum L + (m - 1) max L). Llama 3's 7, 8, 8, 7 split of 30 layers.
  for (int64_t m : {4, 8, 13}) {
    INFO("m=" << m);
    CHECK(uneven_step(30, {7, 8, 8, 7}, 1, m, "gpipe") == Approx(3.0 * (30.0 + double(m - 1) * 8.0)).epsilon(1e-9));
  }
}

TEST_CASE("an uneven interleaved split's bubble, worked by hand on Megatron's order", "[workload]") {
  // pp 2, v 2, m 2, virtual stages of 1, 2, 2, 1 layers (the first and last take the fewer):
  // vs0 = (rank 0, chunk 0), vs1 = (1, 0), vs2 = (0, 1), vs3 = (1, 1); f = L, b = 2 L. Megatron's
  // interleaved order: rank 0 warms up with 2 (p - r - 1) + (v - 1) p = 4 forwards (all), then its
  // 4 backwards; rank 1 with 2, then F B F B on chunk 1, then chunk 0's backwards. Worked through:
  //   rank 0  F00 [0,1]  F01 [1,2]  F10 [3,5]  F11 [5,7]  B10 [8,12]  B11 [12,16] B00 [16,18] B01 [20,22]
  //   rank 1  F00 [1,3]  F01 [3,5]  F10 [5,6]  B10 [6,8]  F11 [8,9]   B11 [9,11]  B00 [12,16] B01 [16,20]
  // (Fcm: chunk c, microbatch m). Step 22 s against 2 x (1 + 2) x 3 = 18 s of work per rank.
  CHECK(uneven_step(6, {1, 2, 2, 1}, 2, 2, "interleaved") == Approx(22.0).epsilon(1e-9));
}

TEST_CASE("an uneven split's step is its task graph's critical path, above every rank's bound", "[workload]") {
  // With free communication a rank's task starts when its previous task and its inputs are done,
  // so the step is the longest path through the task graph (program order and data edges), each
  // task weighted by its cost -- computed here without the estimate's walk. Each rank r also
  // waits for microbatch 0's forwards before it (sum of f_r' for r' < r), works m (f_r + b_r),
  // and the last backward still has to reach rank 0: a lower bound.
  struct Case {
    const char* schedule;
    int64_t layers, v, m;
    std::vector<int64_t> split;
  };
  for (const Case& c : {Case{"1f1b", 30, 1, 8, {7, 8, 8, 7}},
                        Case{"1f1b", 126, 1, 16, {7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7}},
                        Case{"interleaved", 30, 2, 8, {3, 4, 4, 4, 4, 4, 4, 3}},
                        Case{"interleaved", 46, 3, 12, {3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3}}}) {
    const int64_t pp = int64_t(c.split.size()) / c.v;
    INFO(c.schedule << " pp=" << pp << " v=" << c.v << " m=" << c.m);
    double critical = 0;
    const double step = uneven_step(c.layers, c.split, c.v, c.m, c.schedule, &critical);
    CHECK(step == Approx(critical).epsilon(1e-9));
    for (int64_t r = 0; r < pp; ++r) {
      double before = 0, own = 0;
      for (int64_t q = 0; q < r; ++q) before += double(c.split[size_t(q)]);  // chunk 0 of earlier ranks
      for (int64_t k = 0; k < c.v; ++k) own += double(c.split[size_t(k * pp + r)]);
      CHECK(step >= before * 3.0 + double(c.m) * own * 3.0 - 1e-9);
    }
  }
}

TEST_CASE("virtual stages \"auto\" tries the splits whose first and last virtual stage are a layer short",
          "[workload]") {
  // 30 layers on pp 4: no v > 1 divides them evenly (4 v never divides 30), but 8 and 16 virtual
  // stages fall 2 layers short -- the first and last take one fewer, as Llama 3's 126 layers on 16
  // ranks -- while 12, 20, 24 and 28 fall 6 or more short. So v = 1, 2, 4 are tried. Ranks hold
  // 7, 8, 8, 7 layers under each; with 16 microbatches the largest v has the smallest bubble.
  Scenario s = pipeline_scenario(4, 1, 16, "1f1b");
  s.model.layers = 30;
  s.plan.virtual_stages = AutoCount{0};  // "auto", the schedule not given
  s.plan.schedule_given = false;
  const ComputeModel cm(s.cluster.device, s.training.precision);
  const ResolvedPlan plan = resolve_plan(s, cm);
  CHECK(plan.candidates_tried == 3);
  CHECK(plan.virtual_stages == 4);
  std::vector<int64_t> expect(16, 2);
  expect.front() = expect.back() = 1;
  CHECK(plan.layout.layers == expect);
}
