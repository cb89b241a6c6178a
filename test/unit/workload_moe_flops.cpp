// Model FLOPs per token of the mixture-of-experts and latent-attention models of models/, summed
// over the ops of their layers (dense and MoE, ModelSpec::moe_layer) and the output layer, forward
// and backward, against the counts their trainers publish:
//   - DeepSeek-V3 (arXiv 2505.09343, ISCA'25, the MPFT table: 432 TFLOPS non-causal and 385
//     causal per GPU at 1,541.7 tokens/s/GPU, sequence 4,096): 280.2 and 249.7 GFLOP per token,
//     without its multi-token prediction module;
//   - Megatron-Bridge's performance summaries (NVIDIA-NeMo/Megatron-Bridge
//     docs/performance-summary*.md@067f987: "Model TFLOP/sec/GPU" over tokens/s/GPU, sequence
//     4,096, force-balanced routing): Qwen3-235B-A22B 147.8-147.9, Qwen3-30B-A3B 23.0, Kimi-K2
//     204.6 GFLOP per token, counted causal (DeepSeek-V3 without MTP: 249.1, DeepSeek's causal
//     249.7 within 0.3%); GPT-OSS-120B 32.58 at release 26.08 (934 TFLOP/s at 28,672 tokens/s on
//     GB200; earlier releases' 27.1 counted otherwise).
// "Causal" counts the attention core's score and context products over half the square (a causal
// mask's share); the model-FLOPs convention here counts the whole square (ops.hpp), so the causal
// figure is the model FLOPs less half the attention core's.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/ops.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

constexpr int64_t SEQ = 4096;

// One GPU, no tensor parallelism, FlashAttention, no recompute: the ops of one sequence.
Scenario on_one_gpu(const std::string& model, int64_t tp = 1) {
  const std::string text = fill(R"({"kind": "scenario", "name": "moe-flops", "model": "{model}",
    "cluster": {"gpu": "h100-sxm", "gpus": {tp}, "gpus_per_node": 8,
                "scale_up": {"kind": "nvswitch", "bandwidth": "450 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "400 Gb/s"}},
    "parallelism": {"tp": {tp}, "pp": 1, "dp": 1},
    "training": {"seq_len": {s}, "global_batch": 1, "micro_batch": 1, "recompute": "none",
                 "precision": "bf16", "attention": "flash"}})",
                                {{"model", model}, {"tp", std::to_string(tp)}, {"s", std::to_string(SEQ)}});
  // Sections only: running an MoE model is refused until its experts are priced on the topology.
  return parse_scenario_sections(ParamReader::from_text(text, "moe-flops.json"), TRAINSIM_SOURCE_DIR);
}

struct PerToken {
  double model = 0;     // GFLOP, the whole attention square
  double causal = 0;    // GFLOP, half the attention core's
  double hardware = 0;  // GFLOP, what the kernels execute on one of tp ranks, times tp
};

PerToken per_token(const Scenario& s) {
  PerToken out;
  double core = 0;
  const auto add = [&](const PassOps& p, double times) {
    for (const auto* ops : {&p.forward, &p.backward})
      for (const Op& op : *ops) {
        out.model += op.flops.value * times;
        if (op.attention_core) core += op.flops.value * times;
        const bool executes_other = op.cls == OpClass::FLASH_ATTENTION || op.executed.value > 0;
        out.hardware += (executes_other ? op.executed : op.flops).value * times;
      }
  };
  for (int64_t i = 0; i < s.model.layers; ++i) add(layer_ops(s, 1, s.model.moe_layer(i), s.model.windowed_layer(i)), 1);
  add(output_ops(s, 1), 1);
  const double tokens = static_cast<double>(SEQ), tp = static_cast<double>(s.plan.tp);
  out.causal = (out.model - core / 2) * tp / tokens / 1e9;
  out.model *= tp / tokens / 1e9;
  out.hardware *= tp / tokens / 1e9;
  return out;
}

}  // namespace

TEST_CASE("DeepSeek-V3's FLOPs per token: 280.2 GFLOP non-causal, 249.7 causal", "[workload][moe]") {
  const Scenario s = on_one_gpu("deepseek-v3");
  const PerToken v3 = per_token(s);
  CHECK(v3.model == Approx(280.2).epsilon(0.005));
  CHECK(v3.causal == Approx(249.7).epsilon(0.005));
  // Closed form from the model card: 6 x the activated parameters that multiply
  // (not the embedding lookup's, nor the norms') plus the MLA core, 2 s n_h (d_qk + d_v) per token
  // and layer forward, three times for forward and backward. The output layer's vocabulary is
  // padded to a multiple of 128 (Megatron-LM): 129,280 already is.
  const ModelSpec& m = s.model;
  const MlaSpec& a = *m.mla;
  const double d_qk = double(a.qk_nope_head_dim + a.qk_rope_head_dim), d_v = double(a.v_head_dim);
  const double core = 3.0 * 2.0 * double(SEQ) * double(m.heads) * (d_qk + d_v) * double(m.layers);
  const double not_multiplied = m.embedding_params() + double(m.hidden) * (1 + 2.0 * double(m.layers)) +
                                double(a.q_lora_rank + a.kv_lora_rank) * double(m.layers);
  CHECK(v3.model == Approx((6.0 * (m.active_params() - not_multiplied) + core) / 1e9).epsilon(1e-9));
}

