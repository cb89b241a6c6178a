// TP communication overlap (parallelism.tp_comm_overlap, sim/workload/ops.hpp): each sequence-
// parallel all-gather and reduce-scatter of a layer overlaps the GEMM beside it, pipelined in tp
// pieces (C/n + (n-1)/n max(0, C - G)) or, for the backward's input-gradient reduce-scatters, in
// bulk beside the weight-gradient GEMM (max(0, C - G)). The closed forms are written out here; C
// is the collective's idle-network cost (CommCosts) and G its GEMM's time (ComputeModel): a GEMM
// pipelined in n pieces runs as n GEMMs of m/n rows, each reading the whole weight (bf16: 2 bytes
// per element of A, B and C), so its time is n times a piece's.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "sim/comm/comm_costs.hpp"
#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/ops.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

TEST_CASE("an overlapped collective exposes what its GEMM does not cover", "[workload]") {
  auto use = [](double hidden, int64_t chunks) {
    CollectiveUse u;
    u.hidden = Seconds(hidden);
    u.chunks = chunks;
    return u;
  };
  CHECK(exposed(use(0, 0), Seconds(10)).value == 10);                              // not overlapped
  CHECK(exposed(use(6, 1), Seconds(10)).value == Approx(4));                       // bulk: 10 - 6
  CHECK(exposed(use(12, 1), Seconds(10)).value == 0);                              // bulk, covered
  CHECK(exposed(use(6, 8), Seconds(10)).value == Approx(10.0 / 8 + 7.0 / 8 * 4));  // pipelined
  CHECK(exposed(use(12, 8), Seconds(10)).value == Approx(10.0 / 8));               // the first piece
  // In bulk holding a share f of the SMs (a DualPipe pair's DeepEP kernels): the computation beside
  // it runs at 1 - f while it runs. Covered (C <= G / (1 - f)): the computation is late by f C;
  // else the collective is the longer, C - G.
  CollectiveUse sms = use(12, 1);
  sms.sm_share = 20.0 / 132.0;
  CHECK(exposed(sms, Seconds(10)).value == Approx(10.0 * 20.0 / 132.0));
  sms.hidden = Seconds(6);
  CHECK(exposed(sms, Seconds(10)).value == Approx(4));
  sms.hidden = Seconds(10.0 * 112.0 / 132.0);  // the boundary: both forms agree
  CHECK(exposed(sms, Seconds(10)).value == Approx(10.0 * 20.0 / 132.0));
}

