// Gradient buckets under overlap_grad_reduce (sim/workload/grad_sync.hpp, grad_buckets): Megatron-
// Core's DDP buckets max(40e6, 1e6 x dp x cp) of a GPU's parameters on the first pipeline rank's
// first chunk and reduces every other chunk as one bucket; ZeRO-3 (FSDP) reduces per layer. The
// expectations are those rules written out here on the model's parameter counts.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/grad_sync.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "sim/workload/step_program.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

// GPT-3 175B (96 layers) on 512 or 4,096 A100s: tp 8, pp 4, two virtual stages (12 layers a chunk).
// `extra`: more "parallelism" keys, JSON, each with a leading comma.
Scenario gpt3(int64_t dp, int64_t zero, bool overlap, const std::string& extra = "") {
  const std::string text = fill(R"({"kind": "scenario", "name": "buckets", "model": "gpt3-175b",
    "cluster": {"from": "dgx-a100-superpod", "gpus": {g}},
    "parallelism": {"tp": 8, "pp": 4, "dp": {dp}, "zero": {z}, "virtual_stages": 2, "overlap_grad_reduce": {o}{x}},
    "training": {"seq_len": 2048, "global_batch": {gb}, "micro_batch": 1}})",
                                {{"g", std::to_string(32 * dp)},
                                 {"dp", std::to_string(dp)},
                                 {"z", std::to_string(zero)},
                                 {"o", overlap ? "true" : "false"},
                                 {"x", extra},
                                 {"gb", std::to_string(8 * dp)}});
  return parse_scenario(ParamReader::from_text(text, "workload_grad_buckets.cpp"), TRAINSIM_SOURCE_DIR);
}

// Pipeline rank r's data-parallel task's buffer (the exposed reduction or gather); none: -1 bytes.
GradBucket dp_task_buffer(const StepProgram& program, int64_t r) {
  GradBucket dp(Bytes(-1));
  for (const auto& u : program.ranks[static_cast<size_t>(r)]) {
    const Task& t = program.tasks[static_cast<size_t>(u.task)];
    if (t.kind == TaskKind::DP_REDUCE) dp = t.dp_bytes;
  }
  return dp;
}
double dp_task_bytes(const StepProgram& program, int64_t r) { return dp_task_buffer(program, r).total(); }

// The bytes of a chunk's only bucket; -1 when it has another count.
double one_bucket(const std::vector<GradBucket>& b) { return b.size() == 1 ? b[0].total() : -1.0; }

}  // namespace

TEST_CASE("Megatron's buckets: max(40e6, 1e6 x dp) parameters on the first chunk, a bucket per other chunk",
          "[workload]") {
  for (int64_t dp : {16, 128}) {
    INFO("dp " << dp);
    const Scenario s = gpt3(dp, 1, true);
    const StageLayout layout = make_stage_layout(s.model, s.plan, 2, s.file);
    // The first chunk holds the word embedding, its vocabulary padded to a multiple of 128 x tp
    // (50,257 -> 51,200) and split over tp, and the learned positions (2,048 x 12,288); the last
    // the final LayerNorm (2 x 12,288) and the output layer's copy of the embedding (pp > 1).
    const double h = 12288;
    const double layer = s.model.layer_params() / 8, embedding = 51200 * h / 8 + 2048 * h,
                 output = 51200 * h / 8 + 2 * h;
    const double grad = 4;                          // fp32 gradient buffers (the default)
    const double bucket = dp == 16 ? 40e6 : 128e6;  // max(40e6, 1e6 x dp)
    const double first = 12 * layer + embedding;    // rank 0, chunk 0: 12 layers and the embedding
    const auto b = grad_buckets(s, layout, 0, 0);
    REQUIRE(b.size() == static_cast<size_t>(std::ceil(first / bucket)));
    for (size_t i = 0; i + 1 < b.size(); ++i) CHECK(b[i].total() == Approx(bucket * grad));
    CHECK(b.back().total() == Approx((first - bucket * double(b.size() - 1)) * grad));
    // Rank 0's second chunk, and every chunk of the other ranks: one bucket each.
    CHECK(one_bucket(grad_buckets(s, layout, 0, 1)) == Approx(12 * layer * grad));
    CHECK(one_bucket(grad_buckets(s, layout, 2, 0)) == Approx(12 * layer * grad));
    CHECK(one_bucket(grad_buckets(s, layout, 3, 1)) == Approx((12 * layer + output) * grad));
  }
  // No overlap, no buckets.
  const Scenario off = gpt3(16, 1, false);
  CHECK(grad_buckets(off, make_stage_layout(off.model, off.plan, 2, off.file), 0, 0).empty());
}

