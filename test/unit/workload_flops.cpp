// FLOPs of a step's task graph against the published closed forms for GPT (ffn = 4h, GELU,
// learned positions, tied embeddings): the sum over every task of build_pipeline(...) is one
// GPU's share per (tp, cp, dp) index, so times tp*cp*dp it is the whole step's work.
//
//   model FLOPs (Korthikanti et al. 2022 App. A Eq. 7; Narayanan et al. 2021 Eq. 3 without the
//   recompute forward):            72 B s l h^2 (1 + s/(6h) + V/(12 l h))
//   hardware FLOPs, full recompute (Narayanan et al. 2021 Eq. 3):
//                                  96 B s l h^2 (1 + s/(6h) + V/(16 l h))
//   hardware FLOPs, selective recompute: the model FLOPs plus one more forward of the attention
//   core, QK^T and attention over V, 2 B s^2 h each per layer (Korthikanti et al. 2022 App. A,
//   the derivation before Eq. 8):   72 B s l h^2 (1 + s/(6h) + V/(12 l h)) + 4 B s^2 h l
//
// Note on Korthikanti Eq. 8: the paper prints 72 B s l h^2 (1 + s/(3h) + V/(12 l h)), i.e. an extra
// 12 B s^2 h l -- three times the 4 B s^2 h l its own text says selective recompute adds (the
// published HFU/MFU ratios of its Table 5 were computed with the printed form). Recomputing one
// forward of QK^T and attention-over-V costs 4 B s^2 h per layer, so that is what we check.
//
// B is the global batch (sequences), s the sequence length, l layers, h hidden, V the vocabulary
// padded to a multiple of 128*tp (Megatron-LM); 51200 is already a multiple of 1024, so V = 51200
// for every tp <= 8.
#include <algorithm>
#include <catch2/catch.hpp>
#include <initializer_list>
#include <string>
#include <utility>

#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/ops.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

struct Gpt {
  const char* name;
  int64_t layers, hidden, heads;
};

// Narayanan et al. 2021 Table 1 rows 1.7B, 18.4B and 1008B, and GPT-3 175B (Korthikanti et al.
// 2022 Table 3), as in validation/published-a100.json.
constexpr Gpt GPT_1_7B{"gpt-1.7B", 24, 2304, 24};
constexpr Gpt GPT_18_4B{"gpt-18.4B", 40, 6144, 48};
constexpr Gpt GPT_175B{"gpt3-175B", 96, 12288, 96};
constexpr Gpt GPT_1T{"gpt-1008B", 128, 25600, 160};
constexpr int64_t VOCAB = 51200, SEQ = 2048;

struct Plan {
  int64_t tp = 1, pp = 1, dp = 1, cp = 1, v = 1, micro_batch = 1, global_batch = 8;
  const char* recompute = "none";
};

Scenario gpt_scenario(const Gpt& m, const Plan& p) {
  const int64_t gpus = p.tp * p.pp * p.dp * p.cp;
  const std::string text = fill(R"({"kind": "scenario", "name": "flops",
    "model": {"name": "{name}", "layers": {l}, "hidden": {h}, "heads": {a}, "kv_heads": {a}, "ffn_hidden": {ffn},
              "vocab": {V}, "activation": "gelu"},
    "cluster": {"gpu": "a100-sxm-80gb", "gpus": {gpus}, "gpus_per_node": {node},
                "scale_up": {"kind": "nvswitch", "bandwidth": "300 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": {node}, "nic_bandwidth": "200 Gb/s"}},
    "parallelism": {"tp": {tp}, "pp": {pp}, "dp": {dp}, "cp": {cp}, "virtual_stages": {v}},
    "training": {"seq_len": {s}, "global_batch": {B}, "micro_batch": {b}, "recompute": "{recompute}",
                 "precision": "bf16", "attention": "unfused"}})",
                                {{"name", m.name},
                                 {"l", std::to_string(m.layers)},
                                 {"h", std::to_string(m.hidden)},
                                 {"a", std::to_string(m.heads)},
                                 {"ffn", std::to_string(4 * m.hidden)},
                                 {"V", std::to_string(VOCAB)},
                                 {"gpus", std::to_string(gpus)},
                                 {"node", std::to_string(std::min<int64_t>(gpus, 8))},
                                 {"tp", std::to_string(p.tp)},
                                 {"pp", std::to_string(p.pp)},
                                 {"dp", std::to_string(p.dp)},
                                 {"cp", std::to_string(p.cp)},
                                 {"v", std::to_string(p.v)},
                                 {"s", std::to_string(SEQ)},
                                 {"B", std::to_string(p.global_batch)},
                                 {"b", std::to_string(p.micro_batch)},
                                 {"recompute", p.recompute}});
  return parse_scenario(ParamReader::from_text(text, "workload_flops.cpp"), TRAINSIM_SOURCE_DIR);
}

