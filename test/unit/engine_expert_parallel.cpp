// Expert parallelism in a step (ops.cpp moe_mlp_ops; ring_channels.hpp, the expert-parallel and
// expert-data-parallel groups; replay.cpp): Mixtral 8x7B, tp 1, pp 4, dp 8, ep 8 on 32 H100 (4
// DGX nodes). Placed tp-cp-dp-pp, a stage's 8 data-parallel ranks share a node and each expert-
// parallel group stays on NVLink; placed tp-cp-pp-dp (dp slowest), its members sit two to a node
// and its all-to-alls cross the network, live beside the pipeline transfers and gradient
// reductions. Each TEST_CASE runs in its own process (ctest); the engine forks a child per step.
#include <catch2/catch.hpp>
#include <iomanip>
#include <string>
#include <utility>

#include "sim/comm/comm_costs.hpp"
#include "sim/comm/ring_channels.hpp"
#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/engine/engine.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/topology/placement.hpp"
#include "sim/workload/grad_sync.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

// With tp 2 (sequence parallel) the expert-parallel groups fold over tp x dp (ParallelPlan::expert_tp).
// `etp` 0: absent (the experts whole beside ep).
Scenario mixtral(const std::string& placement, int64_t ep = 8, const std::string& dispatcher = "alltoall",
                 int64_t tp = 1, const std::string& schedule = "1f1b", int64_t etp = 0) {
  const std::string text = fill(R"({"kind": "scenario", "name": "ep", "model": "mixtral-8x7b",
    "cluster": {"from": "dgx-h100-superpod", "gpus": 32},
    "parallelism": {"tp": {tp}, "pp": 4, "dp": {dp}, "ep": {ep}, "zero": 1, "placement": "{placement}",
                    "dispatcher": "{dispatcher}", "sequence_parallel": {sp}, "schedule": "{schedule}"{etp}},
    "training": {"seq_len": 4096, "global_batch": 64, "micro_batch": 1, "recompute": "full", "precision": "bf16"}})",
                                {{"placement", placement},
                                 {"ep", std::to_string(ep)},
                                 {"dispatcher", dispatcher},
                                 {"tp", std::to_string(tp)},
                                 {"dp", std::to_string(8 / tp)},
                                 {"sp", tp > 1 ? "true" : "false"},
                                 {"schedule", schedule},
                                 {"etp", etp > 0 ? ", \"etp\": " + std::to_string(etp) : ""}});
  return parse_scenario(ParamReader::from_text(text, "ep.json"), TRAINSIM_SOURCE_DIR);
}

// Mixtral 8x7B on `gpus` H100s (selective recompute, bf16) with the `parallelism` members given
// and Megatron's expert-parallel overlap on or off.
Scenario mixtral_overlap(const std::string& parallelism, int64_t gpus, int64_t global_batch, bool overlap) {
  const std::string text = fill(R"({"kind": "scenario", "name": "ep", "model": "mixtral-8x7b",
    "cluster": {"from": "dgx-h100-superpod", "gpus": {gpus}},
    "parallelism": {{parallelism}, "zero": 1, "ep_comm_overlap": {overlap}},
    "training": {"seq_len": 4096, "global_batch": {batch}, "micro_batch": 1, "recompute": "selective",
                 "precision": "bf16"}})",
                                {{"parallelism", parallelism},
                                 {"gpus", std::to_string(gpus)},
                                 {"batch", std::to_string(global_batch)},
                                 {"overlap", overlap ? "true" : "false"}});
  return parse_scenario(ParamReader::from_text(text, "ep.json"), TRAINSIM_SOURCE_DIR);
}

MemoryEstimate memory(const Scenario& s) {
  return estimate_memory(s, make_stage_layout(s.model, s.plan, s.plan.virtual_stages.value, s.file), 1);
}

Pipeline build(const Scenario& s) {
  ComputeModel cm(s.cluster.device, s.training.precision);
  const StageLayout layout = make_stage_layout(s.model, s.plan, s.plan.virtual_stages.value, s.file);
  return build_pipeline(s, layout, s.training.micro_batch.value, cm);
}

}  // namespace