TEST_CASE("ZeRO-3 reduces a bucket per layer, 1.5x the gradient bytes, 1.0x kept gathered", "[workload]") {
  // Resharded after forward: gathered for the forward, again for the backward, then reduce-
  // scattered: three half all-reduces, 1.5. Kept gathered (the default under a pipeline): two, 1.0.
  for (const auto& [extra, passes] : {std::pair<std::string, double>{", \"reshard_after_forward\": true", 1.5},
                                      std::pair<std::string, double>{"", 1.0}}) {
    INFO("passes " << passes);
    const Scenario s = gpt3(16, 3, true, extra);
    const StageLayout layout = make_stage_layout(s.model, s.plan, 2, s.file);
    const double layer = s.model.layer_params() / 8 * 4 * passes;
    const auto b = grad_buckets(s, layout, 1, 0);
    REQUIRE(b.size() == 12);
    for (const GradBucket& x : b) CHECK(x.total() == Approx(layer));
    const auto first = grad_buckets(s, layout, 0, 0);
    REQUIRE(first.size() == 12);
    CHECK(first.back().total() == Approx(layer + (51200 * 12288.0 / 8 + 2048 * 12288.0) * 4 * passes));
  }
}

TEST_CASE("a bucket is ready when the backward has passed its share of the parameters", "[workload]") {
  Task t;
  t.dp_buckets = {Bytes(300), Bytes(100)};
  auto ready = bucket_ready(t);
  REQUIRE(ready.size() == 2);
  CHECK(ready[0] == Approx(0.75));
  CHECK(ready[1] == Approx(1.0));
  t.dp_buckets = {Bytes(5), Bytes(5), Bytes(5), Bytes(5)};
  ready = bucket_ready(t);
  REQUIRE(ready.size() == 4);
  for (size_t k = 0; k < 4; ++k) CHECK(ready[k] == Approx(double(k + 1) / 4));
  // Empty buckets (a stage without parameters to sync): ready in equal steps.
  t.dp_buckets = {Bytes(0), Bytes(0)};
  ready = bucket_ready(t);
  CHECK(ready[0] == Approx(0.5));
  CHECK(ready[1] == Approx(1.0));
}

TEST_CASE("an untied output layer's gradients are reduced with the embedding's, on one stage too", "[workload]") {
  // Llama-like, untied, pp 1 on 8 GPUs (dp 8): the only chunk holds both the word embedding and the
  // output layer (vocabulary 128,256, a multiple of 128), the final RMSNorm and 4 layers.
  const std::string text = R"({"kind": "scenario", "name": "untied",
    "model": {"name": "llama-like", "layers": 4, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
              "vocab": 128256, "activation": "swiglu", "norm": "rmsnorm", "tied_embeddings": false},
    "cluster": {"from": "dgx-h100-superpod", "gpus": 8},
    "parallelism": {"tp": 1, "pp": 1, "dp": 8, "overlap_grad_reduce": true},
    "training": {"seq_len": 8192, "global_batch": 8, "micro_batch": 1}})";
  const Scenario s = parse_scenario(ParamReader::from_text(text, "workload_grad_buckets.cpp"), TRAINSIM_SOURCE_DIR);
  const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
  const double h = 4096, expected = 4 * s.model.layer_params() + 2 * 128256 * h + h;
  double sum = 0;
  for (const GradBucket& b : grad_buckets(s, layout, 0, 0)) sum += b.total();
  CHECK(sum == Approx(expected * 4));  // fp32 gradient buffers
}

