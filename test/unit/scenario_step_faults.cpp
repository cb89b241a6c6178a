// The `step_faults` section (sim/scenario/step_faults.hpp): defaults, units, indices and the
// variants the run layer simulates. Rejections with their JSON paths are in test/cli/bad_inputs.sh.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "test/unit/input_error_of.hpp"

using namespace sim;
using Catch::Matchers::Contains;

namespace {

// 16 A100s on two DGX nodes (8 NICs each: NICs 0..15).
Scenario with_faults(const std::string& step_faults) {
  const std::string text = R"({"name": "f", "model": "gpt-1.7b",
    "cluster": {"from": "dgx-a100-superpod", "gpus": 16},
    "parallelism": {"tp": 2, "pp": 2, "dp": 4},
    "training": {"seq_len": 2048, "global_batch": 32, "micro_batch": 1, "recompute": "full", "precision": "bf16"})" +
                           (step_faults.empty() ? std::string() : ", \"step_faults\": " + step_faults) + "}";
  return parse_scenario(ParamReader::from_text(text, "f.json"), TRAINSIM_SOURCE_DIR);
}

}  // namespace

TEST_CASE("step_faults: absent means none, and the NCCL timeout defaults to PyTorch's 10 minutes", "[scenario]") {
  CHECK(with_faults("").step_faults.empty());
  const Scenario s = with_faults(R"({"events": [{"kind": "slow", "gpu": 3, "factor": 2}]})");
  CHECK(s.step_faults.nccl_timeout.value == 600.0);  // torch.distributed default_pg_timeout
  CHECK_FALSE(s.step_faults.failure().has_value());
  CHECK(s.step_faults.has_slow());
}

TEST_CASE("step_faults: events keep their component, factor and time in file order", "[scenario]") {
  const Scenario s = with_faults(R"({"nccl_timeout": "2 min", "events": [
      {"kind": "slow", "gpu": 5, "factor": 1.5}, {"kind": "slow", "nic": 15, "factor": 4},
      {"kind": "slow", "gpu": 5, "factor": 2}, {"kind": "fail", "gpu": 0, "at": "0 s"}]})");
  const StepFaults& f = s.step_faults;
  CHECK(f.nccl_timeout.value == 120.0);
  REQUIRE(f.events.size() == 4);
  CHECK(f.slowdown(FaultTarget::GPU, 5) == 3.0);  // two slow events on one GPU multiply: 1.5 * 2
  CHECK(f.slowdown(FaultTarget::NIC, 15) == 4.0);
  CHECK(f.slowdown(FaultTarget::GPU, 15) == 1.0);  // NIC 15 is not GPU 15
  REQUIRE(f.failure().has_value());
  CHECK(f.failure()->target == FaultTarget::GPU);
  CHECK(f.failure()->at.value == 0.0);
  CHECK(f.slow_only().events.size() == 3);
  CHECK_FALSE(f.slow_only().failure().has_value());
  CHECK(f.healthy().empty());
  CHECK(f.healthy().nccl_timeout.value == 120.0);
}

TEST_CASE("step_faults: a NIC index is bounded by nodes * nics_per_node, a GPU by the cluster", "[scenario]") {
  CHECK_THAT(error_of([] { with_faults(R"({"events": [{"kind": "slow", "nic": 16, "factor": 2}]})"); }),
             Contains("/step_faults/events/0/nic: 16 is out of range (expected a whole number in [0, 15])"));
  CHECK_THAT(error_of([] { with_faults(R"({"events": [{"kind": "fail", "gpu": -1, "at": "1 s"}]})"); }),
             Contains("/step_faults/events/0/gpu: -1 is out of range"));
}
