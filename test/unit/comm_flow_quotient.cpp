// quotient_flows (sim/comm/flow_quotient.hpp): the cells of flows the max-min sharing always
// treats alike, their loads on link cells, and the links no allocation can saturate.
#include <catch2/catch.hpp>
#include <vector>

#include "sim/comm/flow_quotient.hpp"
#include "test/unit/ring_flow_set.hpp"

using namespace sim;
using ring_flow_set::route;
using ring_flow_set::up;

namespace {

// Four flows of one launch, each from its own NIC (links 0-3, 10 GB/s) through one shared uplink
// (link 4, `uplink` GB/s) to its own NIC (links 5-8).
RingFlowSet rails() {
  RingFlowSet set;
  for (int64_t i = 0; i < 4; ++i) {
    set.routes.push_back(route({up(i), up(4), up(5 + i)}));
    set.flows.push_back({0, i, 0});
  }
  return set;
}

std::vector<double> capacities(double uplink) {
  std::vector<double> c(9, 10e9);
  c[4] = uplink;
  return c;
}

}  // namespace

TEST_CASE("flows alike but for their private links are one cell that loads a shared link once each", "[comm]") {
  const RingFlowSet set = rails();
  const FlowQuotient q = quotient_flows(set, {1, 1, 1, 1}, {0, 0, 0, 0}, capacities(20e9));
  REQUIRE(q.cells.size() == 1);
  CHECK(q.cells[0].members == 4);
  // The uplink is a cell of one link carrying the 4 flows; the 8 NICs, alike, one cell whose links
  // carry one flow each (each flow crosses two of them).
  const int32_t uplink = q.link_cell.at(up(4));
  CHECK(q.link_cell_size[static_cast<size_t>(uplink)] == 1);
  CHECK(q.link_cell_size[static_cast<size_t>(q.link_cell.at(up(0)))] == 8);
  for (const auto& [cell, load] : q.cells[0].load) CHECK(load == (cell == uplink ? 4 : 1));
  CHECK(q.cells[0].load.size() == 2);
}

TEST_CASE("a link other traffic crosses sets its flow apart", "[comm]") {
  RingFlowSet set = rails();
  set.foreign_routes = {{up(0)}};  // a pipeline transfer on NIC 0
  const FlowQuotient q = quotient_flows(set, {1, 1, 1, 1}, {0, 0, 0, 0}, capacities(20e9));
  CHECK(q.cells.size() == 2);
  CHECK(q.cell[0] != q.cell[1]);
  CHECK(q.cell[1] == q.cell[2]);
  CHECK(q.cell[2] == q.cell[3]);
}

TEST_CASE("other traffic that every replica runs keeps its flows alike, and loads its cell as its images do",
          "[comm]") {
  // The pipeline transfer on NIC 0 is replica 0's; replicas 1-3 run the same on NICs 1-3 (its
  // images), at the same time: the four flows stay alike, and the transfer stands for one on each
  // of the four NICs, loading their cell's link once.
  RingFlowSet set = rails();
  set.foreign_routes = {{up(0)}};
  set.foreign_images = {{0, {up(1)}}, {0, {up(2)}}, {0, {up(3)}}};
  const FlowQuotient q = quotient_flows(set, {1, 1, 1, 1}, {0, 0, 0, 0}, capacities(20e9));
  CHECK(q.cells.size() == 1);
  const int32_t nic = q.link_cell.at(up(0));
  CHECK(q.link_cell_size[static_cast<size_t>(nic)] == 4);  // the sending NICs, apart from the receiving ones
  CHECK(q.link_cell.at(up(5)) != nic);
  CHECK(q.foreign_load.at({0, up(0)}) == 1);
  // Images that meet on one link: it carries two of the transfers, so the transfer loads it twice,
  // and its flow is set apart from those whose NIC carries one.
  set.foreign_images = {{0, {up(0)}}, {0, {up(2)}}, {0, {up(3)}}};
  const FlowQuotient twice = quotient_flows(set, {1, 1, 1, 1}, {0, 0, 0, 0}, capacities(20e9));
  CHECK(twice.foreign_load.at({0, up(0)}) == 2);
  CHECK(twice.cell[0] != twice.cell[2]);
  CHECK(twice.cell[2] == twice.cell[3]);
  // Images where no simulated foreign flow reaches (a component of its own) change nothing.
  set.foreign_routes = {{up(9)}};  // a link of its own, no flow's
  set.foreign_images = {{0, {up(1)}}};
  std::vector<double> wider = capacities(20e9);
  wider.push_back(10e9);
  CHECK(quotient_flows(set, {1, 1, 1, 1}, {0, 0, 0, 0}, wider).cells.size() == 1);
}

TEST_CASE("flows of different launches or tiers are never one cell", "[comm]") {
  RingFlowSet set = rails();
  set.flows[3].tier = 1;
  const FlowQuotient q = quotient_flows(set, {1, 1, 1, 1}, {0, 0, 1, 0}, capacities(20e9));
  // Flow 2 is another launch, flow 3 another tier: flows 0 and 1 remain alike.
  CHECK(q.cells.size() == 3);
  CHECK(q.cell[0] == q.cell[1]);
}

TEST_CASE("a link at least as wide as the first links feeding it is left out", "[comm]") {
  // The 4 NICs feed the uplink 40 GB/s at most: at 40 GB/s it can never bind; at 39 GB/s it can.
  const RingFlowSet set = rails();
  CHECK(quotient_flows(set, {1, 1, 1, 1}, {0, 0, 0, 0}, capacities(40e9)).link_cell.at(up(4)) == -1);
  CHECK(quotient_flows(set, {1, 1, 1, 1}, {0, 0, 0, 0}, capacities(39e9)).link_cell.at(up(4)) >= 0);
}

TEST_CASE("merged copies count as flows of their cell", "[comm]") {
  // Flow 0 carries 3 merged copies (fold_ring_flows' keep), flow 1 is left out. Flow 0's NICs carry
  // 3 flows each, flows 2 and 3's one: two cells, of 3 and 2 flows, that load the uplink 3 and 2
  // times.
  const RingFlowSet set = rails();
  const FlowQuotient q = quotient_flows(set, {3, 0, 1, 1}, {0, 0, 0, 0}, capacities(20e9));
  CHECK(q.cell[1] == -1);
  CHECK(q.cell[0] != q.cell[2]);
  CHECK(q.cell[2] == q.cell[3]);
  CHECK(q.cells[static_cast<size_t>(q.cell[0])].members == 3);
  CHECK(q.cells[static_cast<size_t>(q.cell[2])].members == 2);
  for (int64_t f : {0, 2})
    for (const auto& [y, load] : q.cells[static_cast<size_t>(q.cell[static_cast<size_t>(f)])].load)
      if (y == q.link_cell.at(up(4))) CHECK(load == (f == 0 ? 3 : 2));
}