TEST_CASE("Megatron-Bridge's FLOPs per token of Qwen3 and Kimi-K2, causal", "[workload][moe]") {
  CHECK(per_token(on_one_gpu("qwen3-235b-a22b")).causal == Approx(147.85).epsilon(0.005));
  CHECK(per_token(on_one_gpu("qwen3-30b-a3b")).causal == Approx(23.0).epsilon(0.005));
  CHECK(per_token(on_one_gpu("kimi-k2")).causal == Approx(204.6).epsilon(0.005));
}

TEST_CASE("Tensor parallelism splits an MoE layer's model FLOPs, the duplicated GEMMs run on every rank",
          "[workload][moe]") {
  // The same model FLOPs per token on 8 ranks as on one; the hardware FLOPs add what each rank
  // runs whole: MLA's two down-projections and the router, forward and backward (3 x 2 x their
  // weights per token), on the 7 ranks beyond the first.
  const Scenario one_gpu = on_one_gpu("deepseek-v3"), s = on_one_gpu("deepseek-v3", 8);
  const PerToken one = per_token(one_gpu), eight = per_token(s);
  const ModelSpec& m = s.model;
  const double h = double(m.hidden);
  // The output layer's vocabulary is padded to a multiple of 128 tp (Megatron-LM): 6 h per padded
  // entry more on 8 ranks.
  const double padding = 6.0 * h * double(padded_vocab(s) - padded_vocab(one_gpu)) / 1e9;
  CHECK(padded_vocab(s) > padded_vocab(one_gpu));
  CHECK(eight.model - one.model == Approx(padding).epsilon(1e-9));
  const double down = h * double(m.mla->q_lora_rank + m.mla->kv_lora_rank + m.mla->qk_rope_head_dim);
  const double router = h * double(m.moe->experts) * double(m.moe_layers());
  const double duplicated = 6.0 * (down * double(m.layers) + router);
  CHECK(eight.hardware - one.hardware == Approx(7.0 * duplicated / 1e9 + padding).epsilon(1e-9));
}

TEST_CASE("Stages hold their own layers' kinds: DeepSeek's first dense layers, Llama 4's alternation",
          "[workload][moe]") {
  // 61 layers on 16 stages: 3 + 3 + 13 x 4 + 3 (make_stage_layout takes the 3 missing layers from
  // the first, the last and the second stage), the first three layers dense (first_k_dense_replace).
  Scenario s = on_one_gpu("deepseek-v3");
  s.plan.pp = 16;
  const StageLayout v3 = make_stage_layout(s.model, s.plan, 1, s.file);
  CHECK(v3.layers_of(0, 0) == 3);
  CHECK(v3.moe_layers_of(0, 0) == 0);
  int64_t moe = 0;
  for (int64_t r = 0; r < 16; ++r) {
    CHECK(v3.first_layer(r, 0) == (r < 2 ? 3 * r : 6 + 4 * (r - 2)));
    if (r > 0) CHECK(v3.moe_layers_of(r, 0) == v3.layers_of(r, 0));
    moe += v3.moe_layers_on_rank(r);
  }
  CHECK(moe == 58);
  // Llama 4 Maverick, 48 layers on 4 ranks x 2 virtual stages: 6 each, every second one MoE.
  Scenario l4 = on_one_gpu("llama4-maverick");
  l4.plan.pp = 4;
  const StageLayout maverick = make_stage_layout(l4.model, l4.plan, 2, l4.file);
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < 2; ++c) {
      CHECK(maverick.first_layer(r, c) == 6 * (c * 4 + r));
      CHECK(maverick.moe_layers_of(r, c) == 3);
    }
}

