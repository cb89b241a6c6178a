// The attention kernel a scenario names (training.attention, sim/scenario/attention_kernels.hpp)
// reaches the pricing: a layer's fused attention op carries it, and its time is the FA-convention
// FLOPs over the kernel's own curve. Checked against the H200 kernel-suite measurement the curves
// come from (calibration/measured/nvidia-h200-2026-11-30.json, causal, head dim 128, seq 8192,
// batch 2, 16 heads, forward+backward): PyTorch SDPA's flash backend (FlashAttention-2) 284 TFLOP/s,
// cuDNN's 481 TFLOP/s (FA convention: 3.5 x 4 b s^2 h d / 2).
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <utility>

#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/ops.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

Scenario scenario(const std::string& attention) {
  const std::string text = fill(R"({"kind": "scenario", "name": "attention-kernels",
    "model": {"name": "h16-d128", "layers": 2, "hidden": 2048, "heads": 16, "ffn_hidden": 8192, "vocab": 32000,
              "activation": "swiglu", "norm": "rmsnorm"},
    "cluster": {"from": "dgx-h100-superpod", "gpus": 8, "gpu": "h200-sxm"},
    "parallelism": {"tp": 1, "pp": 1, "dp": 8},
    "training": {"seq_len": 8192, "global_batch": 16, "micro_batch": 2, "attention": "{a}"}})",
                                {{"a", attention}});
  return parse_scenario(ParamReader::from_text(text, "attention_kernels.cpp"), TRAINSIM_SOURCE_DIR);
}

// Time of the layer's fused attention ops in the forward and in the backward.
std::pair<double, double> attention_passes(const Scenario& s, Attention* kernel) {
  const ComputeModel cm(s.cluster.device, s.training.precision);
  const PassOps ops = layer_ops(s, s.training.micro_batch.value);
  std::pair<double, double> t{0, 0};
  for (const auto* list : {&ops.forward, &ops.backward})
    for (const Op& op : *list)
      if (op.cls == OpClass::FLASH_ATTENTION) {
        *kernel = op.kernel;
        (list == &ops.forward ? t.first : t.second) +=
            cm.fused_attention(op.kernel, op.executed, op.bytes, op.seq_len, op.precision, op.backward, op.head_dim)
                .value;
      }
  return t;
}

double attention_seconds(const Scenario& s, Attention* kernel) {
  const auto [fwd, bwd] = attention_passes(s, kernel);
  return fwd + bwd;
}

}  // namespace

TEST_CASE("a scenario's attention kernel prices its layer's attention on that kernel's curve", "[workload]") {
  const double fwd = 4.0 * 2 * 8192.0 * 8192.0 * 16 * 128 / 2;  // causal, FA convention
  const struct {
    const char* name;
    Attention kind;
    double measured_tflops;
  } kernels[] = {{"flash", Attention::FLASH, 284}, {"cudnn", Attention::CUDNN, 481}};
  for (const auto& k : kernels) {
    INFO(k.name);
    Attention carried = Attention::UNFUSED;
    const double t = attention_seconds(scenario(k.name), &carried);
    CHECK(carried == k.kind);
    // The fitted curve describes the measurement within the fit's rms (14-17 %).
    CHECK(3.5 * fwd / t / 1e12 == Approx(k.measured_tflops).epsilon(0.17));
  }
  Attention carried = Attention::FLASH;
  const double unfused = attention_seconds(scenario("unfused"), &carried);
  CHECK(unfused == 0);  // no fused op: the scores run as GEMMs and a softmax
}

