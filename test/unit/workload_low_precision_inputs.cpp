// Saved inputs cached in fewer bits (training.low_precision_inputs, low_precision_inputs.hpp):
// DeepSeek-V3's E5M6 copy of the attention output and FP8 SwiGLU inputs (arXiv 2412.19437
// §3.3.3), Kimi K2's FP8 expert inputs. The expected savings are written out per tensor from
// Korthikanti et al. 2022's per-layer activations (Table 2: 2 bytes per element of a 16-bit
// tensor, sequence parallelism splitting everything over tp): the cached tensor's elements times
// the bytes its 16-bit (and, in FP8, its FP8 copy's) storage takes less.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

constexpr double S = 4096, H = 4096, TP = 2;  // Mixtral 8x7B's hidden, the scenario's tp and sequence

// Mixtral 8x7B on tp 2 (sequence parallel, ep 8 folded) in `precision`, with `inputs` cached in
// fewer bits and `offload` offloaded (each a JSON list, or empty for none).
Scenario mixtral(const std::string& precision, const std::string& inputs, const std::string& offload = "") {
  const std::string text = fill(R"({"kind": "scenario", "name": "low-precision", "model": "mixtral-8x7b",
    "cluster": {"from": "dgx-h100-superpod", "gpus": 64},
    "parallelism": {"tp": 2, "sequence_parallel": true, "pp": 4, "dp": 8, "ep": 8, "dispatcher": "alltoall",
                    "zero": 1, "placement": "tp-cp-dp-pp"},
    "training": {"seq_len": 4096, "global_batch": 256, "micro_batch": 1, "recompute": "none",
                 "precision": "{precision}", "attention": "cudnn"{inputs}{offload}}})",
                                {{"precision", precision},
                                 {"inputs", inputs.empty() ? "" : ", \"low_precision_inputs\": " + inputs},
                                 {"offload", offload.empty() ? "" : ", \"offload_modules\": " + offload}});
  return parse_scenario(ParamReader::from_text(text, "workload_low_precision_inputs.cpp"), TRAINSIM_SOURCE_DIR);
}

// Bytes saved on a tensor of `width` elements per token, split over tp, per byte an element sheds.
double saved(double width, double bytes_less) { return S * width / TP * bytes_less; }

}  // namespace

TEST_CASE("low_precision_inputs: each cached input's saving, per layer and microbatch", "[workload]") {
  for (const std::string precision : {"bf16", "fp8"}) {
    const bool fp8 = precision == "fp8";
    const Scenario none = mixtral(precision, "");
    const ModelSpec& m = none.model;
    const double q = double(m.query_width()), k = double(m.moe->top_k), f = double(m.moe->expert_ffn_hidden);
    // The projection's input: a 16-bit output (and in FP8 the projection's FP8 copy) become one
    // 12-bit E5M6 copy. The experts' activation input, both halves of the gated unit for each of
    // a token's top_k copies: 16 bits to 8. The experts' input copies (folded ep: a rank routes
    // its own s / tp tokens): 16 bits to 8 in BF16, already 8 in FP8.
    const struct {
      const char* input;
      double bytes;
      bool moe_only;
    } cases[] = {{"attn_proj", saved(q, (fp8 ? 3.0 : 2.0) - 1.5), false},
                 {"moe_act", saved(k * 2 * f, 1.0), true},
                 {"expert_fc1", saved(k * H, fp8 ? 0.0 : 1.0), true}};
    double all = 0;
    std::string list;
    for (const auto& c : cases) {
      INFO(precision << " " << c.input);
      const Scenario s = mixtral(precision, "[\"" + std::string(c.input) + "\"]");
      CHECK((layer_activation_bytes(none, 1, true) - layer_activation_bytes(s, 1, true)).value == Approx(c.bytes));
      CHECK((layer_activation_bytes(none, 1, false) - layer_activation_bytes(s, 1, false)).value ==
            Approx(c.moe_only ? 0.0 : c.bytes).margin(1e-3));
      all += c.bytes;
      list += (list.empty() ? "[\"" : ", \"") + std::string(c.input) + "\"";
    }
    INFO(precision << " all");
    CHECK((layer_activation_bytes(none, 1, true) - layer_activation_bytes(mixtral(precision, list + "]"), 1, true))
              .value == Approx(all));
  }
}

TEST_CASE("low_precision_inputs: an offloaded input copies the bytes it is cached in", "[workload]") {
  // The experts' activation input offloaded: both halves of each copy, 2 bytes an element, or 1
  // cached in FP8 (Megatron-Core's offload copies the saved tensor as it is kept).
  const double k = 2, f = 14336;  // Mixtral 8x7B: top 2 of experts 14336 wide
  const Scenario kept16 = mixtral("bf16", "", "[\"moe_act\"]");
  const Scenario kept8 = mixtral("bf16", "[\"moe_act\"]", "[\"moe_act\"]");
  REQUIRE(kept16.model.moe->expert_ffn_hidden == f);
  CHECK(layer_offloaded_bytes(kept16, 1, true).value == Approx(S * k * 2 * f / TP * 2.0));
  CHECK(layer_offloaded_bytes(kept8, 1, true).value == Approx(S * k * 2 * f / TP * 1.0));
}

TEST_CASE("low_precision_inputs: DeepSeek-V3's latent attention caches its value-wide output once", "[workload]") {
  // DeepSeek-V3 (128 heads, values 128 wide) on tp 1 in FP8: the projection's input was the
  // core's 16-bit output and its FP8 copy, 3 bytes an element; cached in E5M6, 1.5.
  const auto dsv3 = [](const std::string& inputs) {
    const std::string text = fill(R"({"kind": "scenario", "name": "dsv3", "model": "deepseek-v3",
      "cluster": "deepseek-v3-h800",
      "parallelism": {"tp": 1, "pp": 16, "schedule": "dualpipe", "dp": 128, "ep": 64, "dispatcher": "deepep",
                      "zero": 1, "placement": "tp-cp-dp-pp"},
      "training": {"seq_len": 4096, "global_batch": 15360, "micro_batch": 1, "recompute": "selective",
                   "recompute_modules": ["layernorm", "mla_up_proj", "moe_act"], "precision": "fp8",
                   "fp8_scaling": "blockwise", "attention": "cudnn"{inputs}}})",
                                  {{"inputs", inputs}});
    return parse_scenario(ParamReader::from_text(text, "workload_low_precision_inputs.cpp"), TRAINSIM_SOURCE_DIR);
  };
  const Scenario before = dsv3(""), after = dsv3(", \"low_precision_inputs\": [\"attn_proj\"]");
  const double heads = 128, d_v = 128;
  REQUIRE(before.model.heads == heads);
  REQUIRE(before.model.mla->v_head_dim == d_v);
  for (const bool moe : {false, true})
    CHECK((layer_activation_bytes(before, 1, moe) - layer_activation_bytes(after, 1, moe)).value ==
          Approx(S * heads * d_v * 1.5));
}