TEST_CASE("A step's task graph counts each layer of its kind once per token, and the MTP module", "[workload][moe]") {
  // DeepSeek-V3 on 4 stages, one GPU each, 4 sequences: the graph's model FLOPs are the layers'
  // and output layer's per token (above) for every token, plus one MTP module per sequence.
  const std::string text = fill(R"({"kind": "scenario", "name": "moe-step", "model": "deepseek-v3",
    "cluster": {"gpu": "h100-sxm", "gpus": 4, "gpus_per_node": 4,
                "scale_up": {"kind": "nvswitch", "bandwidth": "450 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": 4, "nic_bandwidth": "400 Gb/s"}},
    "parallelism": {"tp": 1, "pp": 4, "dp": 1, "virtual_stages": 1},
    "training": {"seq_len": {s}, "global_batch": 4, "micro_batch": 1, "recompute": "selective",
                 "precision": "bf16", "attention": "flash"}})",
                                {{"s", std::to_string(SEQ)}});
  const Scenario s = parse_scenario(ParamReader::from_text(text, "moe-step.json"), TRAINSIM_SOURCE_DIR);
  ComputeModel cm(s.cluster.device, s.training.precision);
  const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
  const Pipeline p = build_pipeline(s, layout, 1, cm);
  double model = 0;
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) model += p.graph[v].model_flops.value;
  const PassOps mtp = mtp_ops(s, 1);
  const double per_sequence_mtp = sum_flops(mtp.forward).value + sum_flops(mtp.backward).value;
  CHECK(per_sequence_mtp > 0);
  const double tokens = 4.0 * SEQ;
  CHECK(model == Approx(per_token(s).model * 1e9 * tokens + 4.0 * per_sequence_mtp).epsilon(1e-9));
}

TEST_CASE("The stages' parameters sum to the model's, each layer of its own kind", "[workload][moe]") {
  // Over every pipeline rank and tensor-parallel rank: every parameter once (ModelSpec's count,
  // the MTP modules' with it), but the final norm, which every tensor-parallel rank holds whole,
  // and the untied embedding's and output layer's rows padded to a multiple of 128 tp
  // (Maverick's 202,048 to 202,240); Llama 4 Maverick over 2 virtual stages.
  for (const auto& [name, pp, v] : {std::tuple<const char*, int64_t, int64_t>{"deepseek-v3", 4, 1},
                                    {"llama4-maverick", 4, 2},
                                    {"mixtral-8x7b", 2, 1}}) {
    Scenario s = on_one_gpu(name, 2);
    s.plan.pp = pp;
    const StageLayout layout = make_stage_layout(s.model, s.plan, v, s.file);
    REQUIRE_FALSE(s.model.tied_embeddings);
    const double h = double(s.model.hidden), padding = 2.0 * double(padded_vocab(s) - s.model.vocab) * h;
    double held = 0;
    for (int64_t r = 0; r < pp; ++r) held += rank_params(s, layout, r) * 2.0;
    INFO(name);
    CHECK(held == Approx(s.model.total_params() + s.model.mtp_params() + h + padding).epsilon(1e-12));
  }
}

TEST_CASE("FSDP's gathered units on a stage that mixes dense and MoE layers", "[workload][moe]") {
  // DeepSeek-V3 on 4 stages (15, 15, 16, 15 layers), the first holding the 3 dense layers and 12
  // MoE ones, ZeRO-3 over 2 data-parallel ranks, resharded after the forward: its working set is two
  // of its largest (MoE) layers' 16-bit weights and the rest of what it holds, the embedding
  // shard, gathered from its other shard (memory.cpp, ZeRO-3).
  Scenario s = on_one_gpu("deepseek-v3", 2);
  s.plan.pp = 4;
  s.plan.dp = 2;
  s.plan.zero = 3;
  s.plan.reshard_after_forward = true;
  const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
  REQUIRE(layout.dense_layers_of(0, 0) == 3);
  REQUIRE(layout.moe_layers_of(0, 0) == 12);
  const StageMemory first = estimate_memory(s, layout, 1).stages.front();
  const double embedding = double(padded_vocab(s)) * double(s.model.hidden) / 2.0;
  const double two_moe_layers = 2.0 * s.model.layer_params_per_rank(2, true) * 2.0;
  CHECK(first.workspace.value == Approx(two_moe_layers + embedding * 2.0 * (1.0 - 1.0 / 2.0)).epsilon(1e-9));
}

namespace {

const Op& named(const std::vector<Op>& ops, const std::string& name) {
  for (const Op& op : ops)
    if (op.name == name) return op;
  FAIL("no op " << name);
  return ops.front();
}

std::vector<const Op*> exchanges(const std::vector<Op>& ops) {
  std::vector<const Op*> out;
  for (const Op& op : ops)
    if (op.cls == OpClass::COLLECTIVE && op.group == CommGroup::EP) out.push_back(&op);
  return out;
}

}  // namespace

