// split_shared_links and never_saturated (sim/comm/shared_links.hpp): which links of the
// data-parallel flows are split among the groups that share them, with what shares, and which are
// left out as constraining nothing.
#include <catch2/catch.hpp>
#include <vector>

#include "sim/comm/shared_links.hpp"
#include "test/unit/ring_flow_set.hpp"

using namespace sim;
using ring_flow_set::route;
using ring_flow_set::up;

namespace {

// Flows from their own NICs (links 0-3, 10 GB/s) through one uplink (link 4, `uplink` GB/s) to
// their own NICs (links 5-8): flows 0 and 1 of group 0, flows 2 and 3 of group 1 -- or, with
// `lopsided`, flows 0-2 of group 0 and flow 3 of group 1.
struct Rails {
  RingFlowSet set;
  std::vector<int64_t> group, variant;
  std::vector<double> capacity;
  Rails(double uplink, bool lopsided = false) : capacity(9, 10e9) {
    capacity[4] = uplink;
    for (int64_t i = 0; i < 4; ++i) {
      set.routes.push_back(route({up(i), up(4), up(5 + i)}));
      set.flows.push_back({0, i, 0});
      group.push_back(lopsided ? (i < 3 ? 0 : 1) : i / 2);
      variant.push_back(0);
    }
  }
};

}  // namespace

TEST_CASE("a saturable link two groups cross is split by their flows across it", "[comm]") {
  Rails r(20e9, true);
  r.set.foreign_routes = {{up(0), up(4), up(8)}};  // a pipeline transfer across the uplink keeps it
  const LinkSplit split = split_shared_links(r.set, r.group, r.variant, r.capacity);
  REQUIRE(split.shared.size() == 1);
  const SharedLink& l = split.shared[0];
  CHECK(l.capacity == 20e9);
  REQUIRE(l.shares.size() == 2);
  // Group 0 has 3 of the 4 flows, group 1 one: 15 and 5 GB/s when both are in use.
  CHECK(l.shares[0].second == 3);
  CHECK(l.shares[1].second == 1);
  CHECK(split.capacity.size() == 11);
  CHECK(split.capacity[l.shares[0].first / 2] == Approx(15e9));
  CHECK(split.capacity[l.shares[1].first / 2] == Approx(5e9));
  // Each group's flows cross its own representative; the NICs stay; the foreign route keeps the link.
  for (size_t i = 0; i < 4; ++i) {
    const auto& links = r.set.routes[static_cast<size_t>(r.set.flows[i].route)].links;
    REQUIRE(links.size() == 3);
    CHECK(links[0] == up(static_cast<int64_t>(i)));
    CHECK(links[1] == l.shares[i < 3 ? 0 : 1].first);
    CHECK(links[2] == up(5 + static_cast<int64_t>(i)));
  }
  CHECK(r.set.foreign_routes[0] == std::vector<uint64_t>{up(0), up(4), up(8)});
  // Routes of other capacities have other shapes.
  CHECK(r.set.routes[static_cast<size_t>(r.set.flows[0].route)].shape !=
        r.set.routes[static_cast<size_t>(r.set.flows[3].route)].shape);
}

TEST_CASE("a link one group crosses, a NIC, and a link no allocation saturates are not split", "[comm]") {
  {  // One group: nothing to split.
    Rails r(20e9);
    r.group.assign(4, 0);
    CHECK(split_shared_links(r.set, r.group, r.variant, r.capacity).shared.empty());
    CHECK(r.set.routes[static_cast<size_t>(r.set.flows[0].route)].links[1] == up(4));
  }
  {  // The uplink carries the sum of its 4 NICs (40 GB/s): it never saturates, and is left out.
    Rails r(40e9);
    CHECK(never_saturated(r.set, {0, 1, 2, 3}, r.capacity) == std::unordered_set<uint64_t>{up(4)});
    CHECK(split_shared_links(r.set, r.group, r.variant, r.capacity).shared.empty());
    for (const auto& f : r.set.flows)
      CHECK(r.set.routes[static_cast<size_t>(f.route)].links == std::vector<uint64_t>{up(f.route), up(5 + f.route)});
  }
  {  // At 39 GB/s it can saturate.
    Rails r(39e9);
    CHECK(never_saturated(r.set, {0, 1, 2, 3}, r.capacity).empty());
    CHECK(split_shared_links(r.set, r.group, r.variant, r.capacity).shared.size() == 1);
  }
  {  // Both groups leave through NIC 0 (a first link): the NIC is not split.
    Rails r(20e9);
    r.set.routes[1].links[0] = up(0);
    const LinkSplit split = split_shared_links(r.set, r.group, r.variant, r.capacity);
    REQUIRE(split.shared.size() == 1);  // the uplink only
    CHECK(r.set.routes[static_cast<size_t>(r.set.flows[1].route)].links[0] == up(0));
  }
}

TEST_CASE("a group's share counts the flows of its largest variant, one launch's", "[comm]") {
  // Group 0's flows 0 and 1 are two variants (one launch runs one): its weight is 1, group 1's 2.
  Rails r(20e9);
  r.variant = {0, 1, 0, 0};
  const LinkSplit split = split_shared_links(r.set, r.group, r.variant, r.capacity);
  REQUIRE(split.shared.size() == 1);
  CHECK(split.shared[0].shares[0].second == 1);
  CHECK(split.shared[0].shares[1].second == 2);
  CHECK(split.capacity[split.shared[0].shares[0].first / 2] == Approx(20e9 / 3));
}