TEST_CASE("an expert-parallel group inside a node: each dispatch and combine takes the all-to-all's closed form",
          "[engine][moe]") {
  // Each rank sends 7/8 of the buffer S (its 4,096 x 2 token copies, 4,096 wide, bf16) to its 7
  // peers at once through its NVLink port (B per direction, the profile's fraction eff): 7 S / (8 B
  // eff), plus NCCL's latency of one step (base + a scale-up step) and the two NVLink ports'.
  // Folded beside tp 2 (tp x dp on the node) each rank sends its own 2,048 tokens' copies.
  const int64_t tp = GENERATE(1, 2);
  INFO("tp " << tp);
  const Scenario s = mixtral("tp-cp-dp-pp", 8, "alltoall", tp);
  const Pipeline p = build(s);
  const auto& k = s.cluster.device.collectives;
  const double S = 4096.0 / double(tp) * 2 * 4096 * 2, B = s.cluster.scale_up.bandwidth.value;
  const double a2a = 7.0 / 8.0 * S / (B * k.scale_up_efficiency) + k.base_latency.value +
                     k.scale_up_step_latency.value + 2 * s.cluster.scale_up.latency.value;
  const EngineResult r = simulate_step(s, p);
  int64_t tasks = 0;
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) {
    double count = 0;
    for (const auto& use : p.graph[v].collectives)
      if (use.group == CommGroup::EP) {
        CHECK(use.kind == CollectiveKind::ALL_TO_ALL);
        CHECK(use.bytes.value == Approx(S));
        count += double(use.count);
      }
    if (count == 0) continue;
    ++tasks;
    INFO("task " << v << ": " << count << " all-to-alls, engine " << r.spans[v].ep << " s");
    CHECK(r.spans[v].ep == Approx(count * a2a).epsilon(1e-6));
  }
  CHECK(tasks > 0);
}

TEST_CASE("all-to-alls across nodes run live and agree with full fidelity", "[engine][moe]") {
  // The members of each expert-parallel group two to a node: each rank's 6/8 of S leave through its
  // NIC, beside the other groups' (at class fidelity one group is simulated, standing for the
  // others on the links they share). Class and full fidelity give the same step; the exchanges
  // cost several times what they cost on NVLink. So too DeepEP's kernels (the deepep dispatcher),
  // whose flows cross the network to the sender's rail and go on over NVLink.
  for (const auto& [dispatcher, tp] :
       {std::pair{"alltoall", 1}, std::pair{"allgather", 1}, std::pair{"alltoall", 2}, std::pair{"deepep", 1}}) {
    INFO(dispatcher << " tp " << tp);
    const Scenario across = mixtral("tp-cp-pp-dp", 8, dispatcher, tp),
                   inside = mixtral("tp-cp-dp-pp", 8, dispatcher, tp);
    const Pipeline p = build(across), q = build(inside);
    const EngineResult cls = simulate_step(across, p), full = simulate_step(across, p, EngineOptions(true));
    const EngineResult near = simulate_step(inside, q);
    INFO(std::setprecision(12) << "class " << cls.step.value << " s, full " << full.step.value << " s");
    CHECK(cls.step.value == Approx(full.step.value).epsilon(1e-6));
    double far_ep = 0, near_ep = 0;
    for (const auto& sp : cls.spans) far_ep += sp.ep;
    for (const auto& sp : near.spans) near_ep += sp.ep;
    CHECK(far_ep > 3 * near_ep);
  }
}