TEST_CASE("tp_comm_overlap hides each layer's TP collectives behind their GEMMs", "[workload]") {
  auto scenario = [](bool overlap) {
    const std::string text = fill(R"({"kind": "scenario", "name": "tp-overlap",
      "model": {"name": "llama-70b-like", "layers": 2, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn_hidden": 28672,
                "vocab": 128256, "activation": "swiglu", "norm": "rmsnorm"},
      "cluster": {"from": "dgx-h100-superpod", "gpus": 8},
      "parallelism": {"tp": 8, "pp": 1, "dp": 1, "sequence_parallel": true, "tp_comm_overlap": {o}},
      "training": {"seq_len": 8192, "global_batch": 1, "micro_batch": 1, "attention": "flash"}})",
                                  {{"o", overlap ? "true" : "false"}});
    return parse_scenario(ParamReader::from_text(text, "workload_tp_overlap.cpp"), TRAINSIM_SOURCE_DIR);
  };
  const Scenario off = scenario(false), on = scenario(true);
  const ComputeModel cm(on.cluster.device, on.training.precision);
  const CommCosts comm(on);
  // The pairs of ops.hpp, from the layer's own op lists: (collective, its GEMM, pieces).
  const PassOps ops = layer_ops(on, 1);
  // A GEMM's time, whole or in n pieces of its rows.
  auto gemm_time = [&](const Op& g, double n) {
    const GemmShape piece{g.shape.m / n, g.shape.n, g.shape.k, g.shape.batch};
    const double bytes = 2.0 * (piece.m * piece.k + piece.k * piece.n + piece.m * piece.n);
    return n * cm.gemm(piece, Bytes(bytes), g.precision).value;
  };
  double split_cost[2] = {0, 0};  // forward, backward: what the pieces add to the GEMMs' time
  auto saving = [&](const std::vector<Op>& list, const std::map<std::string, std::pair<std::string, int64_t>>& pairs) {
    double s = 0;
    for (const Op& c : list) {
      const auto pair = pairs.find(c.name);
      if (pair == pairs.end()) continue;
      const Op* g = nullptr;
      for (const Op& o : list)
        if (o.name == pair->second.first) g = &o;
      REQUIRE(g != nullptr);
      const double C = comm.group_collective(CommGroup::TP, c.collective, c.bytes).value;
      const double n = static_cast<double>(pair->second.second);
      const double G = gemm_time(*g, n);
      split_cost[&list == &ops.forward ? 0 : 1] += G - gemm_time(*g, 1);
      const double shown = n == 1 ? std::max(0.0, C - G) : C / n + (n - 1) / n * std::max(0.0, C - G);
      s += C - shown;
    }
    return s;
  };
  const double forward = saving(ops.forward, {{"tp_attn_in", {"qkv", 8}},
                                              {"tp_attn_out", {"attn_proj", 8}},
                                              {"tp_mlp_in", {"mlp_fc1", 8}},
                                              {"tp_mlp_out", {"mlp_fc2", 8}}});
  const double backward = saving(ops.backward, {{"tp_mlp_out_bwd", {"mlp_fc2_dgrad", 8}},
                                                {"tp_mlp_in_bwd", {"mlp_fc1_wgrad", 1}},
                                                {"tp_attn_out_bwd", {"attn_proj_dgrad", 8}},
                                                {"tp_attn_in_bwd", {"qkv_wgrad", 1}}});
  REQUIRE(forward > 0);
  REQUIRE(backward > 0);
  CHECK(split_cost[0] > 0);  // the pieces pay the curve's ramp again each
  // Per task: both layers' savings; everything else (the embedding's and output layer's TP
  // collectives, the compute) unchanged.
  const StageLayout layout = make_stage_layout(on.model, on.plan, 1, on.file);
  const Pipeline p_on = build_pipeline(on, layout, 1, cm), p_off = build_pipeline(off, layout, 1, cm);
  const CommCosts comm_off(off);
  int checked = 0;
  for (size_t v = 0; v < boost::num_vertices(p_on.graph); ++v) {
    const Task& t = p_on.graph[v];
    if (t.kind != TaskKind::FORWARD && t.kind != TaskKind::BACKWARD) continue;
    const bool fwd = t.kind == TaskKind::FORWARD;
    CHECK(t.compute.value - p_off.graph[v].compute.value == Approx(2 * split_cost[fwd ? 0 : 1]));
    const double diff = collective_time(p_off.graph[v], comm_off).value - collective_time(p_on.graph[v], comm).value;
    CHECK(diff == Approx(2 * (t.kind == TaskKind::FORWARD ? forward : backward)));
    ++checked;
  }
  CHECK(checked == 2);
}

TEST_CASE("tp_comm_overlap with torchtitan's per-op checkpointing: the rerun all-gathers are exposed", "[workload]") {
  // Under recompute "op" the backward reruns the sequence-parallel all-gathers without the GEMMs
  // they overlap in the forward: each costs its whole collective time again, so a forward task's
  // recompute adds exactly 2 layers x (both all-gathers) to the backward's TP time.
  auto scenario = [](const char* recompute) {
    const std::string text = fill(R"({"kind": "scenario", "name": "tp-overlap-op",
      "model": {"name": "llama-70b-like", "layers": 2, "hidden": 8192, "heads": 64, "kv_heads": 8, "ffn_hidden": 28672,
                "vocab": 128256, "activation": "swiglu", "norm": "rmsnorm"},
      "cluster": {"from": "dgx-h100-superpod", "gpus": 8},
      "parallelism": {"tp": 8, "pp": 1, "dp": 1, "sequence_parallel": true, "tp_comm_overlap": true},
      "training": {"seq_len": 8192, "global_batch": 1, "micro_batch": 1, "attention": "flash",
                   "recompute": "{r}"}})",
                                  {{"r", recompute}});
    return parse_scenario(ParamReader::from_text(text, "workload_tp_overlap.cpp"), TRAINSIM_SOURCE_DIR);
  };
  const Scenario none = scenario("none"), op = scenario("op");
  const ComputeModel cm(op.cluster.device, op.training.precision);
  const CommCosts comm(op);
  const StageLayout layout = make_stage_layout(op.model, op.plan, 1, op.file);
  const Pipeline p_none = build_pipeline(none, layout, 1, cm), p_op = build_pipeline(op, layout, 1, cm);
  double gathers = 0;
  for (const Op& c : layer_ops(op, 1).forward)
    if (c.name == "tp_attn_in" || c.name == "tp_mlp_in")
      gathers += comm.group_collective(CommGroup::TP, c.collective, c.bytes).value;
  REQUIRE(gathers > 0);
  int checked = 0;
  for (size_t v = 0; v < boost::num_vertices(p_op.graph); ++v)
    if (p_op.graph[v].kind == TaskKind::BACKWARD) {
      const double added =
          collective_time(p_op.graph[v], comm).value - collective_time(p_none.graph[v], CommCosts(none)).value;
      CHECK(added == Approx(2 * gathers));
      ++checked;
    }
  CHECK(checked == 1);
}