TEST_CASE("Expert parallelism: experts / ep per rank, ep times their tokens, dispatch and combine around them",
          "[workload][moe]") {
  // DeepSeek-V3 (256 experts, top 8) with ep 8: each rank runs 32 experts on the token copies the
  // 8 ranks route to them -- 4,096 x 8 x 8 / 256 = 1,024 rows each, forced balance -- so the
  // expert GEMMs' FLOPs are ep 1's. The alltoall dispatcher sends the rank's 4,096 x 8 token copies
  // (hidden wide, bf16) to their experts' ranks and back; the allgather one gathers the 8 ranks'
  // 4,096 tokens and reduce-scatters the outputs. Backward, each one's reverse.
  Scenario one = on_one_gpu("deepseek-v3");
  Scenario s = one;
  s.plan.ep = 8;  // the ops alone: the plan's other checks are not in question here
  const PassOps base = layer_ops(one, 1, true), ep8 = layer_ops(s, 1, true);
  const double tokens = SEQ, k = 8, experts = 256, h = double(s.model.hidden);
  for (const char* name : {"expert_fc1", "expert_fc2"}) {
    INFO(name);
    const Op &a = named(base.forward, name), &b = named(ep8.forward, name);
    CHECK(b.shape.batch == experts / 8);
    CHECK(b.shape.m == tokens * k * 8 / experts);
    CHECK(b.flops.value == Approx(a.flops.value).epsilon(1e-12));
  }
  CHECK(exchanges(base.forward).empty());
  CHECK(exchanges(base.backward).empty());
  const auto fwd = exchanges(ep8.forward), bwd = exchanges(ep8.backward);
  REQUIRE(fwd.size() == 2);
  REQUIRE(bwd.size() == 2);
  for (const Op* op : {fwd[0], fwd[1], bwd[0], bwd[1]}) {
    CHECK(op->collective == CollectiveKind::ALL_TO_ALL);
    CHECK(op->bytes.value == Approx(tokens * k * h * 2.0));
  }
  s.plan.dispatcher = Dispatcher::ALLGATHER;
  const PassOps gathered = layer_ops(s, 1, true);
  const auto gf = exchanges(gathered.forward), gb = exchanges(gathered.backward);
  REQUIRE(gf.size() == 2);
  REQUIRE(gb.size() == 2);
  CHECK(gf[0]->collective == CollectiveKind::ALL_GATHER);      // dispatch
  CHECK(gf[1]->collective == CollectiveKind::REDUCE_SCATTER);  // combine
  CHECK(gb[0]->collective == CollectiveKind::ALL_GATHER);      // the combine's reverse
  CHECK(gb[1]->collective == CollectiveKind::REDUCE_SCATTER);  // the dispatch's reverse
  for (const Op* op : {gf[0], gf[1], gb[0], gb[1]}) CHECK(op->bytes.value == Approx(8 * tokens * h * 2.0));
}

TEST_CASE("Expert parallelism folded beside tensor parallelism: a rank routes its own s/tp tokens to whole experts",
          "[workload][moe]") {
  // DeepSeek-V3 at tp 2 (sequence parallel) and ep 8, Megatron-Core's MoE parallel folding with
  // expert_tensor_parallel_size 1: each rank runs 32 experts whole (fc1 2 x 2048 wide) on the
  // token copies its 8-rank group routes to them, 2,048 x 8 x 8 / 256 = 512 rows each; its
  // all-to-alls carry its own 2,048 tokens' 8 copies; no all-gather before the MoE layer or
  // reduce-scatter after it, but one around the shared expert (split over tp as a dense MLP), on
  // the whole 4,096 tokens. The rank's model FLOPs are half of one GPU's: tp still splits the work.
  Scenario one = on_one_gpu("deepseek-v3");
  one.plan.ep = 8;
  Scenario s = on_one_gpu("deepseek-v3", 2);
  s.plan.ep = 8, s.plan.sequence_parallel = true;
  REQUIRE(s.plan.expert_tp() == 1);
  const PassOps folded = layer_ops(s, 1, true), whole = layer_ops(one, 1, true);
  const double tokens = SEQ / 2.0, k = 8, experts = 256, h = double(s.model.hidden);
  const Op& fc1 = named(folded.forward, "expert_fc1");
  CHECK(fc1.shape.batch == experts / 8);
  CHECK(fc1.shape.m == tokens * k * 8 / experts);
  CHECK(fc1.shape.n == 2.0 * 2048.0);
  for (const auto* ops : {&folded.forward, &folded.backward}) {
    const auto a2a = exchanges(*ops);
    REQUIRE(a2a.size() == 2);
    for (const Op* op : a2a) CHECK(op->bytes.value == Approx(tokens * k * h * 2.0));
    for (const char* gone : {"tp_mlp_in", "tp_mlp_out", "tp_mlp_in_bwd", "tp_mlp_out_bwd"})
      CHECK(std::none_of(ops->begin(), ops->end(), [&](const Op& o) { return o.name == gone; }));
  }
  const Op& gather = named(folded.forward, "tp_shared_in");
  CHECK(gather.collective == CollectiveKind::ALL_GATHER);
  CHECK(gather.bytes.value == Approx(SEQ * h * 2.0));
  CHECK(named(folded.forward, "tp_shared_out").collective == CollectiveKind::REDUCE_SCATTER);
  CHECK(named(folded.forward, "router").executed.value == 0);  // its own tokens: not duplicated
  CHECK(2.0 * sum_flops(folded.forward).value == Approx(sum_flops(whole.forward).value).epsilon(1e-12));
  CHECK(2.0 * sum_flops(folded.backward).value == Approx(sum_flops(whole.backward).value).epsilon(1e-12));
}

