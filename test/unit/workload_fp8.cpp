// Which kernels an FP8 run runs in FP8 (sim/workload/ops.hpp, "FP8"): the transformer layer's
// linear layers -- QKV, projection, MLP, forward, input and weight gradients -- read 1-byte
// operands and run at the fp8 peak; the attention core (Transformer Engine's DotProductAttention
// without FP8 attention; torchtitan converts nn.Linear only) and the output layer (Megatron's
// ColumnParallelLinear; torchtitan's filter_fqns = ["output"]) run in bf16 at the bf16 peak. The
// expectations are the roofline written out here with the profile's own curve.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>

#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/ops.hpp"
#include "sim/workload/stage_layout.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

// `scaling` empty: the scenario leaves training.fp8_scaling out (delayed).
Scenario llama_like(const char* precision, const char* attention, const std::string& scaling = "",
                    const std::string& cluster = "dgx-h100-superpod") {
  const std::string text = fill(
      R"({"kind": "scenario", "name": "fp8",
    "model": {"name": "llama-like", "layers": 4, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
              "vocab": 128256, "activation": "swiglu", "norm": "rmsnorm"},
    "cluster": {"from": "{c}", "gpus": 8},
    "parallelism": {"tp": 1, "pp": 1, "dp": 8},
    "training": {"seq_len": 8192, "global_batch": 8, "micro_batch": 1, "precision": "{p}", "attention": "{a}"{s}}})",
      {{"p", precision},
       {"a", attention},
       {"s", scaling.empty() ? "" : ", \"fp8_scaling\": \"" + scaling + "\""},
       {"c", cluster}});
  return parse_scenario(ParamReader::from_text(text, "workload_fp8.cpp"), TRAINSIM_SOURCE_DIR);
}

// Tensor parallel 8 with sequence parallelism; `library` empty: training.fp8_library left out.
Scenario llama_tp8(const char* precision, const std::string& library = "") {
  const std::string text = fill(
      R"({"kind": "scenario", "name": "fp8-tp",
    "model": {"name": "llama-like", "layers": 4, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
              "vocab": 128256, "activation": "swiglu", "norm": "rmsnorm"},
    "cluster": {"from": "dgx-h100-superpod", "gpus": 8},
    "parallelism": {"tp": 8, "pp": 1, "dp": 1, "sequence_parallel": true},
    "training": {"seq_len": 8192, "global_batch": 8, "micro_batch": 1, "precision": "{p}"{l}}})",
      {{"p", precision}, {"l", library.empty() ? "" : ", \"fp8_library\": \"" + library + "\""}});
  return parse_scenario(ParamReader::from_text(text, "workload_fp8.cpp"), TRAINSIM_SOURCE_DIR);
}

// The bytes of the pass's collective named `name`.
double collective_bytes(const std::vector<Op>& ops, const std::string& name) {
  for (const Op& op : ops)
    if (op.cls == OpClass::COLLECTIVE && op.name == name) return op.bytes.value;
  FAIL("no collective " << name);
  return 0;
}

const std::set<std::string> LINEAR = {"qkv", "attn_proj", "mlp_fc1", "mlp_fc2"};

bool linear(const std::string& name) {
  for (const auto& l : LINEAR)
    if (name == l || name == l + "_dgrad" || name == l + "_wgrad") return true;
  return false;
}

// The bytes a pass's memory-bound kernels move.
double memory_bytes(const std::vector<Op>& ops) {
  double b = 0;
  for (const Op& op : ops)
    if (op.cls == OpClass::MEMORY) b += op.bytes.value;
  return b;
}

}  // namespace

