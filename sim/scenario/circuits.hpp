// The circuits of a direct-connect network (scale_out.kind "direct", cluster.hpp): which nodes
// they join. A circuit joins one port of each of its two nodes; several between the same two
// nodes are parallel links.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace sim {

using Circuit = std::array<int64_t, 2>;  // two nodes

// TopoOpt's TotientPerms rings (Wang et al., NSDI 2023) over nodes `nodes[0 .. m)` in that order:
// for each stride s, member k to member k + s mod m, so that each node's circuits go to the
// nodes s ahead and s behind it (two ports per stride). A ring whose stride is coprime with m
// visits every member; with m = 2 both circuits join the same pair (parallel links).
std::vector<Circuit> ring_circuits(const std::vector<int64_t>& nodes, const std::vector<int64_t>& strides);

// The same over all of a cluster's nodes 0 .. n-1 in index order.
std::vector<Circuit> stride_circuits(int64_t n, const std::vector<int64_t>& strides);

// k strides for rings over m nodes: coprime with m (each ring visits every node), at most m / 2 (s
// and m - s are one ring, reversed), spread geometrically from 1 toward m / 2 (the j-th the free
// one nearest m^(j/k)), as TopoOpt's TotientPerms picks strides so that other traffic crosses few
// circuits; repeated in that order when fewer than k exist (parallel circuits). Empty for m < 2.
std::vector<int64_t> totient_strides(int64_t m, int64_t k);

// How many ports each of nodes 0 .. n-1 gives to `circuits`.
std::vector<int64_t> ports_used(int64_t n, const std::vector<Circuit>& circuits);

}  // namespace sim