TEST_CASE("Experts split over tp beside ep (etp = tp): the tp group gathers what the dispatch brings",
          "[workload][moe]") {
  // DeepSeek-V3 at tp 2 (sequence parallel), ep 8, etp 2 (Megatron-LM's default: the experts'
  // tensor-parallel size the tensor-parallel size): a rank routes its own 2,048 tokens' 8 copies
  // over its expert-parallel group as when folded, then its tp group gathers the copies both its
  // ranks received, 2 x 2,048 x 8 rows of 16 bits, which the rank's 32 experts take at half their
  // width (fc1 2 x 2048 / 2): 2 x 2,048 x 8 x 8 / 256 = 1,024 rows each. The experts' output is
  // reduce-scattered back before the combine; the backward runs each one's reverse. The same
  // FLOPs per rank as folded with whole experts.
  Scenario folded = on_one_gpu("deepseek-v3", 2);
  folded.plan.ep = 8, folded.plan.sequence_parallel = true;
  Scenario split = folded;
  split.plan.etp = 2;
  REQUIRE(split.plan.expert_tp() == 2);
  const PassOps a = layer_ops(folded, 1, true), b = layer_ops(split, 1, true);
  const double tokens = SEQ / 2.0, k = 8, experts = 256, h = double(split.model.hidden), etp = 2;
  const Op& fc1 = named(b.forward, "expert_fc1");
  CHECK(fc1.shape.batch == experts / 8);
  CHECK(fc1.shape.m == etp * tokens * k * 8 / experts);
  CHECK(fc1.shape.n == 2.0 * 2048.0 / etp);
  const double gathered = etp * tokens * k * h * 2.0;
  for (const auto& [name, kind] : {std::pair{"etp_gather", CollectiveKind::ALL_GATHER},
                                   std::pair{"etp_scatter", CollectiveKind::REDUCE_SCATTER}}) {
    INFO(name);
    const Op& fwd = named(b.forward, name);
    CHECK(fwd.group == CommGroup::TP);
    CHECK(fwd.collective == kind);
    CHECK(fwd.bytes.value == Approx(gathered));
    const Op& bwd = named(b.backward, std::string(name) + "_bwd");
    CHECK(bwd.collective ==
          (kind == CollectiveKind::ALL_GATHER ? CollectiveKind::REDUCE_SCATTER : CollectiveKind::ALL_GATHER));
    CHECK(bwd.bytes.value == Approx(gathered));
  }
  for (const auto* ops : {&b.forward, &b.backward}) {
    const auto a2a = exchanges(*ops);
    REQUIRE(a2a.size() == 2);
    for (const Op* op : a2a) CHECK(op->bytes.value == Approx(tokens * k * h * 2.0));
    CHECK(std::none_of(ops->begin(), ops->end(), [](const Op& o) { return o.name.rfind("tp_mlp", 0) == 0; }));
  }
  CHECK(sum_flops(b.forward).value == Approx(sum_flops(a.forward).value).epsilon(1e-12));
  CHECK(sum_flops(b.backward).value == Approx(sum_flops(a.backward).value).epsilon(1e-12));
  // Folded, none of it.
  CHECK(std::none_of(a.forward.begin(), a.forward.end(), [](const Op& o) { return o.name == "etp_gather"; }));
}

TEST_CASE("Experts split over tp beside ep: each rank holds 1/(ep x etp) of them and keeps its group's copies",
          "[workload][moe]") {
  // DeepSeek-V3 on 4 stages at tp 2, dp 16, ep 8, etp 2: a rank holds 1/16 of its stage's routed
  // experts (1/8 with whole experts), and the distributed optimizer shards them over the
  // expert-data-parallel tp x dp / (ep x etp) = 2 ranks: the same states per rank as folded. A
  // layer keeps, for fc1's weight gradient, the copies its tp group gathered: etp times its own
  // tokens' 8 copies, 16-bit, where folded it keeps its own.
  Scenario folded = on_one_gpu("deepseek-v3", 2);
  folded.plan.pp = 4, folded.plan.dp = 16, folded.plan.zero = 1, folded.plan.sequence_parallel = true;
  folded.plan.ep = 8;
  Scenario split = folded;
  split.plan.etp = 2;
  REQUIRE(split.plan.expert_dp() == 2);
  const StageLayout layout = make_stage_layout(split.model, split.plan, 1, split.file);
  const double routed = 256.0 * 3.0 * 7168.0 * 2048.0;
  for (int64_t r = 0; r < 4; ++r) {
    INFO("stage " << r);
    const double moe = double(layout.moe_layers_on_rank(r)) + (r == 3 ? double(split.model.mtp_layers) : 0.0);
    CHECK(rank_routed_expert_params(split, layout, r) == Approx(moe * routed / 16.0).epsilon(1e-12));
    CHECK(rank_params(folded, layout, r) - rank_params(split, layout, r) ==
          Approx(moe * routed * (1.0 / 8.0 - 1.0 / 16.0)).epsilon(1e-12));
    CHECK(rank_sharded_params(split, layout, r) == Approx(rank_sharded_params(folded, layout, r)).epsilon(1e-12));
  }
  const double tokens = SEQ / 2.0, k = 8, h = 7168;
  CHECK((layer_activation_bytes(split, 1, true) - layer_activation_bytes(folded, 1, true)).value ==
        Approx(tokens * k * h * 2.0 * (2.0 - 1.0)));
  CHECK(layer_activation_bytes(split, 1, false).value == Approx(layer_activation_bytes(folded, 1, false).value));
}

