// The network as data: GPUs, NICs and switches, joined by full-duplex links with a bandwidth per
// direction and a latency, as the builders (nvswitch.hpp, fat_tree.hpp; registry in builders.hpp)
// lay them out from a cluster. It answers what the engine and the estimate ask of a topology: the
// route between two endpoints (its links), and what a cut between two groups can carry (bisection).
//
// The engine builds its SimGrid platform from this graph (sim/engine/platform.cpp) and the
// closed-form estimate prices flows on the same routes (sim/comm/comm_costs.cpp).
//
// Routes between GPUs of a tree-shaped fabric (every switch and NIC with at most one link to a
// higher tier: what the builders lay out) are found by climbing to the lowest common switch, in
// O(depth); other graphs fall back to a breadth-first search.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/scenario/torus_shape.hpp"

namespace sim {

enum class VertexKind { GPU, NIC, SWITCH };

// tier: 0 for GPUs and NICs; switches count up from the endpoints (NVSwitch or leaf 1, pod spine
// 2, core 3).
struct Vertex {
  VertexKind kind = VertexKind::GPU;
  int tier = 0;
};

struct Link {
  int64_t a = 0, b = 0;      // vertices
  BytesPerSecond bandwidth;  // each direction
  Seconds latency;
};

// A torus of chips as build_torus (torus.hpp) lays it out: its shape, its first chip's index into
// Network::gpu (chips follow in row-major order of their coordinates), and per chip, per dimension
// d, its links to the + neighbour (hop[2d]) and the - neighbour (hop[2d + 1]); -1 where the
// dimension has size 1. A dimension of 2 has one link, both neighbours'.
struct TorusLayout {
  TorusShape shape;
  int64_t first_gpu = 0;
  std::vector<int64_t> router;  // per chip, its router vertex
  std::vector<std::array<int64_t, 6>> hop;
};

// A direct-connect network as build_direct (direct.hpp) lays it out: per node its router (the host
// forwarding between its NICs' ports, tier 1), and per ordered pair of nodes (u, v) the circuit
// link u's traffic toward v leaves on (-1 for u == v): the first hop of a fewest-hop route.
struct DirectLayout {
  int64_t nodes = 0;
  std::vector<int64_t> router;
  std::vector<int32_t> next;  // nodes x nodes, row u
  int64_t next_hop(int64_t u, int64_t v) const { return next[static_cast<size_t>(u * nodes + v)]; }
};

class Network {
 public:
  int64_t add_vertex(VertexKind kind, int tier);
  int64_t add_link(int64_t a, int64_t b, BytesPerSecond bandwidth, Seconds latency);

  const std::vector<Vertex>& vertices() const { return vertices_; }
  const std::vector<Link>& links() const { return links_; }
  int64_t count(VertexKind kind, int tier) const;       // vertices of that kind and tier
  int64_t links_between(int tier_a, int tier_b) const;  // links whose ends sit on these tiers (either order)

  // GPU g's vertex and, once a scale-out network is built, its NIC's (-1 before); the NICs by
  // global index (node * nics_per_node + rail, sim/topology/placement.hpp).
  std::vector<int64_t> gpu, nic_of_gpu, nic;
  // The tori the chips sit in, if the scale-up network is one (torus.hpp).
  std::vector<TorusLayout> tori;
  // The switches that are optical circuit switches (builders.cpp, "ocs").
  std::vector<int64_t> ocs;
  // The direct-connect network, if the scale-out network is one (direct.hpp); nodes 0 without.
  DirectLayout direct;

  // The link from vertex v (not a GPU) to the one switch above it; -1 at the top, -2 when v has
  // several (not a tree).
  int64_t up_link(int64_t v) const { return up_[static_cast<size_t>(v)]; }
  // Vertex v's (neighbour, link) pairs, in the order they were linked.
  const std::vector<std::pair<int64_t, int64_t>>& adjacent(int64_t v) const {
    return adjacent_[static_cast<size_t>(v)];
  }
  // The other end of link l from vertex v.
  int64_t other_end(int64_t l, int64_t v) const {
    const Link& k = links_[static_cast<size_t>(l)];
    return k.a == v ? k.b : k.a;
  }

  // Per link, whether it belongs to the scale-up domain: a GPU's own link (to its NVSwitch, its
  // torus router or its NIC) or one between two routers of a torus (its ICI). The rest is the
  // scale-out network.
  std::vector<bool> scale_up_links() const;

  // The links from `from` to `to` with the fewest hops, never forwarding through a GPU (a NIC
  // forwards between its GPUs and its switch); ties go to the lower vertex index, so the route is
  // deterministic.
  // Empty when from == to; std::logic_error when none exists.
  std::vector<int64_t> route(int64_t from, int64_t to) const;
  // The same by breadth-first search alone (what route() falls back to on graphs that are no tree).
  std::vector<int64_t> search_route(int64_t from, int64_t to) const;

  // Uniform all-to-all traffic among `ends` (one unit from each to every other), each pair's unit
  // split over all of its fewest-hop routes in proportion to their number (routes never forward
  // through a GPU): the units each link carries, per direction (index 0: from Link::a to b).
  // What bounds all-to-all throughput is the most loaded direction: a rate of r per pair needs
  // r x load of it.
  std::vector<std::array<double, 2>> all_to_all_load(const std::vector<int64_t>& ends) const;

  // The most that can flow from the vertices `from` to the vertices `to` at once (each link
  // carrying its bandwidth in each direction): the bandwidth of the cheapest cut between them.
  BytesPerSecond max_flow(const std::vector<int64_t>& from, const std::vector<int64_t>& to) const;

 private:
  bool tree_route(int64_t from, int64_t to, std::vector<int64_t>& path) const;

  std::vector<Vertex> vertices_;
  std::vector<Link> links_;
  std::vector<int64_t> up_;
  std::vector<std::vector<std::pair<int64_t, int64_t>>> adjacent_;  // per vertex: (neighbour, link)
};

}  // namespace sim
