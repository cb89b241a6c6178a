// Model FLOPs per token of the mixture-of-experts and latent-attention models of models/, summed
// over the ops of their layers (dense and MoE, ModelSpec::moe_layer) and the output layer, forward
// and backward, against the counts their trainers publish (../shared/reference/moe.md §0 collects
// them):
//   - DeepSeek-V3 (arXiv 2505.09343, ISCA'25, the MPFT table: 432 TFLOPS non-causal and 385
//     causal per GPU at 1,541.7 tokens/s/GPU, sequence 4,096): 280.2 and 249.7 GFLOP per token,
//     without its multi-token prediction module;
//   - Megatron-Bridge's performance summaries (NVIDIA-NeMo/Megatron-Bridge
//     docs/performance-summary*.md@067f987: "Model TFLOP/sec/GPU" over tokens/s/GPU, sequence
//     4,096, force-balanced routing): Qwen3-235B-A22B 147.8-147.9, Qwen3-30B-A3B 23.0, Kimi-K2
//     204.6 GFLOP per token, counted causal (DeepSeek-V3 without MTP: 249.1, DeepSeek's causal
//     249.7 within 0.3%).
// "Causal" counts the attention core's score and context products over half the square (a causal
// mask's share); the model-FLOPs convention here counts the whole square (ops.hpp), so the causal
// figure is the model FLOPs less half the attention core's.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/ops.hpp"
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
  const double moe = static_cast<double>(s.model.moe_layers());
  add(layer_ops(s, 1, true), moe);
  add(layer_ops(s, 1, false), static_cast<double>(s.model.layers) - moe);
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
  // Closed form from the model card (moe.md §0): 6 x the activated parameters that multiply
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
