// The `step_faults` section (sim/scenario/step_faults.hpp): defaults, units, indices and the
// variants the run layer simulates. Rejections with their JSON paths are in test/cli/bad_inputs.sh.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/scenario.hpp"
#include "test/unit/input_error_of.hpp"
#include "test/unit/step_faults_fixture.hpp"

using namespace sim;
using Catch::Matchers::Contains;

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

TEST_CASE("step_faults: stragglers are distinct GPUs drawn from the seed, after the listed events", "[scenario]") {
  // 16 GPUs: fraction 0.2 is ceil(3.2) = 4 stragglers; factors in [1.1, 1.3].
  const Scenario s = with_faults(R"({"events": [{"kind": "slow", "nic": 2, "factor": 3}],
      "stragglers": {"fraction": 0.2, "factor": {"min": 1.1, "max": 1.3}}})");
  const StepFaults& f = s.step_faults;
  REQUIRE(f.events.size() == 5);
  CHECK(f.stragglers == 4);
  CHECK(f.events[0].target == FaultTarget::NIC);  // the listed event first
  for (size_t i = 1; i < 5; ++i) {
    CHECK(f.events[i].kind == StepFaultKind::SLOW);
    CHECK(f.events[i].target == FaultTarget::GPU);
    CHECK(f.events[i].factor >= 1.1);
    CHECK(f.events[i].factor <= 1.3);
    CHECK(f.events[i].index >= 0);
    CHECK(f.events[i].index < 16);
    if (i > 1) CHECK(f.events[i].index > f.events[i - 1].index);  // distinct, in GPU order
  }
  // The same seed draws the same GPUs; a fixed factor is that factor.
  const auto again = with_faults(R"({"stragglers": {"count": 4, "factor": {"min": 1.1, "max": 1.3}}})").step_faults;
  for (size_t i = 0; i < 4; ++i) CHECK(again.events[i].index == f.events[i + 1].index);
  const auto fixed = with_faults(R"({"stragglers": {"count": 16, "factor": 1.25}})").step_faults;
  for (int64_t g = 0; g < 16; ++g) CHECK(fixed.slowdown(FaultTarget::GPU, g) == 1.25);  // every GPU, once each
  // Refusals.
  CHECK_THAT(error_of([] { with_faults(R"({"stragglers": {"count": 2, "fraction": 0.1, "factor": 2}})"); }),
             Contains("gives both count and fraction"));
  CHECK_THAT(error_of([] { with_faults(R"({"stragglers": {"fraction": 0, "factor": 2}})"); }),
             Contains("/step_faults/stragglers/fraction: 0 is out of range"));
  CHECK_THAT(error_of([] { with_faults(R"({"stragglers": {"count": 17, "factor": 2}})"); }),
             Contains("/step_faults/stragglers/count"));
  CHECK_THAT(error_of([] { with_faults(R"({"stragglers": {"count": 2, "factor": {"min": 2, "max": 1.5}}})"); }),
             Contains("/step_faults/stragglers/factor/max: 1.5 is below min 2"));
  CHECK_THAT(error_of([] { with_faults(R"({})"); }), Contains("/step_faults: has neither events nor stragglers"));
}

TEST_CASE("step_faults: slowdowns on one component multiply to at most 10^6, summed without overflow", "[scenario]") {
  // Sixty factors of 10^6, each in range, multiply to 10^360, past double's range: refused at the
  // second, which passes the bound; the message names the component and the product's exponent.
  std::string sixty;
  for (int i = 0; i < 60; ++i) sixty += std::string(i ? ", " : "") + R"({"kind": "slow", "nic": 3, "factor": 1e6})";
  CHECK_THAT(error_of([&] { with_faults("{\"events\": [" + sixty + "]}"); }),
             Contains("f.json: /step_faults/events/1: the slowdowns on nic 3 multiply to 10^12.0, more than 1e+06"));
  // Exactly the bound is allowed, on each component.
  const Scenario s = with_faults(R"({"events": [{"kind": "slow", "nic": 3, "factor": 1000},
      {"kind": "slow", "nic": 3, "factor": 1000}, {"kind": "slow", "gpu": 3, "factor": 1e6}]})");
  CHECK(s.step_faults.slowdown(FaultTarget::NIC, 3) == MAX_SLOWDOWN);
  CHECK(s.step_faults.slowdown(FaultTarget::GPU, 3) == MAX_SLOWDOWN);
  // A drawn straggler on a GPU already slowed to the bound is refused at the stragglers.
  CHECK_THAT(error_of([] {
               with_faults(R"({"events": [{"kind": "slow", "gpu": 0, "factor": 1e6}],
                               "stragglers": {"fraction": 1, "factor": 1.5}})");
             }),
             Contains("/step_faults/stragglers: the slowdowns on gpu 0 multiply to 10^6.2"));
}
