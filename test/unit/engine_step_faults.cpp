// Faults inside one step (engine.hpp "Faults"): slow GPUs and NICs against closed forms and
// invariants, and a failure's stall and detection times. Each TEST_CASE runs in its own process
// (ctest); the engine forks a child per simulate_step call.
#include <catch2/catch.hpp>
#include <iomanip>
#include <string>

#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/engine/engine.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"
#include "test/unit/text_fill.hpp"

using namespace sim;

namespace {

// GPT 1.7B on DGX A100 nodes (8 GPUs and 8 NICs each), full recompute, micro-batch 1, with the
// given step_faults events (a JSON array; "[]": no step_faults section) and timeout.
Scenario scenario(int64_t tp, int64_t pp, int64_t dp, int64_t global_batch, const std::string& events,
                  const std::string& timeout = "600 s") {
  const std::string faults =
      events == "[]" ? "" : R"(, "step_faults": {"nccl_timeout": "{timeout}", "events": {events}})";
  const std::string text = fill(R"({"kind": "scenario", "name": "faults", "model": "gpt-1.7b",
    "cluster": {"from": "dgx-a100-superpod", "gpus": {gpus}},
    "parallelism": {"tp": {tp}, "pp": {pp}, "dp": {dp}, "overlap_grad_reduce": false},
    "training": {"seq_len": 2048, "global_batch": {B}, "micro_batch": 1, "recompute": "full", "precision": "bf16"})" +
                                    faults + "}",
                                {{"gpus", std::to_string(tp * pp * dp)},
                                 {"tp", std::to_string(tp)},
                                 {"pp", std::to_string(pp)},
                                 {"dp", std::to_string(dp)},
                                 {"B", std::to_string(global_batch)},
                                 {"timeout", timeout},
                                 {"events", events}});
  return parse_scenario(ParamReader::from_text(text, "engine_step_faults.cpp"), TRAINSIM_SOURCE_DIR);
}

Pipeline build(const Scenario& s) {
  ComputeModel cm(s.cluster.device, s.training.precision);
  StageLayout layout = make_stage_layout(s.model, s.plan, s.plan.virtual_stages.value, s.file);
  return build_pipeline(s, layout, s.training.micro_batch.value, cm);
}

Scenario with_events(const Scenario& s, const std::string& events) {
  return scenario(s.plan.tp, s.plan.pp, s.plan.dp, s.training.global_batch, events);
}

std::string slow_gpu(int64_t gpu, double factor) {
  return "[{\"kind\": \"slow\", \"gpu\": " + std::to_string(gpu) + ", \"factor\": " + std::to_string(factor) + "}]";
}

}  // namespace

TEST_CASE("a GPU slowed f-fold on tp 1 pp 1 dp 2 stretches the compute f-fold: step = f*C + D", "[engine]") {
  // One rank class {GPU 0, GPU 1} on one node, no overlap: the step is the forward and backward
  // kernels and the optimizer (C, the sum of the task graph's kernel times), then the gradient
  // all-reduce (D: a ring of two over NVLink, whose time the slow kernels do not change). The
  // slowed member is GPU 1, not the class's representative: the class runs at its slowest
  // member's pace, so step = f*C + D. Tolerance 0.1% (the only other term, NCCL latency, is in D).
  const Scenario healthy = scenario(1, 1, 2, 8, "[]");
  const Pipeline p = build(healthy);
  double C = 0;
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v) C += p.graph[v].compute.value;
  const EngineResult h = simulate_step(healthy, p);
  const double D = h.step.value - C;
  // D itself is the ring all-reduce closed form 2(n-1)/n*S/(B*eff) + NCCL latency (base +
  // 2(n-1) steps) + the two NVLink port latencies (as test engine_step.cpp's intra-node case).
  double S = 0;
  for (size_t v = 0; v < boost::num_vertices(p.graph); ++v)
    if (p.graph[v].kind == TaskKind::DP_REDUCE) S += p.graph[v].dp_bytes.total();
  const auto& k = healthy.cluster.device.collectives;
  const double n = 2, B = healthy.cluster.scale_up.bandwidth.value * k.scale_up_efficiency;
  const double ring = 2 * (n - 1) / n * S / B + k.base_latency.value + 2 * (n - 1) * k.scale_up_step_latency.value +
                      2 * healthy.cluster.scale_up.latency.value;
  INFO(std::setprecision(10) << "C = " << C << " s, D = " << D << " s, ring closed form " << ring << " s");
  REQUIRE(D == Approx(ring).epsilon(0.01));
  REQUIRE(D < 0.2 * C);  // the compute dominates, so a wrong factor cannot hide in D
  for (double f : {1.25, 2.0, 3.5}) {
    const Scenario s = scenario(1, 1, 2, 8, slow_gpu(1, f));
    for (bool full : {false, true}) {
      const EngineResult r = simulate_step(s, p, EngineOptions{full});
      INFO("f = " << f << (full ? " (full fidelity)" : " (folded)") << ": engine " << r.step.value << " s, closed form "
                  << f * C + D << " s");
      CHECK(r.step.value == Approx(f * C + D).epsilon(0.001));
    }
  }
}

