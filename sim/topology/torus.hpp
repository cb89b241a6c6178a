// Scale-up builder: a torus of chips in 1 to 3 dimensions (TPU v4's inter-chip interconnect, ICI).
// Each chip is a GPU endpoint on its own router (the chip's ICI switch, tier 1, linked to it
// without limit: the chip's DMA engines reach every port); routers link to their neighbours in
// each dimension with wrap-around, one full-duplex link per neighbour pair at the ICI link
// bandwidth per direction (a dimension of 2 has one link, of 1 none).
//
//   regular 4 x 4 torus (one plane)        twisted k x k x 2k, TPU v4's "twisted 3D torus":
//    R - R - R - R -.                      the wrap-around link of a short (k) dimension also
//    |   |   |   |  |  (wrap-around)       moves k along every long (2k) dimension, the "+k mod 2k
//    R - R - R - R -'                      seam": chip (x = k-1, y, z) links to (0, y, z + k mod 2k)
//
// Twisted shapes are those TPU v4 admits: two distinct extents k and 2k, every dimension one of
// them, as k x k x 2k and k x 2k x 2k (libtpu's "TPU twisted torus only supports k*k*2k and
// k*2k*2k ... slice shapes"; Cloud TPU v4 documentation, "3D mesh and 3D torus": 4x4x8, 4x8x8,
// 12x12x24). The twist follows Camara et al., "Twisted Torus Topologies for Enhanced
// Interconnection Networks" (IEEE TPDS 2010), as TPU v4 uses it (Jouppi et al., ISCA 2023 §2).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/scenario/torus_shape.hpp"
#include "sim/topology/network.hpp"

namespace sim {

// Adds the chips of a torus of `shape` (sim/scenario/torus_shape.hpp; appended to Network::gpu, in
// row-major order of their coordinates, the first dimension slowest), their routers and links, and
// the torus's layout (Network::tori, which keeps the shape);
// std::invalid_argument on a shape with no dimension, more than three, one below 1, or a twist the
// shape does not admit (or a twisted mesh). Several tori may be built into one network, one after another.
void build_torus(Network& net, const TorusShape& shape);

// One hop of a route: the link and whether it is crossed from its end a to its end b.
struct TorusHop {
  int64_t link = 0;
  bool a_to_b = true;
};

// The route between chips `from` and `to` of torus `t` (indices within it): dimension-ordered, each
// dimension the shorter way round (ties: the + way), as TPU v4's ICI routes. On a twisted torus
// crossing a short dimension's +k seam moves the route k along the long dimensions, so the short
// dimensions are walked first, each the + or - way and across its seam once or not at all (a
// whole way round where that is what lines the long dimensions up), the walks taken that give the
// fewest hops overall (ties: in that order, the first dimension first); then the long ones. Every
// route is a shortest path (tests: against a breadth-first search on TPU v4's twisted shapes). On
// a mesh each dimension is walked the one way there is.
// Appends to `out` (cleared first); empty when from == to.
void torus_route(const Network& net, const TorusLayout& t, int64_t from, int64_t to, std::vector<TorusHop>& out);

// The shape of a group of chips of torus `t` (indices within it, in rank order) for its
// collectives (sim/cost/torus_collective.hpp): when the members are every combination of a set of
// coordinates per dimension, numbered row-major as torus_coords numbers chips, the sets' sizes;
// otherwise one dimension of all of them (a ring in rank order).
std::vector<int64_t> torus_group_dims(const TorusLayout& t, const std::vector<int64_t>& chips);

// Chip c's coordinates in `dims` (row-major, the first dimension slowest).
std::vector<int64_t> torus_coords(const std::vector<int64_t>& dims, int64_t chip);

}  // namespace sim
