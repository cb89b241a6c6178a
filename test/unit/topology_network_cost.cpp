// The network's parts (sim/topology/network_cost.hpp) counted against closed forms: a
// fat-tree of n NICs at the cost table's port rate has n NIC ports plus, at full bisection, every
// leaf's uplink as wide as its NICs (2n more ports), 4n transceivers; above oversubscribed pods each
// pod's uplink adds 2 x its NICs / ratio ports and as many transceivers; an optical circuit switch
// has one port and one transceiver per NIC and no electrical port; a torus's links between its
// cubes are optical (2 transceivers, and 2 OCS ports through a switch). Copper (NVSwitch, a torus's
// links inside a cube) is not counted. Prices are the table's, summed.
#include <catch2/catch.hpp>
#include <string>

#include "sim/core/params.hpp"
#include "sim/scenario/cluster.hpp"
#include "sim/scenario/costs.hpp"
#include "sim/topology/builders.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/network_cost.hpp"

using namespace sim;

namespace {

CostTable table() {
  CostTable c;
  c.port_bandwidth = BytesPerSecond(50e9);  // 400 Gb/s
  c.switch_port = {600, 12};
  c.transceiver = {900, 9};
  c.ocs_port = {500, 0.5};
  return c;
}

// `nodes` DGX A100-like nodes of 8 GPUs and 8 NICs of `nic` on the scale-out `out` (a JSON object).
NetworkCost cost_of(int64_t nodes, const std::string& out, const std::string& up = "") {
  const std::string scale_up =
      up.empty() ? std::string(R"({"kind": "nvswitch", "bandwidth": "300 GB/s"})") : std::string(up);
  const std::string text = R"({"gpu": "a100-sxm-80gb", "gpus": )" + std::to_string(nodes * 8) +
                           R"(, "gpus_per_node": 8, "scale_up": )" + scale_up + R"(, "scale_out": )" + out + "}";
  const ClusterSpec c = ClusterSpec::parse(ParamReader::from_text(text, "network_cost"), TRAINSIM_SOURCE_DIR);
  return network_cost(build_network(c), table());
}

}  // namespace

TEST_CASE("a full-bisection fat-tree has 3 ports and 4 transceivers per NIC", "[topology]") {
  for (int64_t nodes : {2, 32, 64}) {
    const double n = 8.0 * double(nodes);
    const NetworkCost c = cost_of(nodes, R"({"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "400 Gb/s"})");
    INFO(nodes << " nodes");
    CHECK(c.switch_ports == Approx(3 * n));
    CHECK(c.transceivers == Approx(4 * n));
    CHECK(c.ocs_ports == 0);
    CHECK(c.usd == Approx(3 * n * 600 + 4 * n * 900));
    CHECK(c.watts == Approx(3 * n * 12 + 4 * n * 9));
  }
  // NICs of half the port rate count as half ports.
  const NetworkCost half = cost_of(2, R"({"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "200 Gb/s"})");
  CHECK(half.switch_ports == Approx(3 * 16 / 2.0));
}

TEST_CASE("pods oversubscribed r:1 add 2 n / r ports and transceivers above them", "[topology]") {
  // 64 nodes in pods of 32 at 4:1: each pod's uplink carries its 256 NICs' bandwidth / 4.
  const double n = 512;
  const NetworkCost c = cost_of(64, R"({"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "400 Gb/s",
                                        "pod_gpus": 256, "oversubscription": 4})");
  CHECK(c.switch_ports == Approx(3 * n + 2 * n / 4));
  CHECK(c.transceivers == Approx(4 * n + 2 * n / 4));
}

TEST_CASE("an optical circuit switch has a port and a transceiver per NIC, no electrical port", "[topology]") {
  const double n = 8.0 * 16;
  const NetworkCost c =
      cost_of(16, R"({"kind": "ocs", "nics_per_node": 8, "nic_bandwidth": "400 Gb/s", "reconfiguration": "10 ms"})");
  CHECK(c.switch_ports == 0);
  CHECK(c.ocs_ports == Approx(n));
  CHECK(c.transceivers == Approx(n));
  CHECK(c.usd == Approx(n * (500 + 900)));
}

