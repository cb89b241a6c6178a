// Physics of the closed-form step estimate (estimate.hpp), as invariants over every accepted value:
// more scale-up or scale-out bandwidth, a higher tier efficiency, a higher GEMM efficiency or
// sustained clock never make a step slower. Sampled from 1 GB/s to the reader's bound of 1 PB/s
// (core/quantity_range.hpp, BANDWIDTH) in quarter decades, efficiencies from its floor 0.01 to 1,
// on configs/quickstart.json (TP 4 inside a node, PP 2, DP 2 across two nodes) with micro-batch 2.
// NCCL's choice of algorithm and protocol changes along the way (LL for small buffers on fast
// links); the estimate must stay monotone through every switch. Equal within a relative 1e-12.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "sim/comm/comm_costs.hpp"
#include "sim/core/params.hpp"
#include "sim/cost/compute_model.hpp"
#include "sim/plan/estimate.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/pipeline.hpp"
#include "sim/workload/stage_layout.hpp"

using namespace sim;

namespace {

Scenario quickstart(const std::string& key = "", const std::string& value = "") {
  ParamReader r = ParamReader::load_file(std::string(TRAINSIM_SOURCE_DIR) + "/configs/quickstart.json")
                      .with_value("training.micro_batch", "2");
  if (!key.empty()) r = r.with_value(key, value);
  return parse_scenario(r, TRAINSIM_SOURCE_DIR);
}

double estimate(const Scenario& s) {
  ComputeModel cm(s.cluster.device, s.training.precision);
  const StageLayout layout = make_stage_layout(s.model, s.plan, s.plan.virtual_stages.value, s.file);
  const Pipeline p = build_pipeline(s, layout, s.training.micro_batch.value, cm);
  return estimate_step(s, p, CommCosts(s)).step.value;
}

// x from 10^lo to 10^hi in quarter decades.
std::vector<double> decades(double lo, double hi) {
  std::vector<double> out;
  for (int i = 0; lo + i / 4.0 <= hi; ++i) out.push_back(std::pow(10.0, lo + i / 4.0));
  return out;
}

// The step at each x in increasing order never rises.
void check_never_slower(const std::vector<double>& xs, const std::function<double(double)>& step) {
  double before = step(xs.front());
  for (size_t i = 1; i < xs.size(); ++i) {
    const double now = step(xs[i]);
    INFO("from " << xs[i - 1] << " to " << xs[i] << ": " << before << " s -> " << now << " s");
    CHECK(now <= before * (1 + 1e-12));
    before = now;
  }
}

std::string bandwidth_text(double bytes_per_s) { return "\"" + std::to_string(bytes_per_s) + " B/s\""; }

}  // namespace

TEST_CASE("more NVLink bandwidth never slows the estimate, 1 GB/s to 1 PB/s", "[workload]") {
  check_never_slower(decades(9, 15),
                     [](double b) { return estimate(quickstart("cluster.scale_up.bandwidth", bandwidth_text(b))); });
}

TEST_CASE("more NIC bandwidth never slows the estimate, 1 GB/s to 1 PB/s", "[workload]") {
  check_never_slower(decades(9, 15), [](double b) {
    return estimate(quickstart("cluster.scale_out.nic_bandwidth", bandwidth_text(b)));
  });
}

TEST_CASE("a higher NVLink or network efficiency never slows the estimate, 0.01 to 1", "[workload]") {
  const std::vector<double> fractions = decades(-2, 0);
  check_never_slower(fractions, [](double e) {
    Scenario s = quickstart();
    s.cluster.device.collectives.scale_up_efficiency = e;
    return estimate(s);
  });
  check_never_slower(fractions, [](double e) {
    Scenario s = quickstart();
    s.cluster.device.collectives.scale_out_efficiency = e;
    return estimate(s);
  });
}

TEST_CASE("a higher GEMM efficiency or sustained clock never slows the estimate, 0.01 to 1", "[workload]") {
  const std::vector<double> fractions = decades(-2, 0);
  check_never_slower(fractions, [](double e) {
    Scenario s = quickstart();
    s.cluster.device.gemm.eta_max = e;
    return estimate(s);
  });
  check_never_slower(fractions, [](double e) {
    Scenario s = quickstart();
    s.cluster.device.sustained_compute = e;
    return estimate(s);
  });
}