TEST_CASE("experts split over tp beside ep: class and full fidelity agree, the tp group's gathers cost tp time",
          "[engine][moe]") {
  // tp 2 (sequence parallel), dp 4, ep 4: with etp 2 each expert-parallel group is the 4 ranks of
  // one tp index, and after each dispatch the tp pair gathers its copies over NVLink (ops.cpp).
  // Across nodes (placed tp-cp-pp-dp) class and full fidelity agree. Inside a node (tp-cp-dp-pp)
  // the all-to-alls carry what they carry with whole experts over the same NVLink, so their time is
  // alike; the tensor-parallel time grows by the gathers and scatters.
  const Scenario across = mixtral("tp-cp-pp-dp", 4, "alltoall", 2, "1f1b", 2);
  REQUIRE(across.plan.expert_tp() == 2);
  const Pipeline p = build(across);
  const EngineResult cls = simulate_step(across, p), full = simulate_step(across, p, EngineOptions(true));
  INFO(std::setprecision(12) << "class " << cls.step.value << " s, full " << full.step.value << " s");
  CHECK(cls.step.value == Approx(full.step.value).epsilon(1e-6));
  const Scenario whole = mixtral("tp-cp-dp-pp", 4, "alltoall", 2),
                 split = mixtral("tp-cp-dp-pp", 4, "alltoall", 2, "1f1b", 2);
  const EngineResult a = simulate_step(whole, build(whole)), b = simulate_step(split, build(split));
  double tp_split = 0, tp_whole = 0, ep_split = 0, ep_whole = 0;
  for (const auto& sp : b.spans) tp_split += sp.tp, ep_split += sp.ep;
  for (const auto& sp : a.spans) tp_whole += sp.tp, ep_whole += sp.ep;
  CHECK(tp_split > tp_whole);
  CHECK(ep_split == Approx(ep_whole).epsilon(0.05));
}

TEST_CASE("a DualPipe pair runs each one's all-to-alls beside the other's computation", "[engine][moe]") {
  // deepseek-ai/DualPipe's overlapped forward-backward pairs: the forward's dispatches and combines
  // run while the backward beside it (and its weight gradients, run at once) computes, the
  // backward's while the forward computes, each taking of that time its share of the bytes. With
  // DeepEP's kernels they hold 20 of the 132 SMs (DeepSeek-V3 report §3.2.2) from it. Engine and
  // estimate agree; the all-to-alls of expert groups across nodes cost less exposed than 1F1B's.
  for (const char* dispatcher : {"alltoall", "deepep"}) {
    INFO(dispatcher);
    const Scenario s = mixtral("tp-cp-pp-dp", 8, dispatcher, 1, "dualpipe");
    const Pipeline p = build(s);
    const double share = std::string(dispatcher) == "deepep" ? 20.0 / 132.0 : 0.0;
    int64_t pairs = 0;
    for (const auto& program : p.steps.ranks)
      for (size_t i = 0; i < program.size(); ++i) {
        if (program[i].beside < 0) continue;
        ++pairs;
        const size_t f = static_cast<size_t>(program[i].beside);
        const Task &fwd = p.steps.tasks[static_cast<size_t>(program[f].task)],
                   &bwd = p.steps.tasks[static_cast<size_t>(program[i].task)];
        REQUIRE(fwd.kind == TaskKind::FORWARD);
        REQUIRE(bwd.kind == TaskKind::BACKWARD);
        double weights = 0;
        if (program[i].sends_at == static_cast<int64_t>(i) + 1)  // its weight gradients, run at once
          weights = p.steps.tasks[static_cast<size_t>(program[i + 1].task)].compute.value;
        const auto beside = [&](const Task& t) {
          double hidden = 0;
          for (const auto& use : t.collectives)
            if (use.group == CommGroup::EP) {
              CHECK(use.chunks == 1);
              CHECK(use.sm_share == Approx(share));
              hidden += use.hidden.value * double(use.count);
            }
          return hidden;
        };
        CHECK(beside(fwd) == Approx(bwd.compute.value + weights));
        CHECK(beside(bwd) == Approx(fwd.compute.value));
      }
    CHECK(pairs > 0);
    const double estimate = estimate_step(s, p, CommCosts(s)).step.value;
    const EngineResult r = simulate_step(s, p);
    INFO("engine " << r.step.value << " s, estimate " << estimate << " s");
    CHECK(r.step.value == Approx(estimate).epsilon(0.02));
    const Scenario plain = mixtral("tp-cp-pp-dp", 8, dispatcher);
    const EngineResult one = simulate_step(plain, build(plain));
    double ep_pairs = 0, ep_plain = 0;
    for (const auto& sp : r.spans) ep_pairs += sp.ep;
    for (const auto& sp : one.spans) ep_plain += sp.ep;
    CHECK(ep_pairs < ep_plain);
  }
}

