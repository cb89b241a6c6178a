// The host's launches (sim/cost/host_launch.hpp, task_pricer.cpp): a task's kernels cannot run
// faster than the host launches them, 7 us each from Python in a forward and 1 + 3.3 us each from
// the autograd engine in a backward; CUDA graphs launch a task at once. The expectations count the
// task's kernels from the workload's own op lists and write the bound out.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/ops.hpp"
#include "sim/workload/stage_layout.hpp"
#include "sim/workload/task_pricer.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

// A GPT-2-small-like model on one H100, sequence `seq`, micro-batch 1.
Scenario small(int64_t seq, bool graphs, const char* recompute = "none") {
  const std::string text = fill(R"({"kind": "scenario", "name": "host",
    "model": {"name": "small", "layers": 12, "hidden": 768, "heads": 12, "ffn_hidden": 3072, "vocab": 50257,
              "activation": "gelu"},
    "cluster": {"from": "dgx-h100-superpod", "gpus": 1},
    "parallelism": {"tp": 1, "pp": 1, "dp": 1},
    "training": {"seq_len": {s}, "global_batch": 1, "micro_batch": 1, "precision": "bf16", "attention": "flash",
                 "recompute": "{r}", "cuda_graphs": {g}}})",
                                {{"s", std::to_string(seq)}, {"g", graphs ? "true" : "false"}, {"r", recompute}});
  return parse_scenario(ParamReader::from_text(text, "workload_host_launch.cpp"), TRAINSIM_SOURCE_DIR);
}

struct Priced {
  Task fwd, bwd;
  double fwd_launches = 0, bwd_launches = 0, recompute_launches = 0;
};

// The task's kernels alone.
double kernels(const Task& t) { return t.gemm.value + t.attention.value + t.elementwise.value; }

Priced price(const Scenario& s) {
  const ComputeModel cm(s.cluster.device, s.training.precision);
  const StageLayout layout = make_stage_layout(s.model, s.plan, 1, s.file);
  TaskPricer pricer(s, layout, 1, cm);
  const PassOps layer = layer_ops(s, 1), emb = embedding_ops(s, 1), out = output_ops(s, 1);
  const double layers = static_cast<double>(s.model.layers);
  Priced p;
  p.fwd = pricer.task(0, 0, TaskKind::FORWARD);
  p.bwd = pricer.task(0, 0, TaskKind::BACKWARD);
  p.fwd_launches = double(emb.forward.size()) + layers * double(layer.forward.size()) + double(out.forward.size());
  p.bwd_launches = double(emb.backward.size()) + layers * double(layer.backward.size()) + double(out.backward.size());
  p.recompute_launches = layers * double(layer.recompute.size());
  return p;
}

}  // namespace

TEST_CASE("host: a pass of short kernels takes its launches, and the wait is reported apart", "[workload]") {
  // At 64 tokens the forward's kernels are shorter than their launches: it takes 7 us per kernel.
  // Each pass takes the longer of its kernels and its launches (the backward's, 4.3 us each), and
  // what the launches add is reported as the wait.
  const Priced p = price(small(64, false));
  CHECK(p.fwd.host_wait.value > 0);
  CHECK(p.fwd.compute.value == Approx(7e-6 * p.fwd_launches));
  CHECK(p.bwd.compute.value == Approx(std::max(kernels(p.bwd), 4.3e-6 * p.bwd_launches)));
  for (const Task* t : {&p.fwd, &p.bwd}) CHECK(t->compute.value == Approx(kernels(*t) + t->host_wait.value));
  // With CUDA graphs the kernels run back to back: no wait.
  const Priced g = price(small(64, true));
  CHECK(g.fwd.host_wait.value == 0);
  CHECK(g.fwd.compute.value == Approx(g.fwd.gemm.value + g.fwd.attention.value + g.fwd.elementwise.value));
  CHECK(g.fwd.compute.value < p.fwd.compute.value);
}

TEST_CASE("host: long kernels hide their launches", "[workload]") {
  // At 8,192 tokens every kernel outlasts its launch: the host bound does not bind.
  const Priced p = price(small(8192, false));
  CHECK(p.fwd.host_wait.value == 0);
  CHECK(p.bwd.host_wait.value == 0);
  CHECK(p.fwd.compute.value > 7e-6 * p.fwd_launches);
}

TEST_CASE("host: a checkpointed layer's recompute is launched from Python, in the backward", "[workload]") {
  const Priced p = price(small(16, false, "full"));
  REQUIRE(p.recompute_launches > 0);
  CHECK(p.bwd.compute.value == Approx(std::max(kernels(p.bwd), 7e-6 * p.recompute_launches + 4.3e-6 * p.bwd_launches)));
  const Priced plain = price(small(16, false));
  CHECK(p.bwd.compute.value > plain.bwd.compute.value);
}
