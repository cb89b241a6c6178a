// The mixture-of-experts and latent-attention models of models/ (sim/scenario/model.hpp): their
// parameter counts, total and activated per token, against the figures their sources publish
// (each model file cites its source), and the model section's bad input.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/core/error.hpp"
#include "sim/core/params.hpp"
#include "sim/scenario/model.hpp"
#include "test/unit/input_error_of.hpp"

using namespace sim;

namespace {

ModelSpec model(const std::string& name) {
  const std::string path = std::string(TRAINSIM_SOURCE_DIR) + "/models/" + name + ".json";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return ModelSpec::parse(ParamReader::from_text(text.str(), path));
}

ModelSpec inline_model(const std::string& extra) {
  return ModelSpec::parse(ParamReader::from_text(
      R"({"name": "m", "layers": 4, "hidden": 1024, "heads": 8, "ffn_hidden": 4096, "vocab": 1000,
          "activation": "swiglu")" +
          extra + "}",
      "m.json"));
}

}  // namespace

TEST_CASE("MoE models count the parameters their sources publish, total and activated", "[scenario]") {
  // DeepSeek-V3 README_WEIGHTS.md: 671B, 36.7B activated (embedding and head included); the paper
  // (arXiv 2412.19437 §4.2) rounds the activated to 37B. The count here (every weight matrix,
  // norm and router, 8 routed and the shared expert) comes to 37.55B: within 3% of 36.7B.
  const ModelSpec v3 = model("deepseek-v3");
  CHECK(v3.moe_layers() == 58);
  CHECK(v3.total_params() == Approx(671e9).epsilon(0.005));
  CHECK(v3.active_params() == Approx(36.7e9).epsilon(0.03));
  // Its multi-token prediction module: 11.5B parameters of its own (README_WEIGHTS.md), one MoE
  // layer, a 2h x h projection and two norms.
  CHECK(v3.mtp_layers == 1);
  CHECK(v3.mtp_params() == Approx(11.5e9).epsilon(0.01));
  // DeepSeek-V2 (arXiv 2405.04434): 236B, 21B activated.
  const ModelSpec v2 = model("deepseek-v2");
  CHECK(v2.total_params() == Approx(236e9).epsilon(0.005));
  CHECK(v2.active_params() == Approx(21e9).epsilon(0.03));
  // Mixtral 8x7B (arXiv 2401.04088 §2: 47B and 13B; Mistral AI's announcement: 46.7B, 12.9B).
  const ModelSpec mixtral = model("mixtral-8x7b");
  CHECK(mixtral.moe_layers() == 32);
  CHECK(mixtral.total_params() == Approx(46.7e9).epsilon(0.005));
  CHECK(mixtral.active_params() == Approx(12.9e9).epsilon(0.005));
  // Llama 4 Maverick (Meta's model card): 400B, 17B active; every second layer MoE.
  const ModelSpec maverick = model("llama4-maverick");
  CHECK(maverick.moe_layers() == 24);
  CHECK_FALSE(maverick.moe_layer(0));
  CHECK(maverick.moe_layer(1));
  CHECK(maverick.total_params() == Approx(400e9).epsilon(0.005));
  CHECK(maverick.active_params() == Approx(17e9).epsilon(0.02));
  // Qwen3 (arXiv 2505.09388; the 30B's model card): 235B and 22B; 30.5B and 3.3B.
  const ModelSpec qwen235 = model("qwen3-235b-a22b");
  CHECK(qwen235.total_params() == Approx(235e9).epsilon(0.005));
  CHECK(qwen235.active_params() == Approx(22e9).epsilon(0.02));
  const ModelSpec qwen30 = model("qwen3-30b-a3b");
  CHECK(qwen30.total_params() == Approx(30.5e9).epsilon(0.005));
  CHECK(qwen30.active_params() == Approx(3.3e9).epsilon(0.02));
  // Kimi K2 (arXiv 2507.20534): 1.04T and 32B; counted 1.026T and 32.9B.
  const ModelSpec kimi = model("kimi-k2");
  CHECK(kimi.total_params() == Approx(1.04e12).epsilon(0.02));
  CHECK(kimi.active_params() == Approx(32e9).epsilon(0.03));
  // DBRX (Databricks' model card): 132B and 36B; Mixtral 8x22B (Mistral AI's announcement): 141B
  // and 39B. Both published to the billion: within half of one.
  const ModelSpec dbrx = model("dbrx");
  CHECK(dbrx.total_params() == Approx(132e9).margin(0.5e9));
  CHECK(dbrx.active_params() == Approx(36e9).margin(0.5e9));
  const ModelSpec mixtral22 = model("mixtral-8x22b");
  CHECK(mixtral22.total_params() == Approx(141e9).margin(0.5e9));
  CHECK(mixtral22.active_params() == Approx(39e9).margin(0.5e9));
}

TEST_CASE("a dense model's activated parameters are all of them", "[scenario]") {
  const ModelSpec m = model("llama3-405b");
  CHECK(m.active_params() == m.total_params());
  CHECK(m.moe_layers() == 0);
}

TEST_CASE("which layers are MoE: the dense ones first, then every layer_interval-th", "[scenario]") {
  const ModelSpec m = inline_model(R"(, "moe": {"experts": 4, "top_k": 1, "dense_layers": 1, "layer_interval": 2})");
  // Layers 0 (dense), 1 and 3 dense, 2 MoE: (i - 1) % 2 == 1.
  CHECK_FALSE(m.moe_layer(0));
  CHECK_FALSE(m.moe_layer(1));
  CHECK(m.moe_layer(2));
  CHECK_FALSE(m.moe_layer(3));
  CHECK(m.moe_layers() == 1);
  // One MoE layer's three expert matrices per expert beyond a dense one's (h x ffn each, 4 experts
  // vs 1) and its router (h x experts): the difference of the totals.
  const ModelSpec dense = inline_model("");
  const double h = 1024, ffn = 4096;
  CHECK(m.total_params() - dense.total_params() == Approx(3 * h * ffn * 3 + h * 4));
  CHECK(m.active_params() - dense.active_params() == Approx(h * 4));  // top 1: one expert, the router
}

TEST_CASE("a model section that cannot be built is one clear error", "[scenario]") {
  CHECK_THAT(error_of([] { inline_model(R"(, "moe": {"experts": 4, "top_k": 1, "dense_layers": 4})"); }),
             Catch::Contains("/moe/dense_layers") && Catch::Contains("no MoE layer"));
  CHECK_THAT(error_of([] { inline_model(R"(, "moe": {"experts": 4, "top_k": 1, "layer_interval": 5})"); }),
             Catch::Contains("/moe/layer_interval"));
  CHECK_THAT(error_of([] { inline_model(R"(, "moe": {"experts": 4, "top_k": 5})"); }), Catch::Contains("/moe/top_k"));
  CHECK_THAT(error_of([] { inline_model(R"(, "mla": {"kv_lora_rank": 512})"); }),
             Catch::Contains("/mla/") && Catch::Contains("qk_nope_head_dim"));
}