TEST_CASE(
    "Expert parallelism holds 1/ep of the routed experts, and ZeRO shards them over the expert-data-parallel ranks",
    "[workload][moe]") {
  // DeepSeek-V3's routed experts: 256 of 3 x 7168 x 2048 SwiGLU weights, no biases, per MoE layer.
  // On 4 stages at tp 2 with ep 8, folded (ParallelPlan::expert_tp: the experts whole), each rank
  // holds 1/8 of its stage's (its MoE layers' and, on the last, the MTP module's), where at ep 1
  // it holds their tp share, 1/2; the rest as at ep 1. Megatron-Core's distributed optimizer
  // shards the dense parameters over dp x cp and the experts' over the expert-data-parallel
  // tp x dp x cp / 8: the same states per rank as at ep 1 (each of the stage's experts over tp x dp
  // x cp ranks in all).
  Scenario one = on_one_gpu("deepseek-v3", 2);
  one.plan.pp = 4, one.plan.dp = 16, one.plan.zero = 1, one.plan.sequence_parallel = true;
  Scenario s = one;
  s.plan.ep = 8;
  const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
  const double routed = 256.0 * 3.0 * 7168.0 * 2048.0;
  CHECK(s.model.routed_expert_params() == Approx(routed).epsilon(1e-15));
  for (int64_t r = 0; r < 4; ++r) {
    INFO("stage " << r);
    const double moe = double(layout.moe_layers_on_rank(r)) + (r == 3 ? double(s.model.mtp_layers) : 0.0);
    CHECK(moe > 0);
    CHECK(rank_routed_expert_params(s, layout, r) == Approx(moe * routed / 8.0).epsilon(1e-12));
    CHECK(rank_params(one, layout, r) - rank_params(s, layout, r) ==
          Approx(moe * routed * (1.0 / 2.0 - 1.0 / 8.0)).epsilon(1e-12));
    CHECK(rank_sharded_params(s, layout, r) == Approx(rank_sharded_params(one, layout, r)).epsilon(1e-12));
    CHECK(rank_sharded_params(one, layout, r) == Approx(rank_params(one, layout, r) / 16.0).epsilon(1e-15));
  }
  const MemoryEstimate a = estimate_memory(one, layout, 1), b = estimate_memory(s, layout, 1);
  for (size_t r = 0; r < 4; ++r) {
    CHECK(b.stages[r].optimizer.value == Approx(a.stages[r].optimizer.value).epsilon(1e-12));
    CHECK(b.stages[r].weights.value < a.stages[r].weights.value);  // 1/8 of the experts
  }
}

TEST_CASE("FP8 experts: their GEMMs in FP8, each input cast once per token copy, DeepEP's dispatch in FP8",
          "[workload][moe]") {
  // Qwen3-30B-A3B (128 experts, top 8, 768 wide, no shared expert) on H100 (its FP8 GEMM reads
  // transposed operands: each cast writes the transpose too, 4 bytes per element) with ep 8: the
  // 4,096 x 8 token copies cast before fc1 and their 768-wide activations before fc2; backward the
  // output gradients (fc1's twice as wide, gated) and fc1's saved input transposed. The model FLOPs
  // are BF16's. With the deepep dispatcher the rank's 4,096 tokens are cast before the dispatch,
  // which carries 1 byte and a 4-byte scale per 128 elements, and the copies transposed after it.
  Scenario s = on_one_gpu("qwen3-30b-a3b");
  s.plan.ep = 8;
  Scenario fp8 = s;
  fp8.training.precision = Precision::FP8;
  const PassOps a = layer_ops(s, 1, true), b = layer_ops(fp8, 1, true);
  const double copies = SEQ * 8.0, h = double(s.model.hidden), fe = 768.0;
  for (const char* name : {"expert_fc1", "expert_fc2"}) {
    CHECK(named(b.forward, name).precision == Precision::FP8);
    CHECK(named(a.forward, name).precision == Precision::BF16);
  }
  CHECK(named(b.forward, "fp8_cast_transpose_expert_in").bytes.value == Approx(4.0 * copies * h));
  CHECK(named(b.forward, "fp8_cast_transpose_expert_fc2_in").bytes.value == Approx(4.0 * copies * fe));
  CHECK(named(b.backward, "fp8_cast_transpose_expert_fc2_dgrad").bytes.value == Approx(4.0 * copies * h));
  CHECK(named(b.backward, "fp8_cast_transpose_expert_fc1_dgrad").bytes.value == Approx(4.0 * copies * 2.0 * fe));
  CHECK(named(b.backward, "fp8_transpose_expert_fc1_in").bytes.value == Approx(2.0 * copies * h));
  CHECK(sum_flops(b.forward).value == Approx(sum_flops(a.forward).value).epsilon(1e-12));
  CHECK(sum_flops(b.backward).value == Approx(sum_flops(a.backward).value).epsilon(1e-12));
  for (const Op* op : exchanges(b.forward)) CHECK(op->bytes.value == Approx(copies * h * 2.0));  // NCCL's: 16 bits
  fp8.plan.dispatcher = Dispatcher::DEEPEP;
  const PassOps c = layer_ops(fp8, 1, true);
  const auto ex = exchanges(c.forward);
  REQUIRE(ex.size() == 2);
  CHECK(ex[0]->bytes.value == Approx(copies * h * (1.0 + 4.0 / 128.0)));  // dispatch
  CHECK(ex[1]->bytes.value == Approx(copies * h * 2.0));                  // combine
  CHECK(named(c.forward, "fp8_cast_dispatch").bytes.value == Approx(3.0 * SEQ * h));
  CHECK(named(c.forward, "fp8_transpose_expert_in").bytes.value == Approx(2.0 * copies * h));
}

