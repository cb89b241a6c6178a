// Selective recomputation by module (training.recompute_modules; Megatron-Core's
// --recompute-modules): each module's tensors leave the activations and its forward ops run again
// in the backward. DeepSeek-V3's layer (models/deepseek-v3.json: hidden 7168, 128 heads, MLA with
// q/kv latents of 1536/512, query-key heads 128 + 64 wide, values 128; 8 of 256 experts 2048 wide,
// one shared) on one GPU, bf16, one 4,096-token microbatch: the differences are written out here
// from those dimensions, 2 bytes per kept element.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/ops.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

constexpr double S = 4096, H = 7168, HEADS = 128, D_QK = 192, D_V = 128, Q_RANK = 1536, KV_RANK = 512;
constexpr double TOP_K = 8, FE = 2048;

// `modules` empty: recompute "none"; "-": selective with no recompute_modules key.
Scenario dsv3(const std::string& modules) {
  const std::string recompute = modules.empty()  ? R"("recompute": "none")"
                                : modules == "-" ? R"("recompute": "selective")"
                                                 : R"("recompute": "selective", "recompute_modules": )" + modules;
  const std::string text = fill(R"({"kind": "scenario", "name": "recompute-modules", "model": "deepseek-v3",
    "cluster": {"gpu": "h100-sxm", "gpus": 1, "gpus_per_node": 8,
                "scale_up": {"kind": "nvswitch", "bandwidth": "450 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "400 Gb/s"}},
    "parallelism": {"tp": 1, "pp": 1, "dp": 1},
    "training": {"seq_len": 4096, "global_batch": 1, "micro_batch": 1, {r}, "precision": "bf16",
                 "attention": "flash"}})",
                                {{"r", recompute}});
  return parse_scenario_sections(ParamReader::from_text(text, "recompute-modules.json"), TRAINSIM_SOURCE_DIR);
}

double bytes(const std::string& modules, bool moe = true) {
  return layer_activation_bytes(dsv3(modules), 1, moe).value;
}

double flops(const std::vector<Op>& ops) {
  double f = 0;
  for (const Op& op : ops) f += op.flops.value;
  return f;
}

}  // namespace

TEST_CASE("recompute modules: selective alone is the attention core (flash attention keeps no scores: as none)",
          "[workload]") {
  CHECK(dsv3("-").training.selective_modules() == std::vector<RecomputeModule>{RecomputeModule::CORE_ATTN});
  CHECK(bytes("-") == Approx(bytes(R"(["core_attn"])")));
  CHECK(bytes("-") == Approx(bytes("")));  // flash attention keeps no scores
  // It reruns the attention core's forward (the flash kernel) and nothing else.
  const PassOps core = layer_ops(dsv3("-"), 1, true);
  REQUIRE_FALSE(core.recompute.empty());
  for (const Op& op : core.recompute) CHECK(op.attention_core);
}

TEST_CASE("recompute modules: each one's tensors leave a layer's activations", "[workload]") {
  // mla_up_proj: Q and K (192 wide per head) and V (128), 2 bytes each, and the up-projections'
  // inputs (the latents' norm outputs); the latents themselves stay, the checkpoint's input.
  CHECK(bytes("") - bytes(R"(["mla_up_proj"])") ==
        Approx(S * (2 * HEADS * (D_QK + D_QK + D_V) + 2 * (Q_RANK + KV_RANK))));
  // layernorm: the two norms' outputs, the QKV (here the latents' down-projections') and MLP inputs.
  CHECK(bytes("") - bytes(R"(["layernorm"])") == Approx(S * 2 * (H + H)));
  // moe_act: the routed experts' SwiGLU output, fc2's input, for each token's 8 copies.
  CHECK(bytes("") - bytes(R"(["moe_act"])") == Approx(S * 2 * TOP_K * FE));
  // shared_experts: the shared expert's two fc1 halves and their product.
  CHECK(bytes("") - bytes(R"(["shared_experts"])") == Approx(S * 6 * FE));
  // mlp, in a dense layer (ffn 18432): its input and the two halves and product; nothing in an MoE one.
  CHECK(bytes("", false) - bytes(R"(["mlp"])", false) == Approx(S * (2 * H + 6 * 18432)));
  CHECK(bytes(R"(["mlp"])") == Approx(bytes("")));
  // Together: the sum (layernorm and mlp both drop the MLP's input, once).
  CHECK(bytes("", false) - bytes(R"(["layernorm", "mlp", "mla_up_proj"])", false) ==
        Approx(S * (2 * HEADS * (D_QK + D_QK + D_V) + 2 * (Q_RANK + KV_RANK) + 4 * H + 6 * 18432)));
}

TEST_CASE("recompute modules: each one's forward ops run again in the backward", "[workload]") {
  // mla_up_proj reruns the two up-projections, 2 S r n FLOPs each (r the latent, n its output width),
  // beside their latents' norms and RoPE.
  const PassOps up = layer_ops(dsv3(R"(["mla_up_proj"])"), 1, true);
  CHECK(flops(up.recompute) == Approx(2 * S * (Q_RANK * HEADS * D_QK + KV_RANK * HEADS * (128 + D_V))));
  std::vector<std::string> names;
  for (const Op& op : up.recompute) names.push_back(op.name);
  CHECK(names == std::vector<std::string>{"q_norm", "q_up", "kv_norm", "kv_up", "rope"});
  // mlp reruns a dense layer's fc1 (two halves) and fc2: 2 S h f (2 + 1) FLOPs.
  CHECK(flops(layer_ops(dsv3(R"(["mlp"])"), 1, false).recompute) == Approx(2 * S * H * 18432 * 3));
  // moe_act and layernorm rerun memory-bound kernels alone; shared_experts the shared expert's GEMMs.
  CHECK(flops(layer_ops(dsv3(R"(["moe_act", "layernorm"])"), 1, true).recompute) == 0);
  CHECK(layer_ops(dsv3(R"(["moe_act", "layernorm"])"), 1, true).recompute.size() == 3);
  CHECK(flops(layer_ops(dsv3(R"(["shared_experts"])"), 1, true).recompute) == Approx(2 * S * H * FE * 3));
}
