// The quotient of a step's folded data-parallel flows by their symmetry: the flows fold_ring_flows
// keeps (ring_channels.hpp), partitioned into cells of flows that the max-min sharing always gives
// the same rate, and their links into cells that always carry the same load, so that the engine
// simulates one flow per cell (sim/engine/replay.cpp, "Folding"; its fluid network,
// sim/engine/fluid_network.hpp, takes a cell's flow with the load it puts on each link cell).
//
// The partition is the coarsest equitable one (colour refinement, as in graph isomorphism
// testing), of the bipartite graph of flows and the links they cross: flows start in one cell per
// (launch, tier, route shape) -- launched together, with the same bytes, weight and
// capacities along their routes -- and links in one cell per capacity and the other traffic of
// the step that crosses them (a pipeline transfer, a live tensor-parallel collective: how many
// times each such route of the simulated data-parallel replica, or its image in another replica,
// crosses the link; the replicas run it together, so a cell's links carry the same of it and the
// simulated replica's flow stands for all of it, foreign_load); then, until nothing splits, a
// link's cell is refined by how many flows of each flow cell
// cross it, and a flow's by how many links of each link cell it crosses. In the end every link of
// a cell carries the same number of flows of each flow cell, and every flow of a cell crosses the
// same number of links of each link cell.
//
// Before that, links no allocation can saturate are left out (never_saturated, shared_links.hpp).
// (Left in, such links tell apart flows that the sharing treats alike: which tree edges leave a
// leaf depends on where its ranks sit.) The split links of shared_links.hpp are vertices too,
// joined to the representatives that stand for their groups' shares: a split link's cell is
// refined by the cells of those representatives, a representative's by the cells of the split
// links it stands in, so that the representatives of a cell are always in use alike and their
// capacities (their weight over the weights in use) agree.
//
// Why the partition is exact: CM02's progressive filling (fluid_network.hpp) keeps such a partition. With
// every flow of a cell in the same state (bytes left, rate), each link of a cell has the same fair
// share, so the links that saturate first are whole cells, the flows they fix are whole cells at
// one rate, and every other link of a cell loses the same capacity; so the flows of a cell keep
// equal rates and end together. A subset of whole flow cells is partitioned equitably too, so the
// partition holds whichever cells are in flight (launches of other ranks and buckets start and
// end at their own times), and a second launch of a rank's flows, in flight beside the first, is
// a copy of the same structure. A cell's flow then stands for its k flows: on a link cell with
// c of them per link it loads that cell's one link c times its rate.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/comm/ring_channels.hpp"
#include "sim/comm/shared_links.hpp"

namespace sim {

struct FlowQuotient {
  struct Cell {
    int64_t flow = 0;     // a member: an index into the set's flows
    int64_t members = 0;  // flows it stands for (merged copies counted)
    // Per link cell it crosses: how many of its flows cross each link of that cell.
    std::vector<std::pair<int32_t, int32_t>> load;
  };
  std::vector<int32_t> cell;  // per flow of the set: its cell, -1 where it is not kept
  std::vector<Cell> cells;
  std::unordered_map<uint64_t, int32_t> link_cell;  // per link the kept flows cross (directed id); -1: left out
  std::vector<int64_t> link_cell_size;              // links per link cell
  std::vector<double> link_capacity;                // per link cell: each of its links'
  // Per foreign route (RingFlowSet::foreign_routes) and link of it in a link cell: how many times
  // the route and its images cross each link of that cell, the load its flow puts on the cell's link.
  std::map<std::pair<int64_t, uint64_t>, int32_t> foreign_load;
};

// `keep` as fold_ring_flows gives it (a kept flow with m copies counts m flows); `launch` per flow
// of the set (DpFlow::launch: a cell's flows start together at every launch); `capacity`
// per network link (a directed id's link is id / 2, Fabric::up and down); `shared`, the split
// links (shared_links.hpp) with the kept representatives standing for their groups' shares: those
// are never left out (the engine changes their capacity), and the split links are vertices of the
// refinement, joined to them, so that a cell holds representatives whose capacities always agree.
FlowQuotient quotient_flows(const RingFlowSet& set, const std::vector<int64_t>& keep,
                            const std::vector<int64_t>& launch, const std::vector<double>& capacity,
                            const std::vector<FoldedSharedLink>& shared = {});

}  // namespace sim
