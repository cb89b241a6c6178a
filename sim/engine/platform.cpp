#include "sim/engine/platform.hpp"

#include <algorithm>
#include <string>

#include "sim/scenario/cluster.hpp"
#include "sim/scenario/step_faults.hpp"

namespace sg4 = simgrid::s4u;

namespace sim {

namespace {

sg4::Link* port(sg4::NetZone* zone, const std::string& name, double bandwidth, double latency) {
  auto* l = zone->create_split_duplex_link(name, bandwidth);
  l->set_latency(latency);
  l->seal();
  return l;
}

void attach(sg4::NetZone* zone, sg4::Host* h, std::vector<sg4::Link*> links) {
  std::vector<sg4::LinkInRoute> route;
  for (auto* l : links) route.emplace_back(l, sg4::LinkInRoute::Direction::UP);
  zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, route, true);
}

}  // namespace

Platform::Platform(const ClusterSpec& c, const Placement& place, const StepFaults& faults, int64_t pipeline_ranks)
    : place_(place) {
  auto* zone = sg4::create_star_zone("cluster");
  const auto& k = c.device.collectives;
  const double nvl_bw = c.scale_up.bandwidth.value * k.scale_up_efficiency;
  const double nic_bw = c.scale_out.nic_bandwidth.value * k.scale_out_efficiency;
  const int64_t nics = c.nodes() * c.scale_out.nics_per_node;
  const int64_t pods = (c.gpus + c.scale_out.pod_gpus - 1) / c.scale_out.pod_gpus;
  const bool oversubscribed = pods > 1 && c.scale_out.oversubscription > 1.0;

  std::vector<double> class_slowdown(static_cast<size_t>(pipeline_ranks), 1.0);
  for (int64_t g = 0; g < c.gpus; ++g) {
    const double slow = faults.slowdown(FaultTarget::GPU, g);
    auto* h = zone->create_host("gpu-" + std::to_string(g), 1e12 / slow);
    attach(zone, h, {port(zone, "nvl-" + std::to_string(g), nvl_bw, c.scale_up.latency.value)});
    gpu_.push_back(h);
    double& cls = class_slowdown[static_cast<size_t>(place.coord(g).pp)];
    cls = std::max(cls, slow);
  }
  for (int64_t r = 0; r < pipeline_ranks; ++r)
    class_.push_back(zone->create_host("class-" + std::to_string(r), 1e12 / class_slowdown[static_cast<size_t>(r)]));
  control_ = zone->create_host("control", 1e12);
  std::vector<sg4::Link*> pod_links;
  if (oversubscribed) {
    const double nics_per_pod =
        double(c.scale_out.pod_gpus) / double(c.gpus_per_node) * double(c.scale_out.nics_per_node);
    for (int64_t p = 0; p < pods; ++p)
      pod_links.push_back(port(zone, "pod-" + std::to_string(p), nics_per_pod * nic_bw / c.scale_out.oversubscription,
                               c.scale_out.latency.value));
  }
  for (int64_t n = 0; n < nics; ++n) {
    auto* link = port(zone, "net-" + std::to_string(n), nic_bw / faults.slowdown(FaultTarget::NIC, n),
                      c.scale_out.latency.value);
    nic_link_.push_back(link);
    auto* h = zone->create_host("nic-" + std::to_string(n), 1e12);
    attach(zone, h, {link});
    nic_.push_back(h);
    if (oversubscribed) {
      int64_t first_gpu = n / c.scale_out.nics_per_node * c.gpus_per_node;
      auto* x = zone->create_host("nicx-" + std::to_string(n), 1e12);
      attach(zone, x, {link, pod_links[static_cast<size_t>(place.pod(first_gpu))]});
      nic_cross_.push_back(x);
    }
  }
  zone->seal();
}

std::pair<sg4::Host*, sg4::Host*> Platform::endpoints(int64_t a, int64_t b) const {
  if (place_.same_node(a, b)) return {gpu_host(a), gpu_host(b)};
  size_t na = static_cast<size_t>(place_.nic(a)), nb = static_cast<size_t>(place_.nic(b));
  if (!nic_cross_.empty() && place_.pod(a) != place_.pod(b)) return {nic_cross_[na], nic_cross_[nb]};
  return {nic_[na], nic_[nb]};
}

}  // namespace sim
