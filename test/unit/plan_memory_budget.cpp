// The memory verdict (memory_budget.hpp): the usable memory from its sourced parts, the verdict on
// either side of it, and the memory model's measured error recomputed from the published peaks.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/plan/planner.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/memory.hpp"
#include "sim/workload/memory_budget.hpp"
#include "sim/workload/stage_layout.hpp"

using namespace sim;

namespace {

constexpr double MIB = 1024.0 * 1024.0, GIB = 1024.0 * MIB;

// NCCL 2.30.7 (NVIDIA/nccl src/init.cc, src/include/device.h): the LL, LL128 and Simple buffers of
// one connection; 16 channels; a ring gives each GPU one incoming connection per channel.
constexpr double NCCL_PER_COMMUNICATOR = 16 * (8 * 512 * 8 * 16 + 120 * 640 * 8 * 8 + 4 * MIB);
constexpr double CUDA_CONTEXT = 400 * MIB;  // pytorch/pytorch#109888: "around 400MB" with lazy loading

Scenario gpt3_175b(int64_t tp, int64_t pp, int64_t dp) {
  return parse_scenario(ParamReader::from_text(R"({"name": "budget", "model": "gpt3-175b",
    "cluster": {"gpu": "a100-sxm-80gb", "gpus": )" +
                                                   std::to_string(tp * pp * dp) +
                                                   R"(, "gpus_per_node": 8,
                "scale_up": {"kind": "nvswitch", "bandwidth": "300 GB/s"},
                "scale_out": {"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "200 Gb/s"}},
    "parallelism": {"tp": )" + std::to_string(tp) + ", \"pp\": " +
                                                   std::to_string(pp) + ", \"dp\": " + std::to_string(dp) + R"(},
    "training": {"seq_len": 2048, "global_batch": 64, "micro_batch": 1, "recompute": "selective"}})",
                                               "budget.json"),
                        TRAINSIM_SOURCE_DIR);
}

MemoryEstimate estimate(const Scenario& s) {
  return estimate_memory(s, make_stage_layout(s.model, s.plan, s.plan.virtual_stages.value, s.file),
                         s.training.micro_batch.value);
}

}  // namespace

TEST_CASE("usable memory is the HBM less the CUDA context and one NCCL ring per parallel group", "[plan]") {
  // tp 8, pp 8, dp 2: three parallel groups of more than one GPU.
  const Scenario s = gpt3_175b(8, 8, 2);
  const MemoryBudget b = memory_budget(s);
  CHECK(b.capacity.value == 80 * GIB);
  CHECK(b.cuda_context.value == CUDA_CONTEXT);
  CHECK(b.nccl_buffers.value == Approx(3 * NCCL_PER_COMMUNICATOR));
  CHECK(b.usable.value == Approx(80 * GIB - CUDA_CONTEXT - 3 * NCCL_PER_COMMUNICATOR));
  // One GPU: no communicator, the CUDA context alone.
  CHECK(memory_budget(gpt3_175b(1, 1, 1)).nccl_buffers.value == 0);
  // A TPU (XLA runtime): no CUDA, no NCCL.
  Scenario tpu = s;
  tpu.cluster.scale_up.kind = "mesh";
  CHECK(memory_budget(tpu).usable.value == 80 * GIB);
}

TEST_CASE("the verdict compares the reserved peak with the usable memory and says by how much it is over", "[plan]") {
  Scenario s = gpt3_175b(8, 8, 1);
  const MemoryEstimate base = estimate(s);
  const double overhead = CUDA_CONTEXT + 2 * NCCL_PER_COMMUNICATOR;  // tp and pp groups
  SECTION("an HBM that leaves 1 MiB beyond the reserved peak fits") {
    s.cluster.device.hbm_capacity = Bytes(base.reserved.value + overhead + MIB);
    const MemoryEstimate m = estimate(s);
    CHECK(m.fits);
    CHECK(m.over.value == 0);
    CHECK(m.usable.value == Approx(base.reserved.value + MIB));
  }
  SECTION("one that leaves 1 GiB too little is over by that GiB, although the allocated peak fits") {
    s.cluster.device.hbm_capacity = Bytes(base.reserved.value + overhead - GIB);
    const MemoryEstimate m = estimate(s);
    CHECK_FALSE(m.fits);
    CHECK(m.over.value == Approx(GIB));
    CHECK(m.peak < m.usable);  // the transient tensors reserved over 0.85: the allocated peak alone would fit
  }
  CHECK(memory_verdict_text(true, Bytes(0), {0.05, 0.1, 9}) == "fits");
  CHECK(memory_verdict_text(false, Bytes(1.5 * GIB), {0.05, 0.1, 9}) ==
        "over by 1.50 GiB (model error \u00b15.0% mean, 10.0% worst)");
}

TEST_CASE("a plan that fits nowhere runs as its smallest candidate unless over-memory plans are refused", "[plan]") {
  Scenario s = gpt3_175b(8, 1, 1);  // GPT-3 175B on 8 GPUs: 175e9 x 18 B / 8, far over 80 GiB
  s.training.micro_batch.value = 1;
  const ComputeModel cm(s.cluster.device, s.training.precision);
  Scenario run = s;
  const ResolvedPlan p = resolve_plan(run, cm);
  CHECK_FALSE(p.memory.fits);
  CHECK(p.memory.over.value == Approx(p.memory.reserved.value - p.memory.usable.value));
  Scenario strict = s;
  CHECK_THROWS_AS(resolve_plan(strict, cm, {}, {}, OverMemory::REFUSE), InputError);
}

// The constant the reports carry (memory_model_error) is the model's error over the published
// peaks of validation/published-h100.json: torchtitan's logged max-reserved memory per GPU
// (extra.published_peak_memory_gib), against the reserved peak of each row's plan.
TEST_CASE("the memory model's stated error is its error over the H100 table's published peaks", "[plan]") {
  const ParamReader table = ParamReader::load_file(TRAINSIM_SOURCE_DIR "/validation/published-h100.json");
  const ParamReader runs = table.at("runs");
  double sum = 0, worst = 0;
  int rows = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const auto extra = runs[i].find("extra");
    const auto gib = extra ? extra->find("published_peak_memory_gib") : std::nullopt;
    if (!gib) continue;
    Scenario s = parse_scenario(runs[i].at("scenario"), TRAINSIM_SOURCE_DIR);
    const ComputeModel cm(s.cluster.device, s.training.precision);
    const double predicted = resolve_plan(s, cm).memory.reserved.value / GIB;
    const double error = std::fabs(predicted / gib->as_number() - 1);
    INFO(runs[i].string("name") << ": predicted " << predicted << " GiB reserved, published " << gib->as_number()
                                << " GiB: " << 100 * error << "%");
    CHECK(error < 1);  // a sanity bound, so the row is listed in the output below
    sum += error;
    worst = std::max(worst, error);
    ++rows;
  }
  const MemoryModelError stated = memory_model_error();
  INFO("measured: mean " << 100 * sum / rows << "%, worst " << 100 * worst << "% over " << rows << " rows");
  CHECK(stated.rows == rows);
  CHECK(std::fabs(stated.mean - sum / rows) <= 0.0005);  // stated to 0.1 %
  CHECK(std::fabs(stated.worst - worst) <= 0.0005);
}