TEST_CASE("FlashAttention in Triton and FlashAttention-1 take Dao 2023's multiples of FlashAttention-2's time",
          "[workload]") {
  // Dao 2023 (arXiv:2307.08691) §4.1, A100: FlashAttention-2 is "around 1.3-1.5x faster than
  // FlashAttention in Triton in the forward pass and around 2x faster in the backward pass", and
  // "around 2x faster than FlashAttention".
  Attention carried = Attention::UNFUSED;
  const auto [flash_fwd, flash_bwd] = attention_passes(scenario("flash"), &carried);
  const auto [triton_fwd, triton_bwd] = attention_passes(scenario("triton"), &carried);
  CHECK(carried == Attention::TRITON);
  CHECK(triton_fwd / flash_fwd >= 1.3);
  CHECK(triton_fwd / flash_fwd <= 1.5);
  CHECK(triton_bwd / flash_bwd == Approx(2.0));
  const auto [fa1_fwd, fa1_bwd] = attention_passes(scenario("flash1"), &carried);
  CHECK(carried == Attention::FLASH1);
  CHECK(fa1_fwd / flash_fwd == Approx(2.0));
  CHECK(fa1_bwd / flash_bwd == Approx(2.0));
}

TEST_CASE("around a context-parallel ring the kernel runs on blocks of s/cp", "[workload]") {
  // Transformer Engine's p2p context parallelism runs the attention kernel once per ring step on a
  // block of s/cp queries against s/cp keys, so the curve is read there; gathered whole (Llama 3's
  // all_gather) the kernel meets every key, s. Without context parallelism: s.
  const auto kernel_length = [](const std::string& cp) {
    const std::string text = fill(R"({"kind": "scenario", "name": "cp-blocks",
    "model": {"name": "h16-d128", "layers": 2, "hidden": 2048, "heads": 16, "ffn_hidden": 8192, "vocab": 32000,
              "activation": "swiglu", "norm": "rmsnorm"},
    "cluster": {"from": "dgx-h100-superpod", "gpus": 8, "gpu": "h200-sxm"},
    "parallelism": {"tp": 1, "pp": 1, "dp": 4, "cp": 2{c}},
    "training": {"seq_len": 8192, "global_batch": 16, "micro_batch": 2}})",
                                  {{"c", cp}});
    const Scenario s = parse_scenario(ParamReader::from_text(text, "attention_kernels.cpp"), TRAINSIM_SOURCE_DIR);
    const PassOps ops = layer_ops(s, 2);
    double length = 0;
    for (const auto* list : {&ops.forward, &ops.backward})
      for (const Op& op : *list)
        if (op.cls == OpClass::FLASH_ATTENTION) {
          CHECK((length == 0 || length == op.seq_len));
          length = op.seq_len;
        }
    return length;
  };
  CHECK(kernel_length("") == 8192.0 / 2);
  CHECK(kernel_length(", \"cp_comm\": \"p2p\"") == 8192.0 / 2);
  CHECK(kernel_length(", \"cp_comm\": \"all_gather\"") == 8192.0);
  const PassOps whole = layer_ops(scenario("flash"), 2);
  for (const Op& op : whole.forward)
    if (op.cls == OpClass::FLASH_ATTENTION) CHECK(op.seq_len == 8192.0);
}

TEST_CASE("flash_varlen: FlashAttention-2's kernel plus the unpadding's gathers and scatters", "[workload]") {
  // llm-foundry's flash_attn_fn: Q, K, V gathered (read and write, bf16), the output scattered
  // into zeros (write, read, write); backward the output gradient gathered and the Q, K, V
  // gradients scattered into zeros. Per token q = 16 x 128 query and 2 x 16 x 128 key/value
  // elements (no grouping here); micro-batch 2 of 8192 tokens.
  const double tokens = 2 * 8192.0, q = 16 * 128.0, kv = 2 * 16 * 128.0;
  const PassOps flash = layer_ops(scenario("flash"), 2), varlen = layer_ops(scenario("flash_varlen"), 2);
  const auto memory = [](const std::vector<Op>& ops) {
    double b = 0;
    for (const Op& op : ops)
      if (op.cls == OpClass::MEMORY) b += op.bytes.value;
    return b;
  };
  CHECK(memory(varlen.forward) - memory(flash.forward) == Approx(tokens * (2 * 2 * (q + kv) + 3 * 2 * q)));
  CHECK(memory(varlen.backward) - memory(flash.backward) == Approx(tokens * (2 * 2 * q + 3 * 2 * (q + kv))));
  // The kernel itself is FlashAttention-2's, at the same time.
  Attention kernel{};
  CHECK(attention_seconds(scenario("flash_varlen"), &kernel) == Approx(attention_seconds(scenario("flash"), &kernel)));
  CHECK(kernel == Attention::FLASH_VARLEN);
}