TEST_CASE("slowing a GPU or a NIC never makes the step faster and factor 1 is the healthy step exactly", "[engine]") {
  // tp 2, pp 2, dp 4 on two nodes: the pipeline stays inside a node, the data-parallel rings cross
  // the nodes through every GPU's NIC (GPU g uses NIC g).
  const Scenario healthy = scenario(2, 2, 4, 32, "[]");
  const Pipeline p = build(healthy);
  for (bool full : {false, true}) {
    const double base = simulate_step(healthy, p, EngineOptions{full}).step.value;
    for (const char* target : {"gpu", "nic"})
      for (int64_t index : {0, 5, 13})
        for (double f : {1.0, 1.1, 3.0}) {
          const std::string ev = std::string("[{\"kind\": \"slow\", \"") + target + "\": " + std::to_string(index) +
                                 ", \"factor\": " + std::to_string(f) + "}]";
          const double step = simulate_step(with_events(healthy, ev), p, EngineOptions{full}).step.value;
          INFO(std::setprecision(12) << (full ? "full: " : "folded: ") << ev << ": " << step << " s, healthy " << base
                                     << " s");
          if (f == 1.0)
            CHECK(step == base);
          else
            CHECK(step >= base);
        }
  }
}

TEST_CASE("a failure before the step ends stalls it: detected = stalled + timeout and stalled >= failed", "[engine]") {
  // tp 2, pp 2, dp 4 on two nodes (healthy step ~0.6 s). Failed at t: failed_at is t, the job
  // stalls no earlier than t, and the NCCL watchdog fires the timeout after the stall (exact).
  const Scenario healthy = scenario(2, 2, 4, 32, "[]");
  const Pipeline p = build(healthy);
  const double step = simulate_step(healthy, p).step.value;
  for (const char* target : {"gpu", "nic"})
    for (int64_t index : {0, 6, 13})
      for (double t : {0.0, 0.25 * step, 0.9 * step})
        for (bool full : {false, true}) {
          const std::string ev = std::string("[{\"kind\": \"fail\", \"") + target + "\": " + std::to_string(index) +
                                 ", \"at\": \"" + std::to_string(t) + " s\"}]";
          const Scenario s = scenario(2, 2, 4, 32, ev, "90 s");
          const EngineResult r = simulate_step(s, p, EngineOptions{full});
          INFO(std::setprecision(12) << (full ? "full: " : "folded: ") << ev);
          REQUIRE(r.failure.has_value());
          const StepFaultOutcome& o = *r.failure;
          INFO("failed " << o.failed_at.value << " stalled " << o.stalled_at.value << " detected "
                         << o.detected_at.value << " (healthy step " << step << " s)");
          CHECK(o.failed_at.value == s.step_faults.events[0].at.value);
          // Every GPU and every NIC of this plan is needed again after t (the data-parallel rings
          // use every NIC at the end of the step).
          REQUIRE(o.stalled);
          CHECK(o.stalled_at.value >= o.failed_at.value);
          CHECK(o.stalled_at.value <= step);  // nothing waits longer than the healthy step lasts
          CHECK(o.detected_at.value == o.stalled_at.value + 90.0);
        }
}

TEST_CASE("a failure after the step ends has no effect on it", "[engine]") {
  const Scenario healthy = scenario(2, 2, 4, 32, "[]");
  const Pipeline p = build(healthy);
  const EngineResult h = simulate_step(healthy, p);
  for (bool full : {false, true}) {
    const std::string ev =
        "[{\"kind\": \"fail\", \"gpu\": 3, \"at\": \"" + std::to_string(h.step.value * 1.01 + 1e-3) + " s\"}]";
    const EngineResult r = simulate_step(scenario(2, 2, 4, 32, ev), p, EngineOptions{full});
    REQUIRE(r.failure.has_value());
    CHECK_FALSE(r.failure->stalled);
    // The same step up to rounding: with a failure ahead a rank's local work is simulated piece by
    // piece (replay.cpp, wait_for), else summed first.
    CHECK(r.step.value == Approx(h.step.value).epsilon(1e-12));
  }
}

TEST_CASE("a slow NIC of any class member costs folded classes what it costs full fidelity", "[engine]") {
  // tp 8, pp 2 on two DGX nodes: each pipeline transfer crosses from node 0 to node 1, GPU i
  // through NIC i, so folded classes send on the representative's NICs 0 and 8 only. Slowing
  // another member's NIC (5: a sender's, 13: a receiver's) must slow the folded step as much as
  // the full one, where that GPU's transfer really crosses it; within 1%, as folding is elsewhere.
  const Scenario healthy = scenario(8, 2, 1, 16, "[]");
  const Pipeline p = build(healthy);
  const double base = simulate_step(healthy, p).step.value;
  for (int64_t nic : {0, 5, 13}) {
    const Scenario s =
        with_events(healthy, "[{\"kind\": \"slow\", \"nic\": " + std::to_string(nic) + ", \"factor\": 3}]");
    const double folded = simulate_step(s, p, EngineOptions{false}).step.value;
    const double full = simulate_step(s, p, EngineOptions{true}).step.value;
    INFO(std::setprecision(10) << "nic " << nic << ": folded " << folded << " s, full " << full << " s, healthy "
                               << base << " s");
    CHECK(folded > base);
    CHECK(folded == Approx(full).epsilon(0.01));
  }
}
