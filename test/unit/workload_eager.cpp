// training.elementwise "eager" (scenario/elementwise.hpp, workload/ops.cpp "Eager kernels"): the
// HBM traffic of the kernels PyTorch eager launches for the reference Llama code, written out here
// kernel by kernel (bytes read + written per element, bf16 2, fp32 4) from torchtitan@9dec370's
// RMSNorm, apply_rotary_emb, repeat_kv, FeedForward and loss_fn, against the ops of one layer.
#include <catch2/catch.hpp>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/ops.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

// `loss` empty: the scenario leaves training.loss out (it follows elementwise).
Scenario llama(const std::string& elementwise, const std::string& norm = "rmsnorm", const std::string& loss = "") {
  const std::string text =
      fill(R"({"kind": "scenario", "name": "eager",
    "model": {"name": "llama3-8b-like", "layers": 2, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
              "vocab": 128256, "activation": "swiglu", "norm": "{n}"},
    "cluster": {"from": "dgx-h100-superpod", "gpus": 8},
    "parallelism": {"tp": 1, "pp": 1, "dp": 8},
    "training": {"seq_len": 8192, "global_batch": 16, "micro_batch": 2, "elementwise": "{e}"{l}}})",
           {{"e", elementwise}, {"n", norm}, {"l", loss.empty() ? "" : ", \"loss\": \"" + loss + "\""}});
  return parse_scenario(ParamReader::from_text(text, "workload_eager.cpp"), TRAINSIM_SOURCE_DIR);
}

std::map<std::string, double> memory_bytes(const PassOps& p) {
  std::map<std::string, double> out;
  for (const auto* list : {&p.forward, &p.backward})
    for (const Op& op : *list)
      if (op.cls == OpClass::MEMORY) out[op.name] += op.bytes.value;
  return out;
}

// Bytes per element of a list of kernels, each {read, written}.
double per_element(const std::vector<std::pair<double, double>>& kernels) {
  return std::accumulate(kernels.begin(), kernels.end(), 0.0,
                         [](double s, const std::pair<double, double>& k) { return s + k.first + k.second; });
}

}  // namespace

TEST_CASE("eager kernels: a Llama layer's norms, RoPE, repeat_kv, SwiGLU and loss as PyTorch eager runs them",
          "[workload]") {
  const double tokens = 2 * 8192.0, h = 4096, f = 14336, q = 4096, kv = 8 * 128.0;
  // RMSNorm: x.float(), pow(2), mean, x * rsqrt, .type_as, * weight.
  const double norm_fwd = per_element({{2, 4}, {4, 4}, {4, 0}, {4, 4}, {4, 2}, {2, 2}});
  // Backward: * weight (dX; dW's product and sum), .type_as, x * rsqrt (dX; d rsqrt's product and
  // sum), mean, pow (2x; product), the two gradients of x.float() summed, .float().
  const double norm_bwd =
      per_element({{2, 2}, {4, 2}, {2, 0}, {2, 4}, {4, 4}, {8, 4}, {4, 0}, {0, 4}, {4, 4}, {8, 4}, {8, 4}, {4, 2}});
  // RoPE on queries and keys: .float(), the complex product, .type_as; and back.
  const double rope = per_element({{2, 4}, {4, 4}, {4, 2}});
  // SwiGLU: silu(a), silu(a) * b; backward g * b, g * silu(a), silu's backward.
  const double swiglu_fwd = per_element({{2, 2}, {4, 2}}), swiglu_bwd = per_element({{4, 2}, {4, 2}, {4, 2}});
  // The loss per logit: .float(), log_softmax; backward nll (zeroed fp32), log_softmax's, .float()'s.
  const double loss_fwd = per_element({{2, 4}, {4, 4}}), loss_bwd = per_element({{0, 4}, {8, 4}, {4, 2}});

  const Scenario eager = llama("eager"), fused = llama("fused");
  const auto e = memory_bytes(layer_ops(eager, 2)), u = memory_bytes(layer_ops(fused, 2));
  CHECK(e.at("norm1") == Approx(norm_fwd * tokens * h));
  CHECK(e.at("norm2_bwd") == Approx(norm_bwd * tokens * h));
  CHECK(e.at("rope") == Approx(rope * tokens * (q + kv)));
  CHECK(e.at("rope_bwd") == Approx(rope * tokens * (q + kv)));
  // Keys and values copied to all 32 query heads: read 8 heads' width, write 32 heads', for each.
  CHECK(e.at("repeat_kv") == Approx(2 * 2.0 * tokens * (kv + q)));
  CHECK(e.at("swiglu") == Approx(swiglu_fwd * tokens * f));
  CHECK(e.at("swiglu_bwd") == Approx(swiglu_bwd * tokens * f));
  // Fused: one kernel per norm and per rotary embedding reading and writing bf16 once; no copies.
  CHECK(u.at("norm1") == Approx(4 * tokens * h));
  CHECK(u.at("rope") == Approx(4 * tokens * (q + kv)));
  CHECK(u.count("repeat_kv") == 0);
  // The loss, over the vocabulary padded to a multiple of 128 (128,256 already is).
  const auto le = memory_bytes(output_ops(eager, 2));
  CHECK(le.at("cross_entropy") == Approx(loss_fwd * tokens * 128256));
  CHECK(le.at("cross_entropy_bwd") == Approx(loss_bwd * tokens * 128256));
  CHECK(le.at("final_norm") == Approx(norm_fwd * tokens * h));
  // training.loss apart: compiled layers with an eager loss (torchtitan at 9dec370), and the reverse.
  const auto compiled_layers = memory_bytes(output_ops(llama("fused", "rmsnorm", "eager"), 2));
  CHECK(compiled_layers.at("cross_entropy") == Approx(loss_fwd * tokens * 128256));
  CHECK(compiled_layers.at("final_norm") == Approx(4 * tokens * h));
  const auto fused_loss = memory_bytes(output_ops(llama("eager", "rmsnorm", "fused"), 2));
  CHECK(fused_loss.at("cross_entropy") == Approx(memory_bytes(output_ops(fused, 2)).at("cross_entropy")));
  CHECK(fused_loss.at("final_norm") == Approx(norm_fwd * tokens * h));
  // An eager LayerNorm is one ATen kernel (native_layer_norm), as fused.
  CHECK(memory_bytes(layer_ops(llama("eager", "layernorm"), 2)).at("norm1") ==
        Approx(memory_bytes(layer_ops(llama("fused", "layernorm"), 2)).at("norm1")));
}