TEST_CASE("fp8: the linear layers run in FP8, attention and the output layer in bf16", "[workload]") {
  for (const char* attention : {"unfused", "flash"}) {
    INFO(attention);
    const Scenario s = llama_like("fp8", attention);
    int fp8 = 0, bf16 = 0;
    const PassOps layer = layer_ops(s, 1), out = output_ops(s, 1);
    for (const auto* ops : {&layer.forward, &layer.backward, &out.forward, &out.backward})
      for (const Op& op : *ops) {
        if (op.cls != OpClass::GEMM && op.cls != OpClass::FLASH_ATTENTION) continue;
        INFO(op.name);
        const bool is_linear = linear(op.name);
        CHECK(op.precision == (is_linear ? Precision::FP8 : Precision::BF16));
        (is_linear ? fp8 : bf16) += 1;
        if (op.cls == OpClass::GEMM) {  // 1-byte operands in FP8, the 16-bit output either way
          const auto& g = op.shape;
          const double operand = is_linear ? 1.0 : 2.0;
          CHECK(op.bytes.value == Approx(g.batch * (operand * (g.m * g.k + g.k * g.n) + 2.0 * g.m * g.n)));
        }
      }
    CHECK(fp8 == 12);                                                    // 4 linear layers x (forward, dgrad, wgrad)
    CHECK(bf16 == (std::string(attention) == "flash" ? 2 + 3 : 6 + 3));  // attention core + logits x3
  }
  // bf16 runs: everything bf16, as before.
  for (const Op& op : layer_ops(llama_like("bf16", "flash"), 1).forward)
    if (op.cls == OpClass::GEMM || op.cls == OpClass::FLASH_ATTENTION) CHECK(op.precision == Precision::BF16);
}

TEST_CASE("fp8: a GEMM's time is the roofline at the peak of the type it runs in", "[workload]") {
  const Scenario s = llama_like("fp8", "flash");
  const ComputeModel cm(s.cluster.device, s.training.precision);
  const DeviceSpec& d = s.cluster.device;
  const GemmShape g{8192, 4096, 4096, 1};
  const double F = g.flops().value;
  // FP8 GEMMs on their own curve (fitted to the H200's measured FP8 GEMMs), bf16 on the bf16 one.
  REQUIRE(d.gemm_fp8.eta_max > 0);
  for (Precision p : {Precision::FP8, Precision::BF16}) {
    const double peak = d.dense_peak.at(p).value;
    const SaturatingCurve& curve = p == Precision::FP8 ? d.gemm_fp8 : d.gemm;
    const double flop_time = F / (peak * curve.eta_max * F / (F + curve.x_half) * cm.wave_efficiency(g));
    CHECK(cm.gemm(g, Bytes(0), p).value == Approx(flop_time).epsilon(1e-12));
  }
  // H100 SXM: 1979 against 989 TFLOP/s dense, but FP8 GEMMs reach less of their peak (H200
  // measurements: 0.687 against 0.723 at large sizes, and they ramp up later: 8.9 against 4.5
  // GFLOP half points), so this 275-GFLOP GEMM runs 1.8 times faster, not twice.
  const double speedup = cm.gemm(g, Bytes(0), Precision::BF16).value / cm.gemm(g, Bytes(0), Precision::FP8).value;
  CHECK(speedup > 1.7);
  CHECK(speedup < 1.95);
}

TEST_CASE("fp8: Transformer Engine's casts and transposes add the bytes its kernels move", "[workload]") {
  // One Llama-like layer (tp 1: tokens t = 8192, hidden h = 4096, local ffn f = 14336, QKV width
  // q = h + 2 * 8 * 128 = 6144), the FP8 run's memory-bound bytes against the bf16 run's:
  //   forward   the two norms write 1 byte instead of 2: -2 t h; the attention output and the
  //             activation (16 bits, Megatron-Core's MLP) are cast with their transposes (read 2,
  //             write 1 + 1): +4 t h + 4 t f
  //   backward  output gradients of fc2, projection, QKV and fc1 (2 f wide, gated) cast with
  //             their transposes: +4 t h + 4 t h + 4 t q + 8 t f; saved FP8 inputs of fc1 and QKV
  //             transposed (read 1, write 1): +2 t h + 2 t h
  const double t = 8192, h = 4096, f = 14336, q = 4096 + 2 * 8 * 128;
  for (const char* attention : {"unfused", "flash"}) {
    INFO(attention);
    const PassOps p8 = layer_ops(llama_like("fp8", attention), 1), p16 = layer_ops(llama_like("bf16", attention), 1);
    CHECK(memory_bytes(p8.forward) - memory_bytes(p16.forward) == Approx(-2 * t * h + 4 * t * h + 4 * t * f));
    CHECK(memory_bytes(p8.backward) - memory_bytes(p16.backward) ==
          Approx(8 * t * h + 4 * t * q + 8 * t * f + 4 * t * h));
  }
  // Once per step, each weight matrix cast with its transpose: 4 bytes per linear-layer parameter,
  // h (h + 2 * 1024) + h h + 3 h f per layer; none in bf16.
  const Scenario s8 = llama_like("fp8", "flash");
  const double linear_params = h * (h + 2 * 1024) + h * h + 3 * h * f;
  CHECK(s8.model.linear_params() == linear_params);
  const auto casts = fp8_weight_cast_ops(s8, 4 * linear_params);
  REQUIRE(casts.size() == 1);
  CHECK(casts[0].bytes.value == 16 * linear_params);
  CHECK(fp8_weight_cast_ops(llama_like("bf16", "flash"), linear_params).empty());
}

