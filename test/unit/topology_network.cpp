// The network graph (sim/topology/network.hpp): routes never forward through a GPU and are
// the fewest hops; max_flow is the cheapest cut, checked on hand-drawn graphs.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "sim/topology/network.hpp"

using namespace sim;

TEST_CASE("routes: fewest hops, never through a GPU", "[topology]") {
  //   g0 - s0 - s1 - g1        and a shortcut g0 - g2 - g1 through a GPU, which must not be taken
  Network n;
  const int64_t g0 = n.add_vertex(VertexKind::GPU, 0), g1 = n.add_vertex(VertexKind::GPU, 0);
  const int64_t g2 = n.add_vertex(VertexKind::GPU, 0);
  const int64_t s0 = n.add_vertex(VertexKind::SWITCH, 1), s1 = n.add_vertex(VertexKind::SWITCH, 1);
  const BytesPerSecond bw(1e9);
  const int64_t a = n.add_link(g0, s0, bw, Seconds(0)), b = n.add_link(s0, s1, bw, Seconds(0));
  const int64_t c = n.add_link(s1, g1, bw, Seconds(0));
  n.add_link(g0, g2, bw, Seconds(0));
  n.add_link(g2, g1, bw, Seconds(0));
  CHECK(n.route(g0, g1) == std::vector<int64_t>{a, b, c});
  CHECK(n.route(g0, g0).empty());
  CHECK(n.count(VertexKind::SWITCH, 1) == 2);
  CHECK(n.links_between(0, 1) == 2);
  const int64_t lonely = n.add_vertex(VertexKind::GPU, 0);
  CHECK_THROWS_AS(n.route(g0, lonely), std::logic_error);
}

TEST_CASE("max_flow is the cheapest cut", "[topology]") {
  // Two GPUs under switch s0 (10 each), two under s1 (10 each), s0 - s1 at 15: the cut between the
  // pairs is the 15 link; between one GPU and the other three, its own 10.
  Network n;
  const int64_t s0 = n.add_vertex(VertexKind::SWITCH, 1), s1 = n.add_vertex(VertexKind::SWITCH, 1);
  std::vector<int64_t> g;
  for (int i = 0; i < 4; ++i) {
    g.push_back(n.add_vertex(VertexKind::GPU, 0));
    n.add_link(g.back(), i < 2 ? s0 : s1, BytesPerSecond(10), Seconds(0));
  }
  n.add_link(s0, s1, BytesPerSecond(15), Seconds(0));
  CHECK(n.max_flow({g[0], g[1]}, {g[2], g[3]}).value == Approx(15));
  CHECK(n.max_flow({g[0]}, {g[1], g[2], g[3]}).value == Approx(10));
  CHECK(n.max_flow({g[0], g[1]}, {g[2]}).value == Approx(10));
}
