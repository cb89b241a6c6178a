#include "sim/engine/platform.hpp"

#include <algorithm>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/StarZone.hpp>
#include <string>
#include <unordered_map>

#include "sim/core/error.hpp"
#include "sim/scenario/cluster.hpp"
#include "sim/scenario/step_faults.hpp"

namespace sg4 = simgrid::s4u;

namespace sim {
namespace {

// A star zone whose routes also run along the hops between two ends' climbs (Fabric::end_hops:
// between the routers of one torus, or the circuits between the nodes of a direct-connect
// network), inserted between the sender's climb and the receiver's.
class FabricZone : public simgrid::kernel::routing::StarZone {
 public:
  FabricZone(const Fabric& fabric, const std::vector<sg4::Link*>& links)
      : StarZone("cluster"), fabric_(fabric), links_(links) {}
  void add_end(const simgrid::kernel::routing::NetPoint* point, int64_t end) { end_.emplace(point, end); }

  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* route, double* latency) override {
    const size_t before = route->link_list_.size();  // SimGrid may pass a route begun by its caller
    StarZone::get_local_route(src, dst, route, latency);
    const auto a = end_.find(src), b = end_.find(dst);
    if (a == end_.end() || b == end_.end()) return;
    const auto& hops = fabric_.end_hops(a->second, b->second);
    if (hops.empty()) return;
    std::vector<simgrid::kernel::resource::StandardLinkImpl*> middle;
    for (const TorusHop& h : hops) {
      auto* link = static_cast<sg4::SplitDuplexLink*>(links_[static_cast<size_t>(h.link)]);
      sg4::Link* way = h.a_to_b ? link->get_link_up() : link->get_link_down();
      middle.push_back(way->get_impl());
      if (latency) *latency += way->get_latency();
    }
    const auto at = route->link_list_.begin() + static_cast<std::ptrdiff_t>(before + fabric_.climb(a->second).size());
    route->link_list_.insert(at, middle.begin(), middle.end());
  }

 private:
  const Fabric& fabric_;
  const std::vector<sg4::Link*>& links_;  // per network link, once created
  std::unordered_map<const simgrid::kernel::routing::NetPoint*, int64_t> end_;
};

}  // namespace

// One star zone: SimGrid joins a source host's route (up) to a destination host's (down), which
// is how the fabric composes a route from two ends' climbs.
Platform::Platform(const ClusterSpec& c, const Placement& place, const StepFaults& faults, int64_t pipeline_ranks,
                   const std::vector<int64_t>& only)
    : place_(place), fabric_(Fabric::of(c)) {
  const Fabric& fabric = *fabric_;
  const Network& net = fabric.network();
  for (int64_t l = 0; l < static_cast<int64_t>(net.links().size()); ++l) capacity_.push_back(fabric.capacity(l));
  for (int64_t n = 0; n < static_cast<int64_t>(net.nic.size()); ++n)
    capacity_[static_cast<size_t>(fabric.nic_port(n))] /= faults.slowdown(FaultTarget::NIC, n);
  auto& sg = links_;
  sg.assign(net.links().size(), nullptr);
  auto* star = new FabricZone(fabric, links_);  // owned by SimGrid's engine from here on
  sg4::NetZone* zone = star->get_iface();
  const auto link = [&](int64_t l) {
    sg4::Link*& out = sg[static_cast<size_t>(l)];
    if (out) return out;
    out = zone->create_split_duplex_link("l" + std::to_string(l), capacity_[static_cast<size_t>(l)]);
    out->set_latency(net.links()[static_cast<size_t>(l)].latency.value);
    out->seal();
    return out;
  };

  std::vector<double> class_slowdown(static_cast<size_t>(pipeline_ranks), 1.0);
  for (int64_t e = 0; e < fabric.gpus(); ++e) {
    double& cls = class_slowdown[static_cast<size_t>(place.coord(e).pp)];
    cls = std::max(cls, faults.slowdown(FaultTarget::GPU, e));
  }
  end_.assign(static_cast<size_t>(fabric.ends()), nullptr);
  const auto add_end = [&](int64_t e) {
    if (end_[static_cast<size_t>(e)]) return;
    const bool gpu = e < fabric.gpus();
    const double slow = gpu ? faults.slowdown(FaultTarget::GPU, e) : 1.0;
    auto* h = zone->create_host((gpu ? "gpu-" : "end-") + std::to_string(e), 1e12 / slow);
    std::vector<sg4::LinkInRoute> route;
    for (int64_t l : fabric.climb(e)) route.emplace_back(link(l), sg4::LinkInRoute::Direction::UP);
    zone->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, route, true);
    end_[static_cast<size_t>(e)] = h;
    star->add_end(h->get_netpoint(), e);
  };
  if (only.empty()) {
    for (int64_t e = 0; e < fabric.ends(); ++e) add_end(e);
  } else {
    for (int64_t e : only) add_end(e);
  }
  for (int64_t r = 0; r < pipeline_ranks; ++r)
    class_.push_back(zone->create_host("class-" + std::to_string(r), 1e12 / class_slowdown[static_cast<size_t>(r)]));
  control_ = zone->create_host("control", 1e12);
  // Every torus link and circuit a route may take, created before the zone is sealed: all of them,
  // or those between the ends that have hosts.
  if (only.empty()) {
    for (const TorusLayout& t : net.tori)
      for (const auto& hop : t.hop)
        for (int64_t l : hop)
          if (l >= 0) link(l);
    for (int64_t r : net.direct.router)
      for (const auto& [w, l] : net.adjacent(r))
        if (net.vertices()[static_cast<size_t>(w)].kind == VertexKind::SWITCH) link(l);
    for (int64_t n = 0; n < static_cast<int64_t>(net.nic.size()); ++n) nic_link_.push_back(link(fabric.nic_port(n)));
  } else {
    for (int64_t a : only)
      for (int64_t b : only)
        if (a != b)
          for (const TorusHop& h : fabric.end_hops(a, b)) link(h.link);
  }
  zone->seal();
}

sg4::Host* Platform::gpu_host(int64_t gpu) const {
  sg4::Host* h = end_[static_cast<size_t>(gpu)];
  SIM_ASSERT(h, "a GPU's host that the platform left out was asked for");
  return h;
}

sg4::Link* Platform::nic_link(int64_t nic) const {
  SIM_ASSERT(static_cast<size_t>(nic) < nic_link_.size(), "a NIC's link that the platform left out was asked for");
  return nic_link_[static_cast<size_t>(nic)];
}

std::pair<sg4::Host*, sg4::Host*> Platform::endpoints(int64_t a, int64_t b) const {
  const auto [ea, eb] = fabric_->ends(a, b);
  sg4::Host *from = end_[static_cast<size_t>(ea)], *to = end_[static_cast<size_t>(eb)];
  SIM_ASSERT(from && to, "a route end that the platform left out was asked for");
  return {from, to};
}

}  // namespace sim