TEST_CASE("a torus's optical links cross its cube faces: 2 transceivers each, and 2 OCS ports through a switch",
          "[topology]") {
  // 16 nodes of 8 = 128 chips in a 4 x 4 x 8 torus of 4 x 4 x 4 cubes at 400 Gb/s per link: each
  // chip has one + link per dimension, 1/4 of them crossing a cube face, so 3/4 optical links per
  // chip (the wrap-around too), 96 links, 192 transceivers; through OCSes, 192 OCS ports. A mesh
  // of the same shape is priced as the static torus it is carved from: the same.
  const std::string fat_tree = R"({"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "400 Gb/s"})";
  const NetworkCost base = cost_of(16, fat_tree);
  const double links = 128 * 3.0 / 4;
  for (const char* kind : {"torus", "mesh"})
    for (bool ocs : {false, true}) {
      const std::string up = std::string(R"({"kind": ")") + kind +
                             R"(", "dims": [4, 4, 8], "cube": [4, 4, 4], "bandwidth": "400 Gb/s", "ocs": )" +
                             (ocs ? "true" : "false") + "}";
      const NetworkCost c = cost_of(16, fat_tree, up);
      INFO(kind << (ocs ? " through OCSes" : " on fibre"));
      CHECK(c.switch_ports == Approx(base.switch_ports));
      CHECK(c.transceivers == Approx(base.transceivers + 2 * links));
      CHECK(c.ocs_ports == Approx(ocs ? 2 * links : 0.0));
      CHECK(c.usd == Approx(base.usd + 2 * links * 900 + (ocs ? 2 * links * 500 : 0.0)));
    }
  // Cubes of 2 x 4 x 4 on the same links at half the rate: 1/2 + 1/4 + 1/4 optical links per chip,
  // each half a port.
  const NetworkCost halves =
      cost_of(16, fat_tree, R"({"kind": "torus", "dims": [4, 4, 8], "cube": [2, 4, 4], "bandwidth": "200 Gb/s"})");
  CHECK(halves.transceivers == Approx(base.transceivers + 2 * 128 * 1.0 * 0.5));
}

TEST_CASE("a torus without cubes is one block of copper: only the scale-out is counted", "[topology]") {
  const NetworkCost torus = cost_of(16, R"({"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "400 Gb/s"})",
                                    R"({"kind": "torus", "dims": [4, 4, 8], "bandwidth": "45 GB/s"})");
  const NetworkCost nvswitch = cost_of(16, R"({"kind": "fat-tree", "nics_per_node": 8, "nic_bandwidth": "400 Gb/s"})");
  CHECK(torus.switch_ports == nvswitch.switch_ports);
  CHECK(torus.transceivers == nvswitch.transceivers);
}

TEST_CASE("the shipped cost table parses and prices every part", "[topology]") {
  const auto costs = load_costs(TRAINSIM_SOURCE_DIR);
  REQUIRE(costs.has_value());
  CHECK(costs->port_bandwidth.value == Approx(50e9));
  for (const PartPrice& p : {costs->switch_port, costs->transceiver, costs->ocs_port}) {
    CHECK(p.usd > 0);
    CHECK(p.watts > 0);
  }
  CHECK_FALSE(load_costs("/nonexistent").has_value());
}

TEST_CASE("the shared fabric of a torus follows its cubes and switches, which its price reads", "[topology]") {
  // Fabric::of keeps the last fabric built; a cluster that differs only in its cubes or its optical
  // switches must not be priced on the other's layout (network_cost reads the layout's shape).
  const auto cluster = [](const std::string& cube, bool ocs) {
    const std::string text = R"({"gpu": "tpu-v4", "gpus": 64, "gpus_per_node": 4,
      "scale_up": {"kind": "torus", "dims": [4, 4, 4], "bandwidth": "45 GB/s", "cube": )" +
                             cube + ", \"ocs\": " + (ocs ? "true" : "false") + R"(},
      "scale_out": {"kind": "fat-tree", "nics_per_node": 1, "nic_bandwidth": "200 Gb/s"}})";
    return ClusterSpec::parse(ParamReader::from_text(text, "test"), TRAINSIM_SOURCE_DIR);
  };
  const auto layout_shape = [&](const ClusterSpec& c) {
    const Network& n = Fabric::of(c)->network();
    REQUIRE(n.tori.size() == 1);
    return n.tori.front().shape;
  };
  const TorusShape big = layout_shape(cluster("[4, 4, 4]", true));
  CHECK(big.cube == std::vector<int64_t>{4, 4, 4});
  CHECK(big.ocs);
  const TorusShape small = layout_shape(cluster("[2, 2, 2]", false));
  CHECK(small.cube == std::vector<int64_t>{2, 2, 2});
  CHECK_FALSE(small.ocs);
}