TEST_CASE("FP8 weight copies of the routed experts: a rank's own under expert parallelism", "[workload][moe]") {
  // Each linear weight has an FP8 copy (memory.cpp): of the routed experts' 128 x 3 x 2048 x 768
  // matrices per Qwen3-30B-A3B layer a rank holds 1/ep.
  Scenario one = on_one_gpu("qwen3-30b-a3b");
  one.plan.pp = 2, one.plan.dp = 8;
  Scenario s = one;
  s.plan.ep = 8;
  const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
  const double routed = 128.0 * 3.0 * 2048.0 * 768.0;
  CHECK(s.model.routed_expert_linear_params() == Approx(routed));
  for (int64_t r = 0; r < 2; ++r) {
    const double moe = double(layout.moe_layers_on_rank(r));
    CHECK(rank_linear_params(one, layout, r) - rank_linear_params(s, layout, r) ==
          Approx(moe * routed * (1.0 - 1.0 / 8.0)).epsilon(1e-12));
  }
}

TEST_CASE("Routing by a measured histogram: the busiest expert-parallel rank sets the time", "[workload][moe]") {
  // Mixtral's 8 experts over ep 4, two a rank (routing.hpp). Balanced: 1. All tokens on expert 0:
  // its rank takes 8 / 2 = 4 times the mean rank's (ep); a capacity factor of 2 drops all but
  // twice an expert's mean share there, so that no rank is above the mean. Shares 3, 1, 1, ... (mean
  // 1.25): the first rank takes (2.4 + 0.8) / 2 = 1.6.
  Scenario s = on_one_gpu("mixtral-8x7b");
  s.plan.ep = 4;
  CHECK(busiest_rank_load(s) == 1.0);
  s.training.routing = Routing::HISTOGRAM;
  s.training.expert_load = {8, 0, 0, 0, 0, 0, 0, 0};
  CHECK(busiest_rank_load(s) == Approx(4.0));
  s.training.capacity_factor = 2;
  CHECK(busiest_rank_load(s) == Approx(1.0));
  s.training.capacity_factor = 0;
  s.training.expert_load = {3, 1, 1, 1, 1, 1, 1, 1};
  CHECK(busiest_rank_load(s) == Approx(1.6));
  // The busiest rank's experts take 1.6 times the rows and its exchanges carry 1.6 times the bytes;
  // the model's FLOPs stay the balanced ones, the kernels execute 1.6 times theirs.
  Scenario balanced = s;
  balanced.training.routing = Routing::BALANCED;
  const PassOps a = layer_ops(balanced, 1, true), b = layer_ops(s, 1, true);
  const Op &fa = named(a.forward, "expert_fc1"), &fb = named(b.forward, "expert_fc1");
  CHECK(fb.shape.m == Approx(1.6 * fa.shape.m));
  CHECK(fb.flops.value == Approx(fa.flops.value));
  CHECK(fb.executed.value == Approx(1.6 * fa.flops.value));
  CHECK(exchanges(b.forward).front()->bytes.value == Approx(1.6 * exchanges(a.forward).front()->bytes.value));
  CHECK(sum_flops(b.forward).value == Approx(sum_flops(a.forward).value).epsilon(1e-12));
}

