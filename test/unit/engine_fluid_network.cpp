// The engine's fluid network (sim/engine/fluid_network.hpp): CM02's weighted max-min sharing, its
// latency phase and its events, against closed forms worked out here.
#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "sim/engine/fluid_network.hpp"

using namespace sim;

namespace {

struct Net {
  std::vector<int32_t> done;  // groups, in the order they ended
  FluidNetwork net{[this](int32_t g) { done.push_back(g); }};

  // Runs the network's events until nothing is in flight; returns the time of the last.
  double drain() {
    double t = 0;
    for (double next = net.next_event(); next < std::numeric_limits<double>::infinity(); next = net.next_event()) {
      t = next;
      net.advance(t);
    }
    return t;
  }
};

}  // namespace

TEST_CASE("flows that share a link split it and end together after their latency", "[engine]") {
  Net n;
  const double c = 100e9, bytes = 1e9, latency = 2e-6;
  const int32_t link = n.net.add_link(c);
  const int32_t route = n.net.add_route({link}, latency);
  const int32_t g = n.net.new_group();
  n.net.start(0, bytes, route, g);
  n.net.start(0, bytes, route, g);
  n.net.advance(latency);
  CHECK(n.net.rate(0) == Approx(c / 2));
  CHECK(n.net.pending(g) == 2);
  // Each moves its bytes at half the link after the latency.
  CHECK(n.drain() == Approx(latency + 2 * bytes / c).epsilon(1e-12));
  CHECK(n.done == std::vector<int32_t>{g});
}

TEST_CASE("progressive filling gives the bottleneck's flows its fair share and the rest what is left", "[engine]") {
  // Link a (10 GB/s) carries x and y; link b (4 GB/s) carries y and z. Equal weights: b saturates
  // first at 2 GB/s each for y and z; x takes a's remaining 8 GB/s.
  Net n;
  const int32_t a = n.net.add_link(10e9), b = n.net.add_link(4e9);
  const int32_t g = n.net.new_group();
  n.net.start(0, 1e9, n.net.add_route({a}, 1e-6), g);
  n.net.start(0, 1e9, n.net.add_route({a, b}, 1e-6), g);
  n.net.start(0, 1e9, n.net.add_route({b}, 1e-6), g);
  n.net.advance(1e-6);
  CHECK(n.net.rate(0) == Approx(8e9));
  CHECK(n.net.rate(1) == Approx(2e9));
  CHECK(n.net.rate(2) == Approx(2e9));
}

TEST_CASE("a flow's share is weighted by the inverse of its route's latency, as CM02's", "[engine]") {
  // Both start at 0 on one link of capacity c; u pays 1 us, v 3 us. From 1 us u is alone (rate c);
  // from 3 us they share in the ratio 3 : 1 (weights 1/1us : 1/3us): u at 3c/4, v at c/4.
  Net n;
  const double c = 10e9, bytes = 1e6;
  const int32_t link = n.net.add_link(c);
  const int32_t gu = n.net.new_group(), gv = n.net.new_group();
  n.net.start(0, bytes, n.net.add_route({link}, 1e-6), gu);
  n.net.start(0, bytes, n.net.add_route({link}, 3e-6), gv);
  n.net.advance(3e-6);
  CHECK(n.net.rate(0) == Approx(0.75 * c));
  CHECK(n.net.rate(1) == Approx(0.25 * c));
  // u's bytes left at 3 us: bytes - 2 us * c; then at 3c/4 until it ends, when v takes the link.
  const double u_left = bytes - 2e-6 * c;
  const double u_end = 3e-6 + u_left / (0.75 * c);
  const double v_left = bytes - (u_end - 3e-6) * 0.25 * c;
  const double v_end = u_end + v_left / c;
  CHECK(n.drain() == Approx(v_end).epsilon(1e-12));
  CHECK(n.done == std::vector<int32_t>{gu, gv});
}