TEST_CASE("Megatron's expert-parallel overlap: one warm-up forward more, then forward-backward pairs",
          "[engine][moe]") {
  // --overlap-moe-expert-parallel-comm (Megatron-LM schedules.py: the interleaved schedule's
  // warm-up, 2(pp-r-1) + (v-1)pp chunk forwards, grows by one; combined_1f1b.py: each steady-state
  // step a forward and an earlier microbatch's backward together). With pp 4, v 2 and 8
  // microbatches (16 chunk units a rank), rank r runs 16 - (2(3-r) + 4 + 1) pairs, each one's
  // all-to-alls beside the other's computation; its activations hold one chunk forward more.
  const auto scenario = [](bool overlap) {
    return mixtral_overlap(R"("tp": 1, "pp": 4, "virtual_stages": 2, "schedule": "interleaved", "dp": 8, "ep": 8,
                              "placement": "tp-cp-pp-dp")",
                           32, 64, overlap);
  };
  const Scenario s = scenario(true), plain = scenario(false);
  const Pipeline p = build(s);
  const int64_t pp = 4, v = 2, total = 16;
  for (int64_t r = 0; r < pp; ++r) {
    const auto& program = p.steps.ranks[static_cast<size_t>(r)];
    int64_t pairs = 0;
    for (size_t i = 0; i < program.size(); ++i) {
      if (program[i].beside < 0) continue;
      ++pairs;
      const size_t f = static_cast<size_t>(program[i].beside);
      REQUIRE(f + 1 == i);
      const Task &fwd = p.steps.tasks[static_cast<size_t>(program[f].task)],
                 &bwd = p.steps.tasks[static_cast<size_t>(program[i].task)];
      REQUIRE(fwd.kind == TaskKind::FORWARD);
      REQUIRE(bwd.kind == TaskKind::BACKWARD);
      // The backward's own forward ran before the pair: the two are of different microbatches or chunks.
      bool own_forward_before = false;
      for (size_t k = 0; k < f; ++k)
        own_forward_before |= program[k].microbatch == program[i].microbatch &&
                              p.steps.tasks[static_cast<size_t>(program[k].task)].kind == TaskKind::FORWARD &&
                              p.steps.tasks[static_cast<size_t>(program[k].task)].chunk == bwd.chunk;
      CHECK(own_forward_before);
      const auto beside = [](const Task& t) {
        double hidden = 0;
        for (const auto& use : t.collectives)
          if (use.group == CommGroup::EP) hidden += use.hidden.value * double(use.count);
        return hidden;
      };
      CHECK(beside(fwd) == Approx(bwd.compute.value));
      CHECK(beside(bwd) == Approx(fwd.compute.value));
    }
    INFO("rank " << r);
    CHECK(pairs == total - (2 * (pp - r - 1) + (v - 1) * pp + 1));
  }
  const double estimate = estimate_step(s, p, CommCosts(s)).step.value;
  const EngineResult r = simulate_step(s, p), one = simulate_step(plain, build(plain));
  INFO("engine " << r.step.value << " s, estimate " << estimate << " s, without the overlap " << one.step.value);
  CHECK(r.step.value == Approx(estimate).epsilon(0.02));
  double ep_pairs = 0, ep_plain = 0;
  for (const auto& sp : r.spans) ep_pairs += sp.ep;
  for (const auto& sp : one.spans) ep_plain += sp.ep;
  CHECK(ep_pairs < ep_plain);
  CHECK(r.step.value < one.step.value);
  // The middle ranks' activations: Megatron's 2(pp-r-1) + (v-1)pp + 1 chunks in flight, one more with it.
  const MemoryEstimate with = memory(s), without = memory(plain);
  for (int64_t rank = 1; rank + 1 < pp; ++rank) {
    const double chunks = static_cast<double>(2 * (pp - rank - 1) + (v - 1) * pp + 1);
    CHECK(with.stages[static_cast<size_t>(rank)].activations.value ==
          Approx(without.stages[static_cast<size_t>(rank)].activations.value * (chunks + 1) / chunks));
  }
}

