#include "sim/topology/direct.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>
#include <utility>

#include "sim/topology/fat_tree.hpp"

namespace sim {

void build_direct(Network& net, const DirectShape& s) {
  if (s.nodes < 1 || s.gpus_per_node < 1 || s.nics_per_node < 1 ||
      static_cast<int64_t>(net.gpu.size()) != s.nodes * s.gpus_per_node)
    throw std::invalid_argument("build_direct: the shape does not tile the cluster");
  for (const Circuit& c : s.circuits)
    if (c[0] < 0 || c[1] < 0 || c[0] >= s.nodes || c[1] >= s.nodes || c[0] == c[1])
      throw std::invalid_argument("build_direct: a circuit outside the cluster's nodes or to its own node");
  for (int64_t used : ports_used(s.nodes, s.circuits))
    if (used > s.nics_per_node) throw std::invalid_argument("build_direct: a node with more circuits than ports");

  DirectLayout& d = net.direct;
  d.nodes = s.nodes;
  net.nic_of_gpu.assign(net.gpu.size(), -1);
  net.nic.clear();
  const Seconds half(s.latency.value / 2);
  for (int64_t n = 0; n < s.nodes; ++n) {
    d.router.push_back(net.add_vertex(VertexKind::SWITCH, 1));
    for (int64_t r = 0; r < s.nics_per_node; ++r)
      add_node_nic(net, n, r, s.gpus_per_node, s.nics_per_node, s.nic_bandwidth, d.router.back(), half);
  }
  // One link per joined pair, in the order the pairs first appear, carrying all their circuits.
  std::map<std::pair<int64_t, int64_t>, int64_t> count;
  std::vector<std::pair<int64_t, int64_t>> order;
  for (const Circuit& c : s.circuits) {
    const auto key = std::minmax(c[0], c[1]);
    if (count[key]++ == 0) order.push_back(key);
  }
  std::vector<std::vector<std::pair<int64_t, int64_t>>> adjacent(static_cast<size_t>(s.nodes));  // (node, link)
  for (const auto& [a, b] : order) {
    const int64_t l = net.add_link(d.router[static_cast<size_t>(a)], d.router[static_cast<size_t>(b)],
                                   s.nic_bandwidth * double(count[{a, b}]), s.latency);
    adjacent[static_cast<size_t>(a)].emplace_back(b, l);
    adjacent[static_cast<size_t>(b)].emplace_back(a, l);
  }
  // Toward each node v, a breadth-first search from v: every node's first hop is the link to the
  // node that discovered it.
  d.next.assign(static_cast<size_t>(s.nodes * s.nodes), -1);
  std::vector<char> seen(static_cast<size_t>(s.nodes));
  std::deque<int64_t> queue;
  for (int64_t v = 0; v < s.nodes; ++v) {
    std::fill(seen.begin(), seen.end(), 0);
    seen[static_cast<size_t>(v)] = 1;
    queue.assign(1, v);
    while (!queue.empty()) {
      const int64_t u = queue.front();
      queue.pop_front();
      for (const auto& [w, l] : adjacent[static_cast<size_t>(u)]) {
        if (seen[static_cast<size_t>(w)]) continue;
        seen[static_cast<size_t>(w)] = 1;
        d.next[static_cast<size_t>(w * s.nodes + v)] = static_cast<int32_t>(l);
        queue.push_back(w);
      }
    }
  }
}

void direct_route(const Network& net, int64_t from, int64_t to, std::vector<TorusHop>& out) {
  out.clear();
  const DirectLayout& d = net.direct;
  for (int64_t at = from; at != to;) {
    const int64_t l = d.next_hop(at, to);
    if (l < 0) throw std::logic_error("direct_route: no circuits join the two nodes");
    const int64_t router = d.router[static_cast<size_t>(at)];
    out.push_back({l, net.links()[static_cast<size_t>(l)].a == router});
    // The next router's node (routers are vertices in node order).
    at = std::lower_bound(d.router.begin(), d.router.end(), net.other_end(l, router)) - d.router.begin();
  }
}

}  // namespace sim
