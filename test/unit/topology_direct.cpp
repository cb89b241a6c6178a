// The direct-connect builder (sim/topology/direct.hpp) and TopoOpt's stride rings
// (sim/scenario/circuits.hpp) against what they are written to be: strides coprime with the
// node count, a ring's circuits two ports per node, routes over the fewest circuits (the hop
// counts written here from the strides: the fewest steps of +-s that reach the distance), parallel
// circuits as one link of their summed bandwidth, and the cost of its ports.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <numeric>
#include <string>
#include <utility>

#include "sim/core/params.hpp"
#include "sim/scenario/circuits.hpp"
#include "sim/scenario/cluster.hpp"
#include "sim/topology/direct.hpp"
#include "sim/topology/network_cost.hpp"
#include "sim/topology/nvswitch.hpp"

using namespace sim;

namespace {

constexpr double B = 25e9;  // 200 Gb/s per port

// n nodes of 4 GPUs and 4 NICs whose circuits are the rings of `strides`.
Network direct(int64_t n, const std::vector<int64_t>& strides) {
  Network net;
  build_nvswitch(net, {n * 4, 4, BytesPerSecond(300e9), Seconds(0)});
  build_direct(net, {n, 4, 4, BytesPerSecond(B), Seconds(1e-6), stride_circuits(n, strides)});
  return net;
}

// The fewest circuits from node 0 to node d of a ring of n nodes with `strides`: the least
// sum |a_i| with sum a_i s_i = d mod n, searched over |a_i| <= n.
int64_t fewest_hops(int64_t n, const std::vector<int64_t>& strides, int64_t d) {
  int64_t best = n;
  const int64_t s0 = strides[0], s1 = strides.size() > 1 ? strides[1] : 0;
  for (int64_t a = -n; a <= n; ++a)
    for (int64_t b = s1 ? -n : 0; b <= (s1 ? n : 0); ++b)
      if ((((a * s0 + b * s1) % n) + n) % n == d) best = std::min(best, std::abs(a) + std::abs(b));
  return best;
}

}  // namespace

TEST_CASE("TotientPerms strides: coprime with the nodes, at most half of them, repeated when too few", "[topology]") {
  for (int64_t m : {2, 5, 8, 12, 16, 64, 100})
    for (int64_t k : {1, 2, 3, 4}) {
      INFO(k << " strides over " << m << " nodes");
      const auto s = totient_strides(m, k);
      REQUIRE(static_cast<int64_t>(s.size()) == k);
      int64_t coprime = 0;  // strides 1 .. m/2 coprime with m
      for (int64_t x = 1; x <= m / 2; ++x) coprime += std::gcd(x, m) == 1;
      const auto distinct = std::min(coprime, k);  // the first ones differ; the rest repeat them
      for (size_t i = 0; i < s.size(); ++i) {
        CHECK(std::gcd(s[i], m) == 1);
        CHECK(s[i] <= m / 2);
        if (static_cast<int64_t>(i) < distinct) CHECK(std::count(s.begin(), s.begin() + distinct, s[i]) == 1);
      }
      CHECK(s.front() == 1);  // the first is m^0
    }
  CHECK(totient_strides(6, 3) == std::vector<int64_t>{1, 1, 1});  // 5 is 1 backwards: one ring only
  CHECK(totient_strides(1, 2).empty());
}

TEST_CASE("direct-connect: a stride ring takes two ports of each node, routes take the fewest circuits", "[topology]") {
  for (const std::vector<int64_t>& strides : {std::vector<int64_t>{1}, {1, 3}, {2, 3}}) {
    const int64_t n = 8;
    const Network net = direct(n, strides);
    INFO(strides.size() << " strides, the first " << strides[0]);
    for (int64_t used : ports_used(n, stride_circuits(n, strides))) CHECK(used == 2 * int64_t(strides.size()));
    CHECK(net.count(VertexKind::SWITCH, 1) == 2 * n);  // a node's NVSwitch and its router
    std::vector<TorusHop> route;
    for (int64_t a = 0; a < n; ++a)
      for (int64_t b = 0; b < n; ++b) {
        direct_route(net, a, b, route);
        CHECK(static_cast<int64_t>(route.size()) == fewest_hops(n, strides, ((b - a) % n + n) % n));
      }
  }
}