TEST_CASE("a flow standing for k flows loads its link k times its rate", "[engine]") {
  // One flow with load 3 on a link of capacity c and private links of their own: it is 3 flows
  // sharing c, so it moves at c / 3, and a flow beside it with load 1 gets c / 4.
  Net n;
  const double c = 12e9;
  const int32_t shared = n.net.add_link(c), own = n.net.add_link(100e9);
  const int32_t g = n.net.new_group();
  n.net.start(0, 1e9, n.net.add_route({own, shared}, 1e-6, {1, 3}), g);
  n.net.advance(1e-6);
  CHECK(n.net.rate(0) == Approx(c / 3));
  n.net.start(1e-6, 1e9, n.net.add_route({shared}, 1e-6), g);
  n.net.advance(2e-6);
  CHECK(n.net.rate(0) == Approx(c / 4));
  CHECK(n.net.rate(1) == Approx(c / 4));
}

TEST_CASE("a flow of no bytes ends when its latency is paid", "[engine]") {
  Net n;
  const int32_t g = n.net.new_group();
  n.net.start(0, 0, n.net.add_route({n.net.add_link(1e9)}, 5e-6), g);
  CHECK(n.drain() == Approx(5e-6));
  CHECK(n.done == std::vector<int32_t>{g});
}

namespace {

// A shared link of capacity c split between groups A and B (add_shared_link): A's link a, B's link
// b, each the group's own at weight 1; A's link also stands for a twin of A at weight `twin`.
struct Split {
  Net n;
  int32_t a, b, ga, gb;
  Split(double c, double twin = 0) {
    a = n.net.add_link(c);
    b = n.net.add_link(c);
    const int32_t s = n.net.add_shared_link(c);
    n.net.add_share(s, a, 1, true);
    n.net.add_share(s, b, 1, true);
    if (twin > 0) n.net.add_share(s, a, twin, false);
    ga = n.net.new_group();
    gb = n.net.new_group();
  }
};

}  // namespace

TEST_CASE("groups on a split link share it while both use it and take it whole alone", "[engine]") {
  // One link of 10 GB/s, flows of 10 GB (A) and 30 GB (B) from t = 0: 5 GB/s each until A ends at
  // 2 s, then B alone moves its 20 GB left at 10 GB/s: it ends at 4 s -- as on the unsplit link.
  Split x(10e9);
  x.n.net.start(0, 10e9, x.n.net.add_route({x.a}, 0), x.ga);
  x.n.net.start(0, 30e9, x.n.net.add_route({x.b}, 0), x.gb);
  x.n.net.next_event();  // solves
  CHECK(x.n.net.rate(0) == Approx(5e9));
  CHECK(x.n.drain() == Approx(4.0).epsilon(1e-12));
  CHECK(x.n.done == std::vector<int32_t>{x.ga, x.gb});
}

TEST_CASE("a group arriving on a split link takes its share from then on", "[engine]") {
  // A (10 GB) alone for 0.5 s at 10 GB/s moves 5 GB; B (5 GB) arrives: 5 GB/s each, both end at 1.5 s.
  Split x(10e9);
  x.n.net.start(0, 10e9, x.n.net.add_route({x.a}, 0), x.ga);
  x.n.net.advance(0.5);
  CHECK(x.n.net.rate(0) == Approx(10e9));
  x.n.net.start(0.5, 5e9, x.n.net.add_route({x.b}, 0), x.gb);
  x.n.net.next_event();
  CHECK(x.n.net.rate(0) == Approx(5e9));
  CHECK(x.n.net.rate(1) == Approx(5e9));
  CHECK(x.n.drain() == Approx(1.5).epsilon(1e-12));
}

TEST_CASE("a link standing for a twin's share counts the twin in use whenever it is", "[engine]") {
  // 9 GB/s shared by A, A's twin (not simulated) and B: 3 GB/s each while all are in use. A (3 GB)
  // and its twin end at 1 s; B (6 GB) then has the link alone for its 3 GB left: 1 + 1/3 s. Unsplit,
  // the three flows on one link give the same.
  Split x(9e9, 1);
  x.n.net.start(0, 3e9, x.n.net.add_route({x.a}, 0), x.ga);
  x.n.net.start(0, 6e9, x.n.net.add_route({x.b}, 0), x.gb);
  x.n.net.next_event();
  CHECK(x.n.net.rate(0) == Approx(3e9));
  CHECK(x.n.net.rate(1) == Approx(3e9));
  CHECK(x.n.drain() == Approx(1.0 + 1.0 / 3.0).epsilon(1e-12));
}