TEST_CASE("a head dimension runs in the smallest one its kernel is compiled for", "[workload]") {
  // flash-attn 2's HEADDIM_SWITCH: 32, 64, 96, 128, 160, 192, 256; the Triton kernel: the next power
  // of two (at least 16); flash-attn 1: 16, 32, 64, 128; cuDNN: as it is.
  CHECK(kernel_head_dim(Attention::FLASH, 80) == 96);
  CHECK(kernel_head_dim(Attention::FLASH, 112) == 128);
  CHECK(kernel_head_dim(Attention::FLASH, 64) == 64);
  CHECK(kernel_head_dim(Attention::FLASH_VARLEN, 80) == 96);
  CHECK(kernel_head_dim(Attention::TRITON, 80) == 128);
  CHECK(kernel_head_dim(Attention::TRITON, 96) == 128);
  CHECK(kernel_head_dim(Attention::FLASH1, 96) == 128);
  CHECK(kernel_head_dim(Attention::CUDNN, 80) == 80);
  // A 20-head model of hidden 1600 (head dimension 80): FlashAttention-2 executes 96/80 of the
  // causal half of the FA-convention FLOPs; cuDNN executes them as they are.
  const std::string text = R"({"kind": "scenario", "name": "hd80",
    "model": {"name": "hd80", "layers": 2, "hidden": 1600, "heads": 20, "ffn_hidden": 6400, "vocab": 32000,
              "activation": "gelu"},
    "cluster": {"from": "dgx-h100-superpod", "gpus": 8, "gpu": "h200-sxm"},
    "parallelism": {"tp": 1, "pp": 1, "dp": 8},
    "training": {"seq_len": 4096, "global_batch": 8, "micro_batch": 1, "attention": "flash"}})";
  Scenario s = parse_scenario(ParamReader::from_text(text, "attention_kernels.cpp"), TRAINSIM_SOURCE_DIR);
  const double model_fwd = 4.0 * 4096.0 * 4096.0 * 20 * 80;  // FA convention, before the causal half
  for (const auto& [attention, dim] :
       {std::pair<Attention, double>{Attention::FLASH, 96}, std::pair<Attention, double>{Attention::CUDNN, 80}}) {
    s.training.attention = attention;
    for (const Op& op : layer_ops(s, 1).forward)
      if (op.cls == OpClass::FLASH_ATTENTION) {
        CHECK(op.flops.value == Approx(model_fwd));
        CHECK(op.executed.value == Approx(model_fwd / 2 * dim / 80));
        CHECK(op.head_dim == dim);
      }
  }
  const DeviceSpec& h200 = s.cluster.device;
  const double f64 = h200.attention_head_dims.at(Attention::FLASH).at(64);
  CHECK(f64 == Approx(0.89).epsilon(0.01));
  // Between 64 and 128, linear in log2 of the head dimension: 96 is log2(1.5) = 0.585 of the way.
  CHECK(h200.attention_head_dim_factor(Attention::FLASH, 96) == Approx(f64 + std::log2(1.5) * (1 - f64)));
  CHECK(h200.attention_head_dim_factor(Attention::FLASH, 64) == f64);
  CHECK(h200.attention_head_dim_factor(Attention::FLASH, 32) == f64);   // below the measured: the nearest's
  CHECK(h200.attention_head_dim_factor(Attention::FLASH, 256) == 1.0);  // none measured beyond 128
  CHECK(h200.attention_head_dim_factor(Attention::TRITON, 64) == f64);  // Triton takes FA2's curve
}
