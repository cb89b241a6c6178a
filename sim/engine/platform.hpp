// SimGrid platform of a cluster (engine-internal; see engine.hpp for the layout): the topology
// layer's fabric (sim/topology/fabric.hpp) as one star zone, a host per route end whose route is
// the end's climb, so that SimGrid's routes are the fabric's; routes between chips of one torus
// also take its hops (Fabric::hops) between the two climbs.
#pragma once

#include <memory>
#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/topology/fabric.hpp"
#include "sim/topology/placement.hpp"

namespace sim {

struct ClusterSpec;
struct StepFaults;

class Platform {
 public:
  // `faults`' slow events set the speeds: a GPU's host computes at 1/factor of its speed, a NIC's
  // link carries 1/factor of its bandwidth. Besides the GPUs' hosts, one host per pipeline rank
  // (`pipeline_ranks` of them) runs a folded rank class, at the pace of its slowest member, and a
  // control host runs the fault timer; neither is on any route.
  // `only`, when not empty, lists the route ends that get a host (the rest have none: the engine
  // moves their flows elsewhere, replay.cpp, "Folding"), and only their routes' links are made.
  Platform(const ClusterSpec& cluster, const Placement& place, const StepFaults& faults, int64_t pipeline_ranks,
           const std::vector<int64_t>& only = {});

  simgrid::s4u::Host* gpu_host(int64_t gpu) const;
  simgrid::s4u::Host* class_host(int64_t pp_rank) const { return class_[static_cast<size_t>(pp_rank)]; }
  simgrid::s4u::Host* control_host() const { return control_; }
  simgrid::s4u::Link* nic_link(int64_t nic) const;
  // The hosts of a transfer from GPU a to GPU b: those of its route's ends (Fabric::ends).
  std::pair<simgrid::s4u::Host*, simgrid::s4u::Host*> endpoints(int64_t a, int64_t b) const;
  const Fabric& fabric() const { return *fabric_; }
  // What each network link carries each way here: the fabric's capacity, slow NICs slowed.
  const std::vector<double>& capacities() const { return capacity_; }

 private:
  const Placement& place_;
  std::shared_ptr<const Fabric> fabric_;          // Fabric::of: the planner's, which a forked engine inherits
  std::vector<simgrid::s4u::Host*> end_, class_;  // end_: per route end; the GPUs' come first
  std::vector<simgrid::s4u::Link*> nic_link_;
  std::vector<simgrid::s4u::Link*> links_;  // per network link, once created (the zone's routes)
  std::vector<double> capacity_;
  simgrid::s4u::Host* control_ = nullptr;
};

}  // namespace sim
