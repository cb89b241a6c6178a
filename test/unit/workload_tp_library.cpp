// What the library that runs tensor parallelism adds (sim/scenario/tp_library.hpp): PyTorch
// DTensor, as torchtitan uses it, copies the whole tensor once around each sequence-parallel
// collective (funcol's chunk + cat through dim 0: after an all-gather its output, before a
// reduce-scatter its input), Megatron-Core none. The expectations count those tensors here, from
// the layer's structure: per layer and pass two all-gathers and two reduce-scatters of
// micro_batch x seq_len x hidden elements, one of each around the embedding and the output layer.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/ops.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

Scenario llama_tp8(const std::string& library, bool sp, const char* precision = "bf16",
                   const char* recompute = "none") {
  const std::string text = fill(
      R"({"kind": "scenario", "name": "tp-library",
    "model": {"name": "llama-like", "layers": 4, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336,
              "vocab": 128256, "activation": "swiglu", "norm": "rmsnorm"},
    "cluster": {"from": "dgx-h100-superpod", "gpus": 8},
    "parallelism": {"tp": 8, "pp": 1, "dp": 1, "sequence_parallel": {sp}{l}},
    "training": {"seq_len": 8192, "global_batch": 2, "micro_batch": 2, "precision": "{p}", "recompute": "{r}"}})",
      {{"sp", sp ? "true" : "false"},
       {"l", library.empty() ? "" : ", \"tp_library\": \"" + library + "\""},
       {"p", precision},
       {"r", recompute}});
  return parse_scenario(ParamReader::from_text(text, "workload_tp_library.cpp"), TRAINSIM_SOURCE_DIR);
}

double memory_bytes(const std::vector<Op>& ops) {
  double b = 0;
  for (const Op& op : ops)
    if (op.cls == OpClass::MEMORY) b += op.bytes.value;
  return b;
}

constexpr double ELEMENTS = 2.0 * 8192 * 4096;  // micro_batch x seq_len x hidden

}  // namespace

TEST_CASE("tp_library: Megatron-Core is the default and copies nothing", "[workload]") {
  const PassOps given = layer_ops(llama_tp8("megatron", true), 2), plain = layer_ops(llama_tp8("", true), 2);
  CHECK(memory_bytes(given.forward) == memory_bytes(plain.forward));
  CHECK(memory_bytes(given.backward) == memory_bytes(plain.backward));
  for (const Op& op : given.forward) CHECK(op.name.find("_layout") == std::string::npos);
}

TEST_CASE("tp_library: DTensor copies each sequence-parallel tensor once, read and written", "[workload]") {
  const PassOps m = layer_ops(llama_tp8("megatron", true), 2), d = layer_ops(llama_tp8("dtensor", true), 2);
  // Two all-gathers and two reduce-scatters per pass, 2 bytes per element, each copy 2 x that.
  CHECK(memory_bytes(d.forward) - memory_bytes(m.forward) == Approx(4 * 2 * 2.0 * ELEMENTS));
  CHECK(memory_bytes(d.backward) - memory_bytes(m.backward) == Approx(4 * 2 * 2.0 * ELEMENTS));
  // After an all-gather (its output), before a reduce-scatter (its input), named after it.
  for (const auto* pass : {&d.forward, &d.backward})
    for (size_t i = 0; i < pass->size(); ++i) {
      const Op& op = (*pass)[i];
      if (op.cls != OpClass::COLLECTIVE) continue;
      const bool gather = op.collective == CollectiveKind::ALL_GATHER;
      REQUIRE((gather ? i + 1 < pass->size() : i > 0));
      const Op& copy = (*pass)[gather ? i + 1 : i - 1];
      CHECK(copy.name == op.name + "_layout");
      CHECK(copy.cls == OpClass::MEMORY);
      CHECK(copy.bytes.value == Approx(2.0 * op.bytes.value));
    }
  // The embedding's reduce-scatter and the output layer's all-gather, and their backwards.
  const Scenario md = llama_tp8("megatron", true), dd = llama_tp8("dtensor", true);
  for (auto ops : {embedding_ops, output_ops}) {
    const PassOps a = ops(md, 2), b = ops(dd, 2);
    CHECK(memory_bytes(b.forward) - memory_bytes(a.forward) == Approx(2 * 2.0 * ELEMENTS));
    CHECK(memory_bytes(b.backward) - memory_bytes(a.backward) == Approx(2 * 2.0 * ELEMENTS));
  }
}

TEST_CASE("tp_library: FP8 gathers copy 1-byte tensors", "[workload]") {
  // Transformer Engine's FP8 all-gathers carry 1 byte per element (ops.cpp, tp_in): their copies
  // too; the reduce-scatters stay 16-bit.
  const PassOps m = layer_ops(llama_tp8("megatron", true, "fp8"), 2),
                d = layer_ops(llama_tp8("dtensor", true, "fp8"), 2);
  CHECK(memory_bytes(d.forward) - memory_bytes(m.forward) == Approx(2 * 2 * 1.0 * ELEMENTS + 2 * 2 * 2.0 * ELEMENTS));
}

TEST_CASE("tp_library: without sequence parallelism the all-reduces copy nothing", "[workload]") {
  const PassOps m = layer_ops(llama_tp8("megatron", false), 2), d = layer_ops(llama_tp8("dtensor", false), 2);
  CHECK(memory_bytes(d.forward) == memory_bytes(m.forward));
  CHECK(memory_bytes(d.backward) == memory_bytes(m.backward));
}

TEST_CASE("tp_library: per-op checkpointing runs the forward's copies again", "[workload]") {
  // torchtitan's per-op policy keeps the matmuls', SDPA's and the reduce-scatters' outputs; the
  // copies (aten.cat) are not among them (ops.hpp, "Recompute OP").
  const PassOps m = layer_ops(llama_tp8("megatron", true, "bf16", "op"), 2);
  const PassOps d = layer_ops(llama_tp8("dtensor", true, "bf16", "op"), 2);
  CHECK(memory_bytes(d.recompute) - memory_bytes(m.recompute) == Approx(4 * 2 * 2.0 * ELEMENTS));
}