TEST_CASE("fp8: current scaling reads each tensor it casts once more, for its amax", "[workload]") {
  // The same layer as above. Forward: the two norms' outputs (h each), the attention output (h)
  // and the SwiGLU output (f); backward: the output gradients of fc2 (h), fc1 (2 f, gated), the
  // projection (h) and QKV (q); 2 bytes per element each. Weights: one more read, 2 bytes per
  // linear-layer parameter.
  const double t = 8192, h = 4096, f = 14336, q = 4096 + 2 * 8 * 128;
  const PassOps delayed = layer_ops(llama_like("fp8", "flash"), 1);
  const PassOps current = layer_ops(llama_like("fp8", "flash", "current"), 1);
  CHECK(memory_bytes(current.forward) - memory_bytes(delayed.forward) == Approx(2 * t * (3 * h + f)));
  CHECK(memory_bytes(current.backward) - memory_bytes(delayed.backward) == Approx(2 * t * (2 * h + 2 * f + q)));
  // "delayed", stated, is the default.
  CHECK(memory_bytes(layer_ops(llama_like("fp8", "flash", "delayed"), 1).forward) ==
        Approx(memory_bytes(delayed.forward)));
  const double params = 1e9;
  double weights = 0;
  for (const Op& op : fp8_weight_cast_ops(llama_like("fp8", "flash", "current"), params)) weights += op.bytes.value;
  CHECK(weights == Approx((4 + 2) * params));
}

TEST_CASE("fp8: sequence-parallel all-gathers carry FP8 operands, reduce-scatters 16-bit outputs", "[workload]") {
  // Per layer and microbatch, t = 8192 tokens of h = 4096 gathered or scattered over tp 8, in
  // bytes of the whole (gathered) tensor. Forward: the all-gathers before QKV and fc1 gather the
  // FP8 norm output (1 byte), the reduce-scatters after the projection and fc2 scatter 16-bit
  // outputs (2). Backward: Transformer Engine casts the projection's and fc2's output gradients
  // before it gathers them (1), torchao after (2); the input gradients' reduce-scatters are 16-bit.
  const double t = 8192, h = 4096;
  struct Case {
    const char* precision;
    std::string library;
    double gather_fwd, gather_bwd;
  };
  for (const Case& c :
       {Case{"bf16", "", 2, 2}, Case{"fp8", "", 1, 1}, Case{"fp8", "te", 1, 1}, Case{"fp8", "torchao", 1, 2}}) {
    INFO(c.precision << " " << c.library);
    const PassOps p = layer_ops(llama_tp8(c.precision, c.library), 1);
    for (const char* name : {"tp_attn_in", "tp_mlp_in"})
      CHECK(collective_bytes(p.forward, name) == c.gather_fwd * t * h);
    for (const char* name : {"tp_attn_out", "tp_mlp_out"}) CHECK(collective_bytes(p.forward, name) == 2 * t * h);
    for (const char* name : {"tp_attn_out_bwd", "tp_mlp_out_bwd"})
      CHECK(collective_bytes(p.backward, name) == c.gather_bwd * t * h);
    for (const char* name : {"tp_attn_in_bwd", "tp_mlp_in_bwd"}) CHECK(collective_bytes(p.backward, name) == 2 * t * h);
  }
}

