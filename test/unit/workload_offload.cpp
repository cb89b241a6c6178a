// Fine-grained activation offloading (training.offload_modules, offload_modules.hpp): each module's
// saved input leaves the GPU's memory for the host's, and the copies run over the cluster's host
// link beside the kernels (Megatron-Core's fine_grained_activation_offloading.md). The expected
// bytes are written out per tensor from Korthikanti et al. 2022's per-layer activations (Table 2:
// 2 bytes per element of a 16-bit tensor, sequence parallel splitting everything over tp) and the
// copy times as bytes over the link.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/stage_layout.hpp"
#include "sim/workload/task_pricer.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

constexpr double S = 4096, H = 4096, TP = 2;  // Mixtral 8x7B's hidden, the shipped config's tp and sequence

// The shipped Mixtral 8x7B config (tp 2, sequence parallel, ep 8 folded, BF16 here) with the given
// modules offloaded and the host link `link`.
Scenario mixtral(const std::string& modules, const std::string& link = "55 GB/s") {
  const std::string text =
      fill(R"({"kind": "scenario", "name": "offload", "model": "mixtral-8x7b",
    "cluster": {"from": "dgx-h100-superpod", "gpus": 64, "host_link": "{link}"},
    "parallelism": {"tp": 2, "sequence_parallel": true, "pp": 4, "dp": 8, "ep": 8, "dispatcher": "alltoall",
                    "zero": 1, "placement": "tp-cp-dp-pp"},
    "training": {"seq_len": 4096, "global_batch": 256, "micro_batch": 1, "recompute": "none",
                 "precision": "bf16", "attention": "cudnn"{modules}}})",
           {{"link", link}, {"modules", modules.empty() ? "" : ", \"offload_modules\": " + modules}});
  return parse_scenario(ParamReader::from_text(text, "workload_offload.cpp"), TRAINSIM_SOURCE_DIR);
}

// Bytes of one tensor of `width` elements per token, split over tp (sequence parallel), 16-bit.
double split(double width) { return 2.0 * S * width / TP; }

}  // namespace

TEST_CASE("offload: each module's saved input, per layer and microbatch", "[workload]") {
  const Scenario none = mixtral("");
  const ModelSpec& m = none.model;
  const double q = double(m.query_width()), kv = double(m.kv_heads * m.head_dim());
  const double k = double(m.moe->top_k), f = double(m.moe->expert_ffn_hidden);
  // Norm inputs and the QKV GEMM's input: the hidden state; the core: Q, K, V; the projection:
  // the core's output; the experts' fc1 input: each token's top_k copies (folded ep: a rank routes
  // its own s / tp tokens); the activation's input: fc1's output, both halves of the gated unit.
  const struct {
    const char* module;
    double bytes;
    bool moe_only;
  } cases[] = {{"attn_norm", split(H), false},     {"mlp_norm", split(H), false},
               {"qkv_linear", split(H), false},    {"core_attn", split(q + 2 * kv), false},
               {"attn_proj", split(q), false},     {"expert_fc1", split(k * H), true},
               {"moe_act", split(k * 2 * f), true}};
  double all = 0;
  std::string list;
  for (const auto& c : cases) {
    INFO(c.module);
    const Scenario s = mixtral("[\"" + std::string(c.module) + "\"]");
    CHECK(layer_offloaded_bytes(s, 1, true).value == Approx(c.bytes));
    CHECK(layer_offloaded_bytes(s, 1, false).value == Approx(c.moe_only ? 0.0 : c.bytes));
    // What is offloaded is no longer kept.
    CHECK((layer_activation_bytes(s, 1, true) + layer_offloaded_bytes(s, 1, true)).value ==
          Approx(layer_activation_bytes(none, 1, true).value));
    all += c.bytes;
    list += (list.empty() ? "[\"" : ", \"") + std::string(c.module) + "\"";
  }
  CHECK(layer_offloaded_bytes(mixtral(list + "]"), 1, true).value == Approx(all));
  CHECK(layer_offloaded_bytes(none, 1, true).value == 0);
}

TEST_CASE("offload: a pass whose copies outlast its kernels waits for the host link", "[workload]") {
  // Every module offloaded over a link of 1 GB/s: a stage's 8 layers' copies take bytes / link,
  // longer than their kernels; the backward brings them back at the same rate. Over 1 TB/s they
  // hide behind the kernels and the passes take what they take without offload.
  const std::string all =
      R"(["attn_norm", "qkv_linear", "core_attn", "attn_proj", "mlp_norm", "expert_fc1", "moe_act"])";
  const Scenario slow = mixtral(all, "1 GB/s"), fast = mixtral(all, "1000 GB/s"), none = mixtral("");
  const auto price = [](const Scenario& s, TaskKind kind) {
    const ComputeModel cm(s.cluster.device, s.training.precision);
    const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
    TaskPricer pricer(s, layout, 1, cm);
    return pricer.task(1, 0, kind);  // a middle stage: its 8 layers, no embedding or output layer
  };
  const double copied = 8.0 * layer_offloaded_bytes(slow, 1, true).value;
  for (TaskKind kind : {TaskKind::FORWARD, TaskKind::BACKWARD}) {
    const Task s = price(slow, kind), f = price(fast, kind), n = price(none, kind);
    CHECK(s.compute.value == Approx(copied / 1e9));
    CHECK(s.host_wait.value == Approx(copied / 1e9 - (n.compute.value - n.host_wait.value)));
    CHECK(f.compute.value == Approx(n.compute.value));
    CHECK(f.host_wait.value == Approx(n.host_wait.value));
  }
}
