// What the cluster decides about a recovery strategy (reliability_cluster.hpp): `rewire` wires a
// spare in through optical circuit switches, so it needs a cluster that has them (a torus whose
// cubes are joined by OCSs, as TPU v4's; or a scale-out OCS). On a fat-tree it is refused at
// /recovery/kind, one line, instead of being simulated as if the switches were there.
#include <catch2/catch.hpp>
#include <string>

#include "sim/scenario/scenario.hpp"
#include "test/unit/input_error_of.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string DATA = TRAINSIM_SOURCE_DIR;
const std::string FAILURES = R"({"kind": "poisson", "per_node_day": 0.01})";

sim::Scenario rewired(const std::string& config, std::vector<std::pair<std::string, std::string>> sets = {}) {
  sets.insert(sets.end(), {{"failures", FAILURES}, {"recovery", R"({"kind": "rewire"})"}});
  return sim::load_scenario(DATA + "/" + config, sets, DATA);
}

}  // namespace

TEST_CASE("scenario: rewire needs optical circuit switches", "[scenario]") {
  const auto msg = error_of([] { rewired("configs/quickstart.json"); });
  CHECK_THAT(msg, StartsWith(DATA + "/configs/quickstart.json: /recovery/kind: 'rewire' wires a spare in through "
                                    "optical circuit switches, and this cluster has none (scale_up nvswitch, "
                                    "scale_out fat-tree)"));
  CHECK_THAT(msg, Contains("(expected a cluster with scale_out.kind \"ocs\" or a torus with scale_up.ocs"));
  // A TPU v4 slice: cubes of 4x4x4 chips joined by OCSs (topologies/tpu-v4-pod.json).
  const auto tpu = rewired("configs/studies/optical/job.json");
  REQUIRE(tpu.reliability);
  CHECK(tpu.reliability->recovery.kind == sim::RecoveryKind::REWIRE);
  // The same torus without its switches cannot rewire.
  CHECK_THAT(error_of([] {
               rewired("configs/studies/optical/job.json", {{"cluster.scale_up.ocs", "false"}});
             }),
             Contains("/recovery/kind: 'rewire' wires a spare in"));
  // Plain spares need no switch.
  CHECK(sim::load_scenario(DATA + "/configs/quickstart.json",
                           {{"failures", FAILURES}, {"recovery", R"({"kind": "spares"})"}}, DATA)
            .reliability);
}