TEST_CASE("the distributed optimizer's parameter gather: in each chunk's first forward, or exposed after the step",
          "[workload]") {
  // GPT-3 175B, ZeRO-1, overlapped gradient buckets, fp32 gradients (g = 4): the buckets carry a
  // reduce-scatter of g per parameter. With the gather overlapped (the default) the bf16 parameters
  // (2 bytes per parameter) are gathered a layer at a time: the step's first forward waits for its
  // first layer's and launches the rest of the first chunk's and the next chunk's; the first forward
  // of the next chunk waits for them (Megatron-LM's interleaved schedule, param_sync_func). Without
  // it the step ends with the gather of them all on every rank.
  auto scenario = [](const char* gather) {
    const std::string text = fill(R"({"kind": "scenario", "name": "gather", "model": "gpt3-175b",
      "cluster": {"from": "dgx-a100-superpod", "gpus": 512},
      "parallelism": {"tp": 8, "pp": 4, "dp": 16, "zero": 1, "virtual_stages": 2, "overlap_grad_reduce": true,
                      "overlap_param_gather": {g}},
      "training": {"seq_len": 2048, "global_batch": 128, "micro_batch": 1}})",
                                  {{"g", gather}});
    return parse_scenario(ParamReader::from_text(text, "workload_grad_buckets.cpp"), TRAINSIM_SOURCE_DIR);
  };
  const Scenario on = scenario("true"), off = scenario("false");
  const StageLayout layout = make_stage_layout(on.model, on.plan, 2, on.file);
  const double layer = on.model.layer_params() / 8;
  CHECK(one_bucket(grad_buckets(on, layout, 2, 0)) == Approx(12 * layer * 4));
  CHECK(grad_buckets(on, layout, 2, 0)[0].kind == CollectiveKind::REDUCE_SCATTER);
  CHECK(one_bucket(grad_buckets(off, layout, 2, 0)) == Approx(12 * layer * 4));
  CHECK(grad_buckets(off, layout, 2, 0)[0].kind == CollectiveKind::REDUCE_SCATTER);
  CHECK_FALSE(on.plan.param_gather_exposed());
  CHECK(on.plan.gathers_params_in_forward());
  CHECK(off.plan.param_gather_exposed());
  CHECK_FALSE(off.plan.gathers_params_in_forward());
  SECTION("overlapped: the chunks' first forwards gather, one chunk ahead") {
    const ComputeModel cm(on.cluster.device, on.training.precision);
    const StepProgram program = build_step_program(on, layout, 1, cm);
    for (int64_t r = 0; r < 4; ++r) {
      INFO("rank " << r);
      CHECK(dp_task_bytes(program, r) == 0);
      double gathered = 0;
      int firsts = 0, launching = 0;
      bool seen[2] = {false, false};
      for (const auto& u : program.ranks[static_cast<size_t>(r)]) {
        const Task& t = program.tasks[static_cast<size_t>(u.task)];
        for (const GradBucket& b : t.dp_gathers) {
          CHECK(b.kind == CollectiveKind::ALL_GATHER);
          gathered += b.total();
        }
        launching += t.dp_gathers.empty() ? 0 : 1;
        if (t.kind != TaskKind::FORWARD || seen[t.chunk]) {
          CHECK_FALSE(t.dp_awaited);
          continue;
        }
        seen[t.chunk] = true;
        ++firsts;
        REQUIRE(t.dp_awaited);
        CHECK(t.dp_sync == false);
        // Chunk 0 awaits its first layer's gather and launches its other 11 layers' and chunk 1's
        // 12 behind it; chunk 1 waits for those. A chunk's first layer holds no embedding (it
        // joins the chunk's last unit).
        if (t.chunk == 0) {
          CHECK(*t.dp_awaited == 1);
          REQUIRE(t.dp_gathers.size() == 24);
          CHECK(t.dp_gathers.front().total() == Approx(layer * 2.0));
          double own = 0, next = 0;
          for (size_t g = 0; g < 12; ++g) own += t.dp_gathers[g].total();
          for (size_t g = 12; g < 24; ++g) next += t.dp_gathers[g].total();
          CHECK(own == Approx(chunk_params(on, layout, r, 0) * 2.0));
          CHECK(next == Approx(chunk_params(on, layout, r, 1) * 2.0));
        } else {
          CHECK(*t.dp_awaited == 0);
          CHECK(t.dp_gathers.empty());
        }
      }
      CHECK(firsts == 2);
      CHECK(launching == 1);
      CHECK(gathered == Approx(rank_params(on, layout, r) * 2.0));
    }
  }
  // The exposed gather is the rank's data-parallel task: 2 bytes per parameter it holds.
  const ComputeModel cm(off.cluster.device, off.training.precision);
  const StepProgram program = build_step_program(off, layout, 1, cm);
  for (int64_t r = 0; r < 4; ++r) {
    CHECK(dp_task_bytes(program, r) == Approx(rank_params(off, layout, r) * 2.0));
    CHECK(dp_task_buffer(program, r).kind == CollectiveKind::ALL_GATHER);
  }
}