TEST_CASE("fp8: both libraries keep the FP8 copies of the linear layers' inputs", "[workload]") {
  // Transformer Engine keeps the FP8 copies: 1 byte instead of 2 for the inputs of QKV and fc1
  // (h each, whole under tp 1) and fc2 (f), plus an FP8 copy of the projection's input (h) beside
  // the attention output. torchao's tensorwise Float8Linear saves its FP8 input too
  // (manual_float8_matmul_with_args_in_float8).
  const double t = 8192, h = 4096, f = 14336;
  Scenario bf16 = llama_like("bf16", "flash");
  Scenario te = llama_like("fp8", "flash");
  Scenario torchao = te;
  torchao.training.fp8_library = Fp8Library::TORCHAO;
  for (Scenario* s : {&bf16, &te, &torchao}) s->training.recompute = Recompute::NONE;
  CHECK(layer_activation_bytes(bf16, 1).value - layer_activation_bytes(te, 1).value == Approx(t * (h + h + f) - t * h));
  CHECK(layer_activation_bytes(torchao, 1).value == Approx(layer_activation_bytes(te, 1).value));
}

TEST_CASE("fp8: Transformer Engine keeps each weight's FP8 cast and transpose, 2 bytes per parameter", "[workload]") {
  // Beside the 16-bit weights (2 bytes per parameter), Transformer Engine's weight_fp8 and
  // weight_t_fp8 buffers hold 1 + 1 bytes per linear-layer parameter from the first microbatch to
  // the last; with the primary weights in FP8 (fp8_params) they take the 16-bit weight's place, and
  // torchao casts at each use and keeps none. The four layers' linear parameters: 4 x linear_params.
  const Scenario bf16 = llama_like("bf16", "flash"), te = llama_like("fp8", "flash");
  Scenario fp8_params = te, torchao = te, zero3 = te, zero3_bf16 = bf16;
  fp8_params.training.fp8_params = true;
  torchao.training.fp8_library = Fp8Library::TORCHAO;
  zero3.plan.zero = zero3_bf16.plan.zero = 3;
  auto weights = [](const Scenario& s) {
    const StageLayout layout = make_stage_layout(s.model, s.plan, 1, "test");
    return estimate_memory(s, layout, 1).stages[0].weights.value;
  };
  const double linear = 4 * te.model.linear_params();
  CHECK(weights(te) - weights(bf16) == Approx(2 * linear));
  CHECK(weights(fp8_params) == Approx(weights(bf16)));
  CHECK(weights(torchao) == Approx(weights(bf16)));
  CHECK(weights(zero3) == Approx(weights(zero3_bf16)));  // ZeRO-3 casts the gathered unit: not kept
  // Once per step TE casts each weight with its transpose (read 2, write 1 + 1); with fp8_params
  // only the transpose is made (read 1, write 1).
  const auto cast = fp8_weight_cast_ops(te, linear), transpose = fp8_weight_cast_ops(fp8_params, linear);
  REQUIRE(cast.size() == 1);
  REQUIRE(transpose.size() == 1);
  CHECK(cast[0].bytes.value == Approx(4 * linear));
  CHECK(transpose[0].bytes.value == Approx(2 * linear));
}