struct StepFlops {
  double model = 0, hardware = 0;
};

StepFlops step_flops(const Scenario& s) {
  ComputeModel cm(s.cluster.device, s.training.precision);
  StageLayout layout = make_stage_layout(s.model, s.plan, s.plan.virtual_stages.value, s.file);
  Pipeline p = build_pipeline(s, layout, s.training.micro_batch.value, cm);
  StepFlops f;
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) {
    f.model += p.graph[v].model_flops.value;
    f.hardware += p.graph[v].hardware_flops.value;
  }
  const double replicas = double(s.plan.tp * s.plan.cp * s.plan.dp);
  f.model *= replicas;
  f.hardware *= replicas;
  return f;
}

// The closed forms of the header, in B, s, l, h, V.
double model_flops(double B, double s, double l, double h, double V) {
  return 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
}
double full_recompute_flops(double B, double s, double l, double h, double V) {
  return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}
double selective_recompute_flops(double B, double s, double l, double h, double V) {
  return model_flops(B, s, l, h, V) + 4 * B * s * s * h * l;
}

constexpr double REL = 1e-9;

}  // namespace

TEST_CASE("padded vocabulary is 51200 for tp <= 8 (a multiple of 128*tp)", "[workload]") {
  for (int64_t tp : {1, 2, 4, 8}) {
    Plan p;
    p.tp = tp;
    CHECK(padded_vocab(gpt_scenario(GPT_1_7B, p)) == VOCAB);
  }
}

TEST_CASE("model FLOPs equal Korthikanti et al. 2022 App. A: 72 B s l h^2 (1 + s/6h + V/12lh)", "[workload]") {
  for (const Gpt& m : {GPT_1_7B, GPT_18_4B, GPT_175B, GPT_1T})
    for (int64_t tp : {1, 8})
      for (int64_t B : {4, 16}) {
        Plan p;
        p.tp = tp;
        p.global_batch = B;
        const Scenario s = gpt_scenario(m, p);
        INFO(m.name << " tp=" << tp << " B=" << B);
        const StepFlops f = step_flops(s);
        const double expect = model_flops(double(B), SEQ, double(m.layers), double(m.hidden), VOCAB);
        CHECK(f.model == Approx(expect).epsilon(REL));
        // Without recompute the hardware does exactly the model's work.
        CHECK(f.hardware == Approx(expect).epsilon(REL));
      }
}

// Hardware FLOPs under `recompute` over the Table 1 shapes at tp 1 and 8 equal `expected`; model
// FLOPs stay the model's work whatever is recomputed.
template <class Expected>
void check_recompute_flops(const char* recompute, Expected expected) {
  for (const Gpt& m : {GPT_1_7B, GPT_18_4B, GPT_175B, GPT_1T})
    for (int64_t tp : {1, 8}) {
      Plan p;
      p.tp = tp;
      p.global_batch = 8;
      p.recompute = recompute;
      const Scenario s = gpt_scenario(m, p);
      INFO(m.name << " tp=" << tp << " recompute=" << recompute);
      const StepFlops f = step_flops(s);
      const double B = 8, l = double(m.layers), h = double(m.hidden);
      CHECK(f.hardware == Approx(expected(B, SEQ, l, h, VOCAB)).epsilon(REL));
      CHECK(f.model == Approx(model_flops(B, SEQ, l, h, VOCAB)).epsilon(REL));  // recompute is not model work
    }
}

TEST_CASE("hardware FLOPs with full recompute equal Narayanan et al. 2021 Eq. 3: 96 B s l h^2 (1 + s/6h + V/16lh)",
          "[workload]") {
  check_recompute_flops("full", full_recompute_flops);
}

TEST_CASE(
    "hardware FLOPs with selective recompute add one attention-core forward, 4 B s^2 h per layer "
    "(Korthikanti et al. 2022 App. A)",
    "[workload]") {
  check_recompute_flops("selective", selective_recompute_flops);
}

TEST_CASE("step FLOPs do not depend on how the batch and the layers are split (dp, micro-batch, pp, interleaving)",
          "[workload]") {
  // Same closed forms as above: splitting the work never changes the total.
  const Gpt& m = GPT_18_4B;
  const double l = double(m.layers), h = double(m.hidden);
  struct Case {
    int64_t tp, pp, dp, v, micro_batch, global_batch;
  };
  for (const Case& c :
       {Case{8, 1, 4, 1, 2, 32}, Case{2, 4, 2, 1, 1, 16}, Case{4, 4, 1, 2, 1, 8}, Case{1, 8, 1, 5, 1, 16}}) {
    Plan p;
    p.tp = c.tp, p.pp = c.pp, p.dp = c.dp, p.v = c.v, p.micro_batch = c.micro_batch, p.global_batch = c.global_batch;
    p.recompute = "full";
    const Scenario s = gpt_scenario(m, p);
    INFO("tp=" << c.tp << " pp=" << c.pp << " dp=" << c.dp << " v=" << c.v << " b=" << c.micro_batch);
    const StepFlops f = step_flops(s);
    const double B = double(c.global_batch);
    CHECK(f.model == Approx(model_flops(B, SEQ, l, h, VOCAB)).epsilon(REL));
    CHECK(f.hardware == Approx(full_recompute_flops(B, SEQ, l, h, VOCAB)).epsilon(REL));
  }
}