TEST_CASE("with the primary weights in FP8 the exposed gather moves the linear layers' in 1 byte", "[workload]") {
  // The same plan on H100s in FP8: with fp8_params the distributed optimizer gathers the linear
  // layers' weights in FP8 (1 byte per parameter) and the rest -- norms, biases, embeddings -- in
  // bf16 (2); without it every parameter in bf16.
  auto scenario = [](const char* fp8_params) {
    const std::string text = fill(R"({"kind": "scenario", "name": "gather", "model": "gpt3-175b",
      "cluster": {"from": "dgx-h100-superpod", "gpus": 512},
      "parallelism": {"tp": 8, "pp": 4, "dp": 16, "zero": 1, "virtual_stages": 2, "overlap_grad_reduce": true,
                      "overlap_param_gather": false},
      "training": {"seq_len": 2048, "global_batch": 128, "micro_batch": 1, "precision": "fp8", "fp8_params": {f}}})",
                                  {{"f", fp8_params}});
    return parse_scenario(ParamReader::from_text(text, "workload_grad_buckets.cpp"), TRAINSIM_SOURCE_DIR);
  };
  for (const char* fp8_params : {"false", "true"}) {
    INFO("fp8_params " << fp8_params);
    const Scenario s = scenario(fp8_params);
    const StageLayout layout = make_stage_layout(s.model, s.plan, 2, s.file);
    const ComputeModel cm(s.cluster.device, s.training.precision);
    const StepProgram program = build_step_program(s, layout, 1, cm);
    for (int64_t r = 0; r < 4; ++r) {
      const double dp = dp_task_bytes(program, r);
      const double params = rank_params(s, layout, r);
      const double linear = static_cast<double>(layout.layers_on_rank(r)) * s.model.linear_params() / 8;
      CHECK(dp == Approx(std::string(fp8_params) == "true" ? (params - linear) * 2.0 + linear * 1.0 : params * 2.0));
    }
  }
}

TEST_CASE("ZeRO-3 without a pipeline: every microbatch gathers each layer twice and reduce-scatters it", "[workload]") {
  // GPT-3 175B on 64 GPUs, tp 8, dp 8, pp 1, fp32 gradient reduction (g = 4): every forward task
  // gathers each of the 96 layers' tp shards in bf16 (2 bytes per parameter), every backward
  // gathers them again (resharded after the forward, FSDP's default without a pipeline) and
  // reduce-scatters their gradients (4 bytes per parameter); the word embedding (51,200 x 12,288,
  // split over tp), the position embedding (2,048 x 12,288) and the final norm (2 x 12,288), both
  // whole on every tp rank, join the last layer's unit; nothing is left for the step's end.
  const std::string text = R"({"kind": "scenario", "name": "fsdp", "model": "gpt3-175b",
    "cluster": {"from": "dgx-a100-superpod", "gpus": 64},
    "parallelism": {"tp": 8, "pp": 1, "dp": 8, "zero": 3, "sequence_parallel": true, "overlap_grad_reduce": true},
    "training": {"seq_len": 2048, "global_batch": 32, "micro_batch": 1}})";
  const Scenario s = parse_scenario(ParamReader::from_text(text, "workload_grad_buckets.cpp"), TRAINSIM_SOURCE_DIR);
  REQUIRE(s.plan.shards_each_microbatch());
  const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
  const ComputeModel cm(s.cluster.device, s.training.precision);
  const StepProgram program = build_step_program(s, layout, 1, cm);
  const double layer = s.model.layer_params() / 8, rest = 51200 * 12288.0 / 8 + 2048 * 12288.0 + 2 * 12288.0;
  const auto check_units = [&](const std::vector<GradBucket>& units, CollectiveKind kind, double per_param,
                               bool last_first) {
    REQUIRE(units.size() == 96);
    for (size_t k = 0; k < units.size(); ++k) {
      const bool joined = last_first ? k == 0 : k + 1 == units.size();
      CHECK(units[k].kind == kind);
      CHECK(units[k].total() == Approx((layer + (joined ? rest : 0.0)) * per_param));
    }
  };
  int64_t forwards = 0, backwards = 0;
  for (const auto& slot : program.ranks[0]) {
    const Task& t = program.tasks[static_cast<size_t>(slot.task)];
    if (t.kind == TaskKind::FORWARD) {
      ++forwards;
      CHECK(t.dp_sync);
      check_units(t.dp_gathers, CollectiveKind::ALL_GATHER, 2.0, false);
      CHECK(t.dp_buckets.empty());
    } else if (t.kind == TaskKind::BACKWARD) {
      ++backwards;
      CHECK(t.dp_sync);
      check_units(t.dp_gathers, CollectiveKind::ALL_GATHER, 2.0, true);  // in the backward's order
      check_units(t.dp_buckets, CollectiveKind::REDUCE_SCATTER, 4.0, true);
    }
  }
  CHECK(forwards == 4);  // 32 sequences over dp 8, one a microbatch
  CHECK(backwards == 4);
  CHECK(dp_task_bytes(program, 0) == Approx(0.0));
}
