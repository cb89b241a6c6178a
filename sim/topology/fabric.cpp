#include "sim/topology/fabric.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sim/scenario/cluster.hpp"
#include "sim/topology/builders.hpp"

namespace sim {

Fabric::Fabric(const ClusterSpec& c) : net_(build_network(c)) {
  const auto& k = c.device.collectives;
  const auto kind = [&](int64_t v) { return net_.vertices()[static_cast<size_t>(v)].kind; };
  const auto tier = [&](int64_t v) { return net_.vertices()[static_cast<size_t>(v)].tier; };
  for (const Link& l : net_.links()) {
    const bool nvlink = kind(l.a) == VertexKind::GPU || kind(l.b) == VertexKind::GPU;
    capacity_.push_back(l.bandwidth.value * (nvlink ? k.scale_up_efficiency : k.scale_out_efficiency));
  }
  for (int64_t v : net_.gpu) {
    std::vector<int64_t> port;
    for (const auto& [w, l] : net_.adjacent(v))
      if (kind(w) == VertexKind::SWITCH) port.push_back(l);
    if (port.size() != 1) throw std::logic_error("Fabric: a GPU without exactly one scale-up switch");
    climb_.push_back(port);
  }
  // Whether vertex v's uplink l can bind: less capacity than v's links below it.
  const auto binds = [&](int64_t v, int64_t l) {
    double below = 0;
    for (const auto& [w, m] : net_.adjacent(v))
      if (m != l) below += net_.links()[static_cast<size_t>(m)].bandwidth.value;
    return net_.links()[static_cast<size_t>(l)].bandwidth.value < below;
  };
  nic_index_.assign(net_.vertices().size(), -1);
  for (size_t n = 0; n < net_.nic.size(); ++n) {
    int64_t v = net_.nic[n];
    nic_index_[static_cast<size_t>(v)] = static_cast<int64_t>(n);
    int64_t up = net_.up_link(v);
    if (up < 0) throw std::logic_error("Fabric: a NIC without one switch above it");
    nic_port_.push_back(up);
    std::vector<int64_t> climb{up};
    std::map<std::vector<int64_t>, int64_t> end_of;
    std::vector<int64_t> by_tier;
    for (v = net_.other_end(up, v);; v = net_.other_end(up, v)) {
      auto [it, fresh] = end_of.try_emplace(climb, ends());
      if (fresh) climb_.push_back(climb);
      by_tier.resize(static_cast<size_t>(tier(v)) + 1, it->second);
      up = net_.up_link(v);
      if (up < 0) break;
      if (binds(v, up)) climb.push_back(up);
    }
    nic_end_.push_back(std::move(by_tier));
  }
}

std::pair<int64_t, int64_t> Fabric::ends(int64_t a, int64_t b) const {
  const int64_t va = net_.gpu[static_cast<size_t>(a)], vb = net_.gpu[static_cast<size_t>(b)];
  const auto path = net_.route(va, vb);
  const auto& vertex = [&](int64_t v) { return net_.vertices()[static_cast<size_t>(v)]; };
  if (path.size() == 2 && vertex(net_.other_end(path[0], va)).kind == VertexKind::SWITCH) return {a, b};
  int top = 0;  // the highest switch on the way is where the two NICs meet
  for (int64_t l : path) {
    const Link& n = net_.links()[static_cast<size_t>(l)];
    top = std::max({top, vertex(n.a).tier, vertex(n.b).tier});
  }
  const auto end = [&](int64_t g) {
    const auto& by_tier =
        nic_end_[static_cast<size_t>(nic_index_[static_cast<size_t>(net_.nic_of_gpu[static_cast<size_t>(g)])])];
    return by_tier[static_cast<size_t>(top)];
  };
  return {end(a), end(b)};
}

}  // namespace sim
