#include "sim/engine/platform.hpp"

#include <algorithm>
#include <string>

#include "sim/scenario/cluster.hpp"
#include "sim/scenario/step_faults.hpp"

namespace sg4 = simgrid::s4u;

namespace sim {

// One star zone: SimGrid joins a source host's route (up) to a destination host's (down), which
// is how the fabric composes a route from two ends' climbs.
Platform::Platform(const ClusterSpec& c, const Placement& place, const StepFaults& faults, int64_t pipeline_ranks)
    : place_(place), fabric_(c) {
  auto* zone = sg4::create_star_zone("cluster");
  const Network& net = fabric_.network();
  for (int64_t l = 0; l < static_cast<int64_t>(net.links().size()); ++l) capacity_.push_back(fabric_.capacity(l));
  for (int64_t n = 0; n < static_cast<int64_t>(net.nic.size()); ++n)
    capacity_[static_cast<size_t>(fabric_.nic_port(n))] /= faults.slowdown(FaultTarget::NIC, n);
  std::vector<sg4::Link*> sg(net.links().size(), nullptr);
  const auto link = [&](int64_t l) {
    sg4::Link*& out = sg[static_cast<size_t>(l)];
    if (out) return out;
    out = zone->create_split_duplex_link("l" + std::to_string(l), capacity_[static_cast<size_t>(l)]);
    out->set_latency(net.links()[static_cast<size_t>(l)].latency.value);
    out->seal();
    return out;
  };

  std::vector<double> class_slowdown(static_cast<size_t>(pipeline_ranks), 1.0);
  for (int64_t e = 0; e < fabric_.ends(); ++e) {
    const bool gpu = e < fabric_.gpus();
    const double slow = gpu ? faults.slowdown(FaultTarget::GPU, e) : 1.0;
    auto* h = zone->create_host((gpu ? "gpu-" : "end-") + std::to_string(e), 1e12 / slow);
    std::vector<sg4::LinkInRoute> route;
    for (int64_t l : fabric_.climb(e)) route.emplace_back(link(l), sg4::LinkInRoute::Direction::UP);
    zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, route, true);
    end_.push_back(h);
    if (gpu) {
      double& cls = class_slowdown[static_cast<size_t>(place.coord(e).pp)];
      cls = std::max(cls, slow);
    }
  }
  for (int64_t r = 0; r < pipeline_ranks; ++r)
    class_.push_back(zone->create_host("class-" + std::to_string(r), 1e12 / class_slowdown[static_cast<size_t>(r)]));
  control_ = zone->create_host("control", 1e12);
  for (int64_t n = 0; n < static_cast<int64_t>(net.nic.size()); ++n) nic_link_.push_back(link(fabric_.nic_port(n)));
  zone->seal();
}

std::pair<sg4::Host*, sg4::Host*> Platform::endpoints(int64_t a, int64_t b) const {
  const auto [ea, eb] = fabric_.ends(a, b);
  return {end_[static_cast<size_t>(ea)], end_[static_cast<size_t>(eb)]};
}

}  // namespace sim
