// fold_ring_flows (sim/comm/ring_channels.hpp): which data-parallel flows the engine may leave
// out or merge. Flows that share links form a component; a component no other traffic touches is a
// closed system: of components that are the same system under a renaming of links (same ranks,
// tiers, route shapes and sharing pattern) the first is simulated, and in it copies merge by a
// count that divides every class's copies. A component touching other traffic is launched as it
// is, and copies never merge by a count that leaves a flow beside a different share of a link.
#include <catch2/catch.hpp>
#include <vector>

#include "sim/comm/ring_channels.hpp"

using namespace sim;

namespace {

RingFlowSet::Route route(std::vector<uint64_t> links, int64_t shape = 0) {
  RingFlowSet::Route r;
  r.links = std::move(links);
  r.shape = shape;
  return r;
}

}  // namespace

TEST_CASE("isolated copies merge and isomorphic isolated groups are represented once", "[comm]") {
  RingFlowSet set;
  set.routes = {route({1, 2}), route({3, 4})};
  set.flows = {{0, 0, 1}, {0, 1, 1}, {0, 0, 1}, {0, 1, 1}};
  CHECK(fold_ring_flows(set) == std::vector<int64_t>{2, 0, 0, 0});
}

TEST_CASE("flows sharing a link with another group, or with other traffic, are kept as they are", "[comm]") {
  RingFlowSet set;
  set.routes = {route({1, 2}), route({2, 3}), route({4, 5}), route({6, 7})};
  // Two copies on route 0 share link 2 with route 1: merging them would give them 1/2 of it
  // instead of 2/3. Route 2's link 4 is crossed by a pipeline transfer.
  set.flows = {{0, 0, 1}, {0, 0, 1}, {0, 1, 1}, {0, 2, 1}, {0, 3, 1}};
  set.foreign_routes = {{4}};
  CHECK(fold_ring_flows(set) == std::vector<int64_t>{1, 1, 1, 1, 1});
}

TEST_CASE("groups of other ranks, tiers, sizes or shapes are not isomorphic", "[comm]") {
  RingFlowSet set;
  set.routes = {route({1, 2}), route({3, 4}), route({5, 6}), route({7, 8}, 1), route({9, 10}), route({11, 12})};
  set.flows = {{0, 0, 1}, {1, 1, 1}, {0, 2, 3}, {0, 3, 1}, {0, 4, 1}, {0, 4, 1}, {0, 5, 1}};
  // Route 5 is route 0's twin (rank 0, tier 1, one flow, shape 0): left out. Route 4 has two copies.
  CHECK(fold_ring_flows(set) == std::vector<int64_t>{1, 1, 1, 1, 2, 0, 0});
}

TEST_CASE("components of flows sharing links: twins are simulated once, others kept", "[comm]") {
  // Two trees' worth of flows, each on its own links: A (routes 0, 1 sharing link 2) and B
  // (routes 2, 3 sharing link 6) have the same pattern -- B is A with links 1..3 renamed 5..7 --
  // so B is left out. Routes 4 and 5 have A's routes' shapes but share no link: two components
  // of one route each, not A's twin, and twins of each other (route 5 is left out).
  RingFlowSet set;
  set.routes = {route({1, 2}), route({3, 2}), route({5, 6}), route({7, 6}), route({9, 10}), route({11, 12})};
  set.flows = {{0, 0, 1}, {0, 1, 1}, {0, 2, 1}, {0, 3, 1}, {0, 4, 1}, {0, 5, 1}};
  CHECK(fold_ring_flows(set) == std::vector<int64_t>{1, 1, 0, 0, 1, 0});
}

TEST_CASE("a component sharing a link the other way round is not a twin", "[comm]") {
  // A: route 0 {1, 2}, route 1 {3, 2} (they meet on their second link). B: route 2 {5, 6}, route 3
  // {6, 7} (the second route's first link is the first route's second): another system.
  RingFlowSet set;
  set.routes = {route({1, 2}), route({3, 2}), route({5, 6}), route({6, 7})};
  set.flows = {{0, 0, 1}, {0, 1, 1}, {0, 2, 1}, {0, 3, 1}};
  CHECK(fold_ring_flows(set) == std::vector<int64_t>{1, 1, 1, 1});
}

TEST_CASE("copies in a component merge by the count that divides every class's", "[comm]") {
  // Routes 0 and 1 share link 2; route 0 carries 4 copies, route 1 carries 2: every class is
  // replicated twice, so pairs merge (4 -> 2 flows of 2, 2 -> 1 flow of 2). Routes 2 and 3 share
  // link 6 with 2 and 1 copies: nothing divides both but 1, so all three are launched.
  RingFlowSet set;
  set.routes = {route({1, 2}), route({3, 2}), route({5, 6}), route({7, 6})};
  set.flows = {{0, 0, 1}, {0, 0, 1}, {0, 1, 1}, {0, 0, 1}, {0, 0, 1}, {0, 1, 1}, {0, 2, 1}, {0, 2, 1}, {0, 3, 1}};
  CHECK(fold_ring_flows(set) == std::vector<int64_t>{2, 0, 2, 2, 0, 0, 1, 1, 1});
}

TEST_CASE("a component touching other traffic is launched whole, however far the touch", "[comm]") {
  // Routes 0, 1, 2 chain through links 2 and 4; a pipeline transfer crosses link 5 (route 2's):
  // the whole chain is kept, copies and all. Routes 3, 4 are the chain's first two routes' twin
  // pattern, but the chain is not clean, so they are their own representative.
  RingFlowSet set;
  set.routes = {route({1, 2}), route({2, 4}), route({4, 5}), route({11, 12}), route({12, 14})};
  set.flows = {{0, 0, 1}, {0, 0, 1}, {0, 1, 1}, {0, 2, 1}, {0, 3, 1}, {0, 4, 1}};
  set.foreign_routes = {{5}};
  CHECK(fold_ring_flows(set) == std::vector<int64_t>{1, 1, 1, 1, 1, 1});
}

TEST_CASE("the components it reports: flows joined by shared links, directly or through others", "[comm]") {
  // Routes 0 and 1 share link 2, routes 1 and 2 share link 3 (so 0 and 2 are one component through
  // route 1); route 3 shares nothing. Every flow of a route is in its route's component.
  RingFlowSet set;
  set.routes = {route({1, 2}), route({2, 3}), route({3, 4}), route({5, 6})};
  set.flows = {{0, 0, 1}, {0, 1, 1}, {0, 2, 1}, {0, 3, 1}, {0, 0, 1}};
  std::vector<int64_t> component;
  fold_ring_flows(set, &component);
  REQUIRE(component.size() == set.flows.size());
  CHECK(component[0] == component[1]);
  CHECK(component[1] == component[2]);
  CHECK(component[4] == component[0]);
  CHECK(component[3] != component[0]);
}