TEST_CASE("Megatron's expert-parallel overlap on pp 1: each forward beside the backward before it", "[engine][moe]") {
  // combined_1f1b.py's order on pp 1: F0, then (F1, B0), (F2, B1), (F3, B2), then B3 -- m - 1 pairs
  // for m = 4 microbatches (32 sequences over dp 8), two microbatches' activations at once.
  const auto scenario = [](bool overlap) {
    return mixtral_overlap(R"("tp": 1, "pp": 1, "dp": 8, "ep": 8)", 8, 32, overlap);
  };
  const Scenario s = scenario(true), plain = scenario(false);
  const Pipeline p = build(s);
  const auto& program = p.steps.ranks[0];
  std::vector<std::string> order;
  for (const auto& slot : program) {
    const TaskKind kind = p.steps.tasks[static_cast<size_t>(slot.task)].kind;
    if (kind != TaskKind::FORWARD && kind != TaskKind::BACKWARD) continue;
    order.push_back((kind == TaskKind::FORWARD ? "F" : "B") + std::to_string(slot.microbatch) +
                    (slot.beside >= 0 ? "*" : ""));
  }
  // A backward run beside the forward before it is marked *.
  CHECK(order == std::vector<std::string>{"F0", "F1", "B0*", "F2", "B1*", "F3", "B2*", "B3"});
  const double estimate = estimate_step(s, p, CommCosts(s)).step.value;
  const EngineResult r = simulate_step(s, p), one = simulate_step(plain, build(plain));
  INFO("engine " << r.step.value << " s, estimate " << estimate << " s, without the overlap " << one.step.value);
  CHECK(r.step.value == Approx(estimate).epsilon(0.02));
  CHECK(r.step.value < one.step.value);
  const MemoryEstimate with = memory(s), without = memory(plain);
  CHECK(with.stages[0].activations.value > without.stages[0].activations.value * 1.9);
}

TEST_CASE("expert gradients are reduced over the expert-data-parallel ranks, the rest over dp", "[workload][moe]") {
  // ep 4 of dp 8: the groups of every 4th rank of cp x dp (2 ranks each) all-reduce each bucket's
  // experts' part; the dp groups (8 ranks) its dense part. A Mixtral stage is 8 MoE layers: its
  // buckets' expert parts sum to its routed experts' parameters over ep, the rest dense.
  const Scenario s = mixtral("tp-cp-dp-pp", 4);
  const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
  const Placement place(s.cluster, s.plan);
  REQUIRE(grad_groups(s.plan) == 1 + 4);
  CHECK_FALSE(reduces_experts(s.plan, 0));
  CHECK(dp_group(s.plan, place, 1, 0).size() == 8);
  for (int64_t g = 1; g < 5; ++g) {
    CHECK(reduces_experts(s.plan, g));
    const auto members = dp_group(s.plan, place, 1, g);
    REQUIRE(members.size() == 2);
    for (size_t i = 0; i < 2; ++i) {
      const RankCoord c = place.coord(members[i]);
      CHECK(c.pp == 1);
      CHECK(c.dp == (g - 1) + 4 * int64_t(i));
    }
    CHECK(group_buffer(s.plan, g, GradBucket{Bytes(3), Bytes(5)}).value == 5);
  }
  CHECK(group_buffer(s.plan, 0, GradBucket{Bytes(3), Bytes(5)}).value == 3);
  Scenario overlapped = s;
  overlapped.plan.overlap_grad_reduce = true;
  const double per_param = overlapped.training.grad_bytes() * overlapped.plan.reduction_passes();
  for (int64_t r = 1; r < 4; ++r) {  // the stages without the embedding's large first bucket
    double dense = 0, expert = 0;
    for (const GradBucket& b : grad_buckets(overlapped, layout, r, 0)) dense += b.dense.value, expert += b.expert.value;
    const double experts = rank_routed_expert_params(s, layout, r);
    CHECK(experts == Approx(8.0 * s.model.routed_expert_params() / 4.0));
    CHECK(expert == Approx(experts * per_param).epsilon(1e-12));
    CHECK(dense == Approx((rank_params(s, layout, r) - experts) * per_param).epsilon(1e-12));
  }
}

