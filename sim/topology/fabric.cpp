#include "sim/topology/fabric.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "sim/scenario/cluster.hpp"
#include "sim/topology/builders.hpp"
#include "sim/topology/direct.hpp"

namespace sim {

std::shared_ptr<const Fabric> Fabric::of(const ClusterSpec& c) {
  // Everything the network (its layouts too: a torus's cubes, which its cost reads) and the
  // capacities are built from.
  const auto& k = c.device.collectives;
  const auto key = std::make_tuple(
      c.gpus, c.gpus_per_node, c.domain_gpus(), c.scale_up.kind, c.scale_up.bandwidth.value, c.scale_up.latency.value,
      c.scale_out.kind, c.scale_out.nics_per_node, c.scale_out.nic_bandwidth.value, c.scale_out.oversubscription,
      c.scale_out.pod_gpus, c.scale_out.latency.value, k.scale_up_efficiency, k.scale_out_efficiency, c.scale_up.dims,
      c.scale_up.twisted, c.scale_up.cube, c.scale_up.ocs, c.scale_out.circuits);
  static std::mutex mutex;
  static std::optional<std::decay_t<decltype(key)>> last_key;
  static std::shared_ptr<const Fabric> last;
  std::lock_guard<std::mutex> lock(mutex);
  if (!last || last_key != key) {
    last.reset();  // at most one at a time: a 131,072-GPU fabric holds about 100 MB
    last = std::make_shared<const Fabric>(c);
    last_key = key;
  }
  return last;
}

Fabric::Fabric(const ClusterSpec& c) : net_(build_network(c)) {
  static std::atomic<uint64_t> built{0};
  serial_ = ++built;
  const auto& k = c.device.collectives;
  const auto kind = [&](int64_t v) { return net_.vertices()[static_cast<size_t>(v)].kind; };
  const auto tier = [&](int64_t v) { return net_.vertices()[static_cast<size_t>(v)].tier; };
  torus_.assign(net_.gpu.size(), -1);
  for (size_t t = 0; t < net_.tori.size(); ++t)
    for (size_t c = 0; c < net_.tori[t].router.size(); ++c)
      torus_[static_cast<size_t>(net_.tori[t].first_gpu) + c] = static_cast<int64_t>(t);
  const std::vector<bool> scale_up = net_.scale_up_links();
  for (size_t l = 0; l < net_.links().size(); ++l)
    capacity_.push_back(net_.links()[l].bandwidth.value *
                        (scale_up[l] ? k.scale_up_efficiency : k.scale_out_efficiency));
  for (int64_t v : net_.gpu) {
    std::vector<int64_t> port;
    for (const auto& [w, l] : net_.adjacent(v))
      if (kind(w) == VertexKind::SWITCH) port.push_back(l);
    if (port.size() != 1) throw std::logic_error("Fabric: a GPU without exactly one scale-up switch");
    climb_.push_back(port);
    domain_.push_back(net_.other_end(port.front(), v));
  }
  // Whether vertex v's uplink l can bind: less capacity than v's links below it.
  const auto binds = [&](int64_t v, int64_t l) {
    double below = 0;
    for (const auto& [w, m] : net_.adjacent(v))
      if (m != l) below += net_.links()[static_cast<size_t>(m)].bandwidth.value;
    return net_.links()[static_cast<size_t>(l)].bandwidth.value < below;
  };
  std::vector<int64_t> nic_index(net_.vertices().size(), -1);
  for (size_t n = 0; n < net_.nic.size(); ++n) {
    int64_t v = net_.nic[n];
    nic_index[static_cast<size_t>(v)] = static_cast<int64_t>(n);
    std::vector<int64_t> above{v};
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
      if (static_cast<int>(above.size()) != tier(v)) tree_ = false;  // tiers skipped: not a layered tree
      above.push_back(v);
      up = net_.up_link(v);
      if (up < 0) break;
      if (binds(v, up)) climb.push_back(up);
    }
    nic_end_.push_back(std::move(by_tier));
    above_.push_back(std::move(above));
  }
  for (size_t g = 0; g < net_.gpu.size(); ++g) {
    const int64_t nic = g < net_.nic_of_gpu.size() ? net_.nic_of_gpu[g] : -1;
    gpu_nic_.push_back(nic < 0 ? -1 : nic_index[static_cast<size_t>(nic)]);
  }
  // A direct-connect network's NIC ends: each NIC's port into its node's router (tier 1).
  end_node_.assign(static_cast<size_t>(ends()), -1);
  const auto& routers = net_.direct.router;
  for (size_t n = 0; n < above_.size() && !routers.empty(); ++n) {
    const auto at = std::lower_bound(routers.begin(), routers.end(), above_[n].at(1));
    if (at == routers.end() || *at != above_[n][1]) throw std::logic_error("Fabric: a NIC on no node's router");
    end_node_[static_cast<size_t>(nic_end_[n].at(1))] = at - routers.begin();
  }
}

