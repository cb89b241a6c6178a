// fold_ring_flows (sim/workload/ring_channels.hpp): which data-parallel ring flows the engine may
// leave out or merge. Only a group of flows alone on its links (one rank, one route) folds: its
// copies merge into one flow, and an isomorphic group (same rank, tier, size and link shape) is
// represented by the first. Anything sharing a link with another group or with other traffic is
// launched as it is, since max-min sharing would give a merged flow another share of that link.
#include <catch2/catch.hpp>
#include <vector>

#include "sim/workload/ring_channels.hpp"

using namespace sim;

namespace {

RingFlowSet::Route route(std::vector<uint64_t> links, int64_t shape = 0, bool mergeable = true) {
  RingFlowSet::Route r;
  r.links = std::move(links);
  r.shape = shape;
  r.mergeable = mergeable;
  return r;
}

}  // namespace

TEST_CASE("isolated copies merge and isomorphic isolated groups are represented once", "[workload]") {
  RingFlowSet set;
  set.routes = {route({1, 2}), route({3, 4})};
  set.flows = {{0, 0, 1}, {0, 1, 1}, {0, 0, 1}, {0, 1, 1}};
  CHECK(fold_ring_flows(set) == std::vector<int64_t>{2, 0, 0, 0});
}

TEST_CASE("flows sharing a link with another group, or with other traffic, are kept as they are", "[workload]") {
  RingFlowSet set;
  set.routes = {route({1, 2}), route({2, 3}), route({4, 5}), route({6, 7})};
  // Two copies on route 0 share link 2 with route 1: merging them would give them 1/2 of it
  // instead of 2/3. Route 2's link 4 is crossed by a pipeline transfer.
  set.flows = {{0, 0, 1}, {0, 0, 1}, {0, 1, 1}, {0, 2, 1}, {0, 3, 1}};
  set.foreign_links = {4};
  CHECK(fold_ring_flows(set) == std::vector<int64_t>{1, 1, 1, 1, 1});
}

TEST_CASE("groups of other ranks, tiers, sizes or shapes are not isomorphic", "[workload]") {
  RingFlowSet set;
  set.routes = {route({1, 2}), route({3, 4}), route({5, 6}), route({7, 8}, 1), route({9, 10}), route({11, 12})};
  set.flows = {{0, 0, 1}, {1, 1, 1}, {0, 2, 3}, {0, 3, 1}, {0, 4, 1}, {0, 4, 1}, {0, 5, 1}};
  // Route 5 is route 0's twin (rank 0, tier 1, one flow, shape 0): left out. Route 4 has two copies.
  CHECK(fold_ring_flows(set) == std::vector<int64_t>{1, 1, 1, 1, 2, 0, 0});
}

TEST_CASE("copies on a route whose per-flow rate bound could bind are launched one by one", "[workload]") {
  RingFlowSet set;
  set.routes = {route({1, 2}, 0, false), route({3, 4}, 0, false)};
  set.flows = {{0, 0, 1}, {0, 0, 1}, {0, 1, 1}, {0, 1, 1}};
  CHECK(fold_ring_flows(set) == std::vector<int64_t>{1, 1, 0, 0});
}