TEST_CASE("direct-connect: parallel circuits are one link of their summed bandwidth", "[topology]") {
  // Two nodes, two strides of 1: four circuits between them (each ring's two), 4 B each way; a
  // node's GPUs reach it through their NICs' 4 ports of B.
  const Network net = direct(2, {1, 1});
  const auto ring = [&](int64_t first) {
    std::vector<int64_t> g(4);
    std::iota(g.begin(), g.end(), first);
    for (auto& v : g) v = net.gpu[static_cast<size_t>(v)];
    return g;
  };
  CHECK(net.max_flow(ring(0), ring(4)).value == Approx(4 * B));
  std::vector<TorusHop> route;
  direct_route(net, 0, 1, route);
  REQUIRE(route.size() == 1);
  CHECK(net.links()[static_cast<size_t>(route[0].link)].bandwidth.value == Approx(4 * B));
}

TEST_CASE("direct-connect: each NIC port is a transceiver and a circuit-switch port, no electrical port",
          "[topology]") {
  const Network net = direct(8, {1, 3});
  CostTable costs;
  costs.port_bandwidth = BytesPerSecond(B);
  costs.switch_port = {1000, 10};
  costs.transceiver = {100, 1};
  costs.ocs_port = {500, 0.1};
  const NetworkCost c = network_cost(net, costs);
  CHECK(c.switch_ports == 0);
  CHECK(c.transceivers == Approx(8 * 4));
  CHECK(c.ocs_ports == Approx(8 * 4));
  CHECK(c.usd == Approx(8 * 4 * (100 + 500)));
}

TEST_CASE("direct-connect: a node with more circuits than ports, or a circuit to itself, is refused", "[topology]") {
  Network net;
  build_nvswitch(net, {8, 4, BytesPerSecond(300e9), Seconds(0)});
  CHECK_THROWS_AS(build_direct(net, {2, 4, 4, BytesPerSecond(B), Seconds(0), stride_circuits(2, {1, 1, 1})}),
                  std::invalid_argument);
  Network self;
  build_nvswitch(self, {8, 4, BytesPerSecond(300e9), Seconds(0)});
  CHECK_THROWS_AS(build_direct(self, {2, 4, 4, BytesPerSecond(B), Seconds(0), {{0, 0}}}), std::invalid_argument);
}

TEST_CASE("direct-connect circuits follow the cluster to fewer nodes: the strides that still join them all",
          "[topology]") {
  // 8 nodes of 4 GPUs, the user's stride 3. On 7 nodes 3 is still coprime: its ring stays. On 6
  // nodes it would split them into 3 rings of 2: TotientPerms' stride 1 replaces it (as many
  // strides, so as many ports). Every node reaches every other either way.
  const std::string text = R"({"gpu": "a100-sxm-80gb", "gpus": 32, "gpus_per_node": 4,
    "scale_up": {"kind": "nvswitch", "bandwidth": "300 GB/s"},
    "scale_out": {"kind": "direct", "nics_per_node": 4, "nic_bandwidth": "200 Gb/s", "strides": [3]}})";
  ClusterSpec c = ClusterSpec::parse(ParamReader::from_text(text, "test"), TRAINSIM_SOURCE_DIR);
  CHECK(c.scale_out.ring_strides == std::vector<int64_t>{3});
  for (const auto& [nodes, strides] : {std::pair<int64_t, std::vector<int64_t>>{7, {3}}, {6, {1}}, {2, {1}}}) {
    INFO(nodes << " nodes");
    c.gpus = 4 * nodes;
    c.reset_circuits();
    CHECK(c.scale_out.ring_strides == strides);
    Network net;
    build_nvswitch(net, {c.gpus, 4, BytesPerSecond(300e9), Seconds(0)});
    build_direct(net, {nodes, 4, 4, BytesPerSecond(B), Seconds(0), c.scale_out.circuits});
    std::vector<TorusHop> route;
    for (int64_t a = 0; a < nodes; ++a)
      for (int64_t b = 0; b < nodes; ++b) CHECK_NOTHROW(direct_route(net, a, b, route));
  }
}
