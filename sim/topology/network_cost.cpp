#include "sim/topology/network_cost.hpp"

namespace sim {

NetworkCost network_cost(const Network& net, const CostTable& costs) {
  std::vector<bool> ocs(net.vertices().size(), false);
  for (int64_t v : net.ocs) ocs[static_cast<size_t>(v)] = true;
  // A direct-connect network's NIC ports plug into the patch panel or OCS that sets its circuits:
  // priced as ports of an OCS, which its routers (the hosts' forwarding) stand for here.
  for (int64_t v : net.direct.router) ocs[static_cast<size_t>(v)] = true;
  const auto kind = [&](int64_t v) { return net.vertices()[static_cast<size_t>(v)].kind; };
  const std::vector<bool> scale_up = net.scale_up_links();
  NetworkCost c;
  for (size_t i = 0; i < net.links().size(); ++i) {
    if (scale_up[i]) continue;
    const Link& l = net.links()[i];
    const double ports = l.bandwidth.value / costs.port_bandwidth.value;
    const bool nic = kind(l.a) == VertexKind::NIC || kind(l.b) == VertexKind::NIC;
    const bool circuit = ocs[static_cast<size_t>(l.a)] || ocs[static_cast<size_t>(l.b)];
    if (circuit) {
      // An OCS has no uplink (the tree builder's spine above it is not built); a circuit between
      // two nodes is the light between their NICs' ports.
      if (!nic) continue;
      c.ocs_ports += ports;
      c.transceivers += ports;
    } else {
      c.switch_ports += nic ? ports : 2 * ports;
      c.transceivers += 2 * ports;
    }
  }
  for (const TorusLayout& t : net.tori) {
    if (t.shape.cube.empty()) continue;
    double per_chip = 0;  // optical links
    for (size_t d = 0; d < t.shape.dims.size(); ++d)
      if (t.shape.dims[d] > 1) per_chip += 1.0 / static_cast<double>(t.shape.cube[d]);
    const double ports =
        per_chip * static_cast<double>(t.router.size()) * t.shape.link_bandwidth.value / costs.port_bandwidth.value;
    c.transceivers += 2 * ports;
    if (t.shape.ocs) c.ocs_ports += 2 * ports;
  }
  c.usd = c.switch_ports * costs.switch_port.usd + c.transceivers * costs.transceiver.usd +
          c.ocs_ports * costs.ocs_port.usd;
  c.watts = c.switch_ports * costs.switch_port.watts + c.transceivers * costs.transceiver.watts +
            c.ocs_ports * costs.ocs_port.watts;
  return c;
}

}  // namespace sim
