// The parts of a cluster's scale-out network, counted from its graph (network.hpp) in ports of a
// cost table's port bandwidth (sim/scenario/costs.hpp), and what they cost:
// - a NIC's link to an electrical switch: a switch port and two transceivers (one each end);
// - a link between two electrical switches (a leaf's uplink, a pod's): a port and a transceiver
//   at each end, as many as its bandwidth needs;
// - a NIC's link to an optical circuit switch: an OCS port and the NIC's transceiver (the switch
//   steers light: no transceiver of its own).
// A link of bandwidth B counts as B / port_bandwidth ports. GPUs' links (to their NVSwitch, their
// router on a torus, their NIC) and the links between a torus's routers are the scale-up domain,
// the same whatever the scale-out, and are not counted; nor are the NICs.
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