TEST_CASE("under FSDP each MoE layer's unit splits into its dense part and the rank's experts", "[workload][moe]") {
  // ZeRO-3 (FSDP) with ep 4 of dp 8: one bucket per layer, each Mixtral layer's holding its dense
  // parameters and the rank's 2 of 8 experts, which FSDP shards over the 2 expert-data-parallel
  // ranks as it shards the dense part over the 8 data-parallel ones (torchtitan's and NeMo
  // AutoModel's expert sharding over dp / ep). So each rank keeps, of the weights, the same share
  // as at ep 1, its stage's dense parameters over 8 and every expert over 8 in all, where it
  // reshards them after the forward; kept gathered (the default with a pipeline), it holds its
  // stage's weights whole but of the experts only its own.
  Scenario s = mixtral("tp-cp-dp-pp", 4);
  s.plan.zero = 3, s.plan.overlap_grad_reduce = true;
  Scenario one = s;
  one.plan.ep = 1;
  const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
  const double per_param = s.training.grad_bytes() * s.plan.reduction_passes();
  const double layer_experts = s.model.routed_expert_params() / 4.0;
  for (int64_t r = 0; r < 4; ++r) {
    INFO("stage " << r);
    const auto buckets = grad_buckets(s, layout, r, 0);
    REQUIRE(buckets.size() == static_cast<size_t>(layout.layers_on_rank(r)));
    double dense = 0, expert = 0;
    for (const GradBucket& b : buckets) {
      CHECK(b.expert.value == Approx(layer_experts * per_param).epsilon(1e-12));  // every Mixtral layer is MoE
      dense += b.dense.value, expert += b.expert.value;
    }
    const double experts = rank_routed_expert_params(s, layout, r);
    CHECK(expert == Approx(experts * per_param).epsilon(1e-12));
    CHECK(dense == Approx((rank_params(s, layout, r) - experts) * per_param).epsilon(1e-12));
  }
  const MemoryEstimate kept = estimate_memory(s, layout, 1);
  for (Scenario* x : {&s, &one}) x->plan.reshard_after_forward = true;
  const MemoryEstimate a = estimate_memory(one, layout, 1), b = estimate_memory(s, layout, 1);
  for (size_t r = 0; r < 4; ++r) {
    CHECK(b.stages[r].weights.value == Approx(a.stages[r].weights.value).epsilon(1e-12));
    CHECK(b.stages[r].optimizer.value == Approx(a.stages[r].optimizer.value).epsilon(1e-12));
    CHECK(kept.stages[r].weights.value == Approx(rank_params(s, layout, int64_t(r)) * 2.0).epsilon(1e-12));
  }
}

TEST_CASE("FSDP with expert parallelism across nodes: class and full fidelity agree", "[engine][moe]") {
  // The same plan under ZeRO-3, each expert-parallel group two to a node: per layer, the dense
  // part's collectives over dp and the experts' over the expert-data-parallel ranks, beside the
  // live all-to-alls.
  Scenario s = mixtral("tp-cp-pp-dp", 8);
  s.plan.zero = 3, s.plan.overlap_grad_reduce = true;
  const Pipeline p = build(s);
  const EngineResult cls = simulate_step(s, p), full = simulate_step(s, p, EngineOptions(true));
  INFO(std::setprecision(12) << "class " << cls.step.value << " s, full " << full.step.value << " s");
  CHECK(cls.step.value == Approx(full.step.value).epsilon(1e-6));
  double dp = 0;
  for (const auto& sp : cls.spans) dp += sp.dp;
  CHECK(dp > 0);
}