TEST_CASE("Routing by a Zipf draw: the experts' popularity 1/rank^s dealt by the scenario's seed", "[workload][moe]") {
  // Qwen3-30B-A3B's 128 experts (routing.hpp). Whatever the deal, the loads are a permutation of
  // 1/i^s, i = 1..128; with one expert a rank (ep 128) the busiest rank is the most popular expert,
  // 1 over the mean, 128 / H(128, s) (H the generalised harmonic number), and a capacity factor c
  // caps it at c; with one rank (ep 1) the busiest is the mean. The deal is the seed's: the same
  // for the same seed, another for another seed.
  Scenario s = on_one_gpu("qwen3-30b-a3b");
  s.training.routing = Routing::ZIPF;
  for (const double skew : {0.5, 1.0, 1.2}) {
    INFO("s " << skew);
    s.training.routing_skew = skew;
    double harmonic = 0;
    for (int i = 1; i <= 128; ++i) harmonic += std::pow(double(i), -skew);
    std::vector<double> loads = expert_loads(s);
    REQUIRE(loads.size() == 128);
    std::sort(loads.begin(), loads.end(), std::greater<>());
    for (size_t i = 0; i < loads.size(); ++i) CHECK(loads[i] == Approx(std::pow(double(i + 1), -skew)));
    s.plan.ep = 128;
    CHECK(busiest_rank_load(s) == Approx(128.0 / harmonic));
    s.training.capacity_factor = 2;
    CHECK(busiest_rank_load(s) == Approx(std::min(2.0, 128.0 / harmonic)));
    s.training.capacity_factor = 0;
    s.plan.ep = 1;
    CHECK(busiest_rank_load(s) == Approx(1.0));
  }
  s.plan.ep = 8;
  Scenario again = s, other = s;
  other.seed = s.seed + 1;
  CHECK(expert_loads(again) == expert_loads(s));
  CHECK(expert_loads(other) != expert_loads(s));
  CHECK(busiest_rank_load(s) > 1.0);
}

TEST_CASE("GPT-OSS-120B's FLOPs per token: half its layers attend within a window of 128", "[workload][moe]") {
  const Scenario s = on_one_gpu("gpt-oss-120b");
  const ModelSpec& m = s.model;
  REQUIRE(m.sliding_window == 128);
  // Megatron-Bridge 26.08 (docs/performance-summary.md@067f987, DGX-GB200 MXFP8): 934 TFLOP/s/GPU
  // at 28,672 tokens/s/GPU.
  CHECK(per_token(s).causal == Approx(934.0e3 / 28672.0).epsilon(0.005));
  // Closed form: per token and layer forward, the Q/K/V and output projections, the router and
  // top_k gated experts (three matrices each), 2 x 2 x heads x head_dim per attended key (score
  // and context), the output layer over the padded vocabulary; three times for the backward.
  // Causal keys: a full layer's query i sees i + 1 of them (s / 2 on average, the convention), a
  // windowed one's min(i + 1, 128).
  const double h = double(m.hidden), q = double(m.query_width()), kv = double(m.kv_heads * m.head_dim());
  const double f = double(m.moe->expert_ffn_hidden), k = double(m.moe->top_k), e = double(m.moe->experts);
  const double linear = 2.0 * h * (q + 2.0 * kv) + 2.0 * q * h + 2.0 * h * e + k * 3.0 * 2.0 * h * f;
  double window_keys = 0;
  for (int64_t i = 0; i < SEQ; ++i) window_keys += double(std::min<int64_t>(i + 1, m.sliding_window));
  const double full_core = 4.0 * q * double(SEQ) / 2.0, window_core = 4.0 * q * window_keys / double(SEQ);
  const double layers = double(m.layers), full_layers = double(m.layers / m.full_attention_interval);
  const double fwd = layers * linear + full_layers * full_core + (layers - full_layers) * window_core +
                     2.0 * h * double(padded_vocab(s));
  CHECK(per_token(s).causal == Approx(3.0 * fwd / 1e9).epsilon(1e-9));
}

TEST_CASE("a sliding window holds min(i + 1, w) keys of query i, and a window past the sequence is none",
          "[workload]") {
  for (double s : {1.0, 7.0, 128.0, 4096.0})
    for (double w : {1.0, 3.0, 128.0, 5000.0}) {
      INFO("s " << s << " w " << w);
      double pairs = 0;
      for (double i = 0; i < s; ++i) pairs += std::min(i + 1, w);
      // The share of the whole square, twice over; a whole causal layer (w >= s) is the
      // convention's half square, 1.
      CHECK(sliding_window_share(s, w) == Approx(w >= s ? 1.0 : 2.0 * pairs / (s * s)));
    }
  // A window as long as the sequence prices every layer as without one.
  Scenario windowed = on_one_gpu("gpt-oss-120b"), full = windowed, spanning = windowed;
  full.model.sliding_window = 0, full.model.full_attention_interval = 0;
  spanning.model.sliding_window = SEQ;
  CHECK(per_token(spanning).causal == Approx(per_token(full).causal).epsilon(1e-12));
  CHECK(per_token(spanning).hardware == Approx(per_token(full).hardware).epsilon(1e-12));
  CHECK(per_token(windowed).causal < per_token(full).causal);
}
