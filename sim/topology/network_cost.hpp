// The parts of a cluster's scale-out network, counted from its graph (network.hpp) in ports of a
// cost table's port bandwidth (sim/scenario/costs.hpp), and what they cost:
// - a NIC's link to an electrical switch: a switch port and two transceivers (one each end);
// - a link between two electrical switches (a leaf's uplink, a pod's): a port and a transceiver
//   at each end, as many as its bandwidth needs;
// - a NIC's link to an optical circuit switch: an OCS port and the NIC's transceiver (the switch
//   steers light: no transceiver of its own); a direct-connect network's NIC ports the same (the
//   patch panel or switch its circuits run through, priced as an OCS), its circuits nothing more.
// - a torus's (or mesh's) optical links, those between its electrical cubes (TorusShape::cube): a
//   transceiver at each end, and through an optical circuit switch an OCS port at each end too.
//   Each chip has one + link per dimension of extent > 1, of which 1 / cube extent crosses a cube
//   face (the wrap-around too: TPU v4 closes a cube's own rings through its OCS). A mesh is
//   priced the same, as a slice of the static torus it is carved from (its face links lead to the
//   slices beside it).
// A link of bandwidth B counts as B / port_bandwidth ports. Copper -- GPUs' links to their NVSwitch,
// their router or their NIC, a torus's links inside a cube -- and the NICs are not counted.
#pragma once

#include "sim/scenario/costs.hpp"
#include "sim/topology/network.hpp"

namespace sim {

struct NetworkCost {
  double switch_ports = 0, transceivers = 0, ocs_ports = 0;
  double usd = 0, watts = 0;
};

NetworkCost network_cost(const Network& net, const CostTable& costs);

}  // namespace sim