TEST_CASE("context parallelism does not change the step's model FLOPs (each query still attends to all s keys)",
          "[workload]") {
  // Ring attention (Megatron-LM context parallelism, Liu et al. 2023): each of the cp GPUs holds
  // s/cp queries and, over the ring, meets all s keys, so QK^T and attention-over-V cost
  // 2 B (s/cp) s h each per GPU and the step total is unchanged: 72 B s l h^2 (1 + s/6h + V/12lh).
  const Gpt& m = GPT_1_7B;
  Plan p;
  p.cp = 2;
  p.global_batch = 8;
  const Scenario s = gpt_scenario(m, p);
  const StepFlops f = step_flops(s);
  CHECK(f.model == Approx(model_flops(8, SEQ, double(m.layers), double(m.hidden), VOCAB)).epsilon(REL));
}

TEST_CASE("FlashAttention keeps the model FLOPs and executes only the causal half of the scores", "[workload]") {
  // Model FLOPs follow Korthikanti et al. 2022 App. A (4 B s^2 h per layer forward for the two
  // score matmuls, whatever kernel runs them). Hardware FLOPs are what runs: with F = 4 B s^2 h
  // per layer, the unfused path executes F forward and 2F backward (+F when recomputed); a causal
  // FlashAttention kernel F/2 forward and 2.5 x F/2 backward (its benchmark convention, the
  // backward recomputing the scores), + F/2 when recomputed. So per layer the hardware FLOPs drop
  // by 1.25 F without recompute and by 1.75 F with selective or full recompute.
  for (const char* recompute : {"none", "selective", "full"}) {
    Plan p;
    p.tp = 8;
    p.recompute = recompute;
    Scenario unfused = gpt_scenario(GPT_18_4B, p);
    Scenario flash = unfused;
    flash.training.attention = sim::Attention::FLASH;
    INFO("recompute=" << recompute);
    const StepFlops a = step_flops(unfused), b = step_flops(flash);
    const double B = double(p.global_batch), l = double(GPT_18_4B.layers), h = double(GPT_18_4B.hidden);
    const double F = 4.0 * B * SEQ * SEQ * h;
    const double drop = std::string(recompute) == "none" ? 1.25 : 1.75;
    CHECK(b.model == Approx(a.model).epsilon(REL));
    CHECK(b.hardware == Approx(a.hardware - drop * F * l).epsilon(REL));
  }
}

TEST_CASE("PaLM 540B: 540.35B parameters and 6N + 12 L H Q T model FLOPs per token, as its paper counts",
          "[workload]") {
  // Chowdhery et al. 2022: Table 1 gives 540.35B parameters for 118 layers, d_model 18432 and 48
  // heads of 256 (queries 12,288 wide: head_dim is not d_model / heads), multi-query attention;
  // Appendix B counts 6N + 12 L H Q T FLOPs per token (Q the head size, T the sequence length).
  const std::string text = R"({"kind": "scenario", "name": "palm", "model": "palm-540b",
    "cluster": {"gpu": "tpu-v4", "gpus": 1, "gpus_per_node": 1,
                "scale_up": {"kind": "torus", "dims": [1], "bandwidth": "45 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": 1, "nic_bandwidth": "200 Gb/s"}},
    "parallelism": {"tp": 1, "pp": 1, "dp": 1},
    "training": {"seq_len": 2048, "global_batch": 1, "micro_batch": 1, "recompute": "none", "precision": "bf16",
                 "attention": "unfused"}})";
  const Scenario s = parse_scenario(ParamReader::from_text(text, "workload_flops.cpp"), TRAINSIM_SOURCE_DIR);
  CHECK(s.model.query_width() == 48 * 256);
  CHECK(s.model.total_params() == Approx(540.35e9).epsilon(1e-4));
  const double L = 118, H = 48, Q = 256, T = 2048;
  const double per_token = 6 * 540.35e9 + 12 * L * H * Q * T;  // 3.278e12: Table 22's 3.28 TFLOPs
  CHECK(step_flops(s).model / T == Approx(per_token).epsilon(1e-4));
}