TEST_CASE("fp8: where the FP8 GEMM takes any layout, Transformer Engine casts without transposes", "[workload]") {
  // Blackwell (gemm_fp8.layouts "any"): Transformer Engine makes no transposed copy
  // (non_tn_fp8_gemm_supported), so each cast reads 2 and writes 1 byte per element, the saved
  // inputs of QKV and fc1 are not transposed, and the per-step weight cast writes the FP8 weight
  // alone (read 2, write 1), or nothing with fp8_params. Against the TN-only device, with the
  // layer's sizes of the test above: forward -(t q_attn + t f), one byte per cast element, where
  // q_attn = h is the attention output's width; backward -(t h + t h + t q + 2 t f) for the four
  // output-gradient casts and -(2 t h + 2 t h) for the two transposes.
  const double t = 8192, h = 4096, f = 14336, q = 4096 + 2 * 8 * 128;
  const Scenario tn = llama_like("fp8", "flash");
  Scenario any = tn;
  any.cluster.device.fp8_gemm_any_layout = true;
  CHECK(fp8_transposes(tn));
  CHECK_FALSE(fp8_transposes(any));
  CHECK_FALSE(fp8_transposes(llama_like("bf16", "flash")));
  const PassOps ptn = layer_ops(tn, 1), pany = layer_ops(any, 1);
  CHECK(memory_bytes(ptn.forward) - memory_bytes(pany.forward) == Approx(t * h + t * f));
  CHECK(memory_bytes(ptn.backward) - memory_bytes(pany.backward) == Approx(2 * t * h + t * q + 2 * t * f + 4 * t * h));
  const double linear = tn.model.linear_params();
  const auto cast = fp8_weight_cast_ops(any, linear);
  REQUIRE(cast.size() == 1);
  CHECK(cast[0].bytes.value == Approx(3 * linear));
  Scenario any_params = any;
  any_params.training.fp8_params = true;
  CHECK(fp8_weight_cast_ops(any_params, linear).empty());
  // The FP8 weight it keeps: 1 byte per linear-layer parameter beside the 16-bit weight, or in
  // place of it (2 - 1) with fp8_params.
  const Scenario bf16 = llama_like("bf16", "flash");
  auto weights = [](const Scenario& s) {
    const StageLayout layout = make_stage_layout(s.model, s.plan, 1, "test");
    return estimate_memory(s, layout, 1).stages[0].weights.value;
  };
  const double linear4 = 4 * linear;  // four layers
  CHECK(weights(any) - weights(bf16) == Approx(linear4));
  CHECK(weights(bf16) - weights(any_params) == Approx(linear4));
  // torchao calls torch._scaled_mm, which takes TN operands on every device: it still transposes.
  Scenario torchao = any;
  torchao.training.fp8_library = Fp8Library::TORCHAO;
  CHECK(fp8_transposes(torchao));
}

TEST_CASE("fp8: blockwise and MXFP8 scales ride on each cast copy, and MXFP8 quantizes both ways", "[workload]") {
  // Each cast reads 2 bytes and writes 1 per copy, plus the copy's scales: blockwise an fp32 per
  // 1x128 tile (DeepSeek-V3 §3.3.2), MXFP8 an E8M0 byte per 32 elements (OCP MX v1.0). MXFP8
  // writes a row-wise and a column-wise copy of every tensor even where the GEMM takes any layout
  // (Blackwell), as the TN-only device's transposes are two copies: per cast element 2 + 2 (1 +
  // scale). Its weights are cast the same way once per step.
  const Scenario delayed = llama_like("fp8", "flash"), blockwise = llama_like("fp8", "flash", "blockwise");
  const Scenario mx = llama_like("fp8", "flash", "mxfp8", "dgx-b200-superpod");
  REQUIRE(mx.cluster.device.fp8_gemm_any_layout);
  CHECK(fp8_transposes(mx));
  const auto casts = [](const PassOps& p) {
    std::map<std::string, double> out;
    for (const auto* pass : {&p.forward, &p.backward})
      for (const Op& op : *pass)
        if (op.name.rfind("fp8_cast_transpose_", 0) == 0) out[op.name] += op.bytes.value;
    return out;
  };
  const auto base = casts(layer_ops(delayed, 1)), tiles = casts(layer_ops(blockwise, 1)),
             blocks = casts(layer_ops(mx, 1));
  REQUIRE(base.size() >= 4);
  for (const auto& [name, bytes] : base) {
    INFO(name);
    CHECK(tiles.at(name) == Approx(bytes * (2 + 2 * (1 + 4.0 / 128)) / 4));
    CHECK(blocks.at(name) == Approx(bytes * (2 + 2 * (1 + 1.0 / 32)) / 4));
  }
  const double linear = mx.model.linear_params();
  const auto cast = fp8_weight_cast_ops(mx, linear);
  REQUIRE(cast.size() == 1);
  CHECK(cast[0].bytes.value == Approx((2 + 2 * (1 + 1.0 / 32)) * linear));
}