std::pair<int64_t, int64_t> Fabric::ends(int64_t a, int64_t b) const {
  // The network's route (fewest hops, network.hpp): through the shared scale-up switch, else up
  // from the two NICs to the lowest switch they share. Climbed on the NICs' chains when the
  // fabric is a layered tree (what the builders make), searched on the graph otherwise.
  if (domain_[static_cast<size_t>(a)] == domain_[static_cast<size_t>(b)]) return {a, b};
  const int64_t ta = torus_[static_cast<size_t>(a)];
  if (ta >= 0 && ta == torus_[static_cast<size_t>(b)]) return {a, b};
  const int64_t na = gpu_nic_[static_cast<size_t>(a)], nb = gpu_nic_[static_cast<size_t>(b)];
  if (na < 0 || nb < 0) throw std::logic_error("Fabric: no route between GPUs of different domains");
  if (!net_.direct.router.empty())  // from router to router along the circuits (end_hops)
    return {nic_end_[static_cast<size_t>(na)].at(1), nic_end_[static_cast<size_t>(nb)].at(1)};
  int top = 0;
  if (tree_) {
    const auto &ua = above_[static_cast<size_t>(na)], &ub = above_[static_cast<size_t>(nb)];
    while (static_cast<size_t>(top) < std::min(ua.size(), ub.size()) &&
           ua[static_cast<size_t>(top)] != ub[static_cast<size_t>(top)])
      ++top;
    if (static_cast<size_t>(top) == std::min(ua.size(), ub.size()))
      throw std::logic_error("Fabric: NICs without a common switch");
  } else {
    const auto& vertex = [&](int64_t v) { return net_.vertices()[static_cast<size_t>(v)]; };
    for (int64_t l : net_.route(net_.gpu[static_cast<size_t>(a)], net_.gpu[static_cast<size_t>(b)])) {
      const Link& n = net_.links()[static_cast<size_t>(l)];
      top = std::max({top, vertex(n.a).tier, vertex(n.b).tier});
    }
  }
  return {nic_end_[static_cast<size_t>(na)][static_cast<size_t>(top)],
          nic_end_[static_cast<size_t>(nb)][static_cast<size_t>(top)]};
}

const std::vector<TorusHop>& Fabric::hops(int64_t a, int64_t b) const {
  if (a == b) return end_hops(a, a);
  const auto [ea, eb] = ends(a, b);
  return end_hops(ea, eb);
}

const std::vector<TorusHop>& Fabric::end_hops(int64_t ea, int64_t eb) const {
  thread_local std::vector<TorusHop> out;
  out.clear();
  if (ea == eb) return out;
  if (ea < gpus() && eb < gpus()) {
    const int64_t t = torus_[static_cast<size_t>(ea)];
    if (t < 0 || t != torus_[static_cast<size_t>(eb)]) return out;
    const TorusLayout& layout = net_.tori[static_cast<size_t>(t)];
    torus_route(net_, layout, ea - layout.first_gpu, eb - layout.first_gpu, out);
    return out;
  }
  const int64_t u = end_node_[static_cast<size_t>(ea)], v = end_node_[static_cast<size_t>(eb)];
  if (u >= 0 && v >= 0 && u != v) direct_route(net_, u, v, out);
  return out;
}

bool Fabric::joined(int64_t u, int64_t v) const {
  const DirectLayout& d = net_.direct;
  if (u == v || u < 0 || v < 0 || u >= d.nodes || v >= d.nodes) return false;
  const int64_t l = d.next_hop(u, v);
  return l >= 0 && net_.other_end(l, d.router[static_cast<size_t>(u)]) == d.router[static_cast<size_t>(v)];
}

}  // namespace sim
