// The bounds of `step_faults` (step_faults.hpp) that keep it meaning something:
//  - a straggler fraction is of the cluster's GPUs: below 1/gpus (one GPU) it would draw none, so
//    1e-11 or 1e-320 of 16 GPUs is refused rather than read as "no stragglers";
//  - slow events on one component multiply: the worst component's product bounds the step.
#include <catch2/catch.hpp>
#include <string>

#include "sim/scenario/scenario.hpp"
#include "test/unit/input_error_of.hpp"
#include "test/unit/step_faults_fixture.hpp"

using Catch::Matchers::Contains;

namespace {

std::string fraction_refusal(const std::string& fraction) {
  return error_of([&] { with_faults(R"({"stragglers": {"fraction": )" + fraction + R"(, "factor": 2}})"); });
}

}  // namespace

TEST_CASE("step_faults: a straggler fraction of less than one GPU is refused", "[scenario]") {
  CHECK(fraction_refusal("1e-11") ==
        "f.json: /step_faults/stragglers/fraction: 1e-11 of 16 GPUs is less than one GPU (expected a fraction of at "
        "least 1/gpus = 0.0625, one GPU)");
  CHECK_THAT(fraction_refusal("1e-320"), Contains("of 16 GPUs is less than one GPU"));
  CHECK_THAT(fraction_refusal("0.06"), Contains("0.06 of 16 GPUs is less than one GPU"));
  CHECK(with_faults(R"({"stragglers": {"fraction": 0.0625, "factor": 2}})").step_faults.stragglers == 1);
}

TEST_CASE("step_faults: the worst slowdown is the largest product on one component", "[scenario]") {
  // Stacked products past 1e6 are refused (scenario_step_faults.cpp); within it they multiply.
  const auto s = with_faults(R"({"events": [{"kind": "slow", "gpu": 0, "factor": 1e3}, {"kind": "slow", "gpu": 0,
    "factor": 1e3}, {"kind": "slow", "nic": 2, "factor": 4}]})");
  CHECK(s.step_faults.slowdown(sim::FaultTarget::GPU, 0) == 1e6);
  CHECK(s.step_faults.worst_slowdown() == 1e6);
  CHECK(with_faults(R"({"events": [{"kind": "fail", "gpu": 1, "at": "1 s"}]})").step_faults.worst_slowdown() == 1);
}
