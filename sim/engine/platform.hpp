// SimGrid platform of a cluster (engine-internal; see engine.hpp for the layout).
#pragma once

#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/topology/placement.hpp"

namespace sim {

struct ClusterSpec;

class Platform {
 public:
  Platform(const ClusterSpec& cluster, const Placement& place);

  simgrid::s4u::Host* gpu_host(int64_t gpu) const { return gpu_[static_cast<size_t>(gpu)]; }
  // The endpoints of a transfer from GPU a to GPU b: NVLink ports inside a node, NIC ports (or
  // their pod-crossing twins) between nodes.
  std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*> endpoints(int64_t a, int64_t b) const;
  bool same_node(int64_t a, int64_t b) const { return place_.same_node(a, b); }

 private:
  const Placement& place_;
  std::vector<simgrid::s4u::Host*> gpu_, nic_, nic_cross_;
};

}  // namespace sim
