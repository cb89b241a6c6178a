// The routes transfers take between GPUs and the capacity of each link they cross: what the
// engine simulates (sim/engine/platform.cpp builds its SimGrid platform from this) and what the
// estimates price (sim/comm/comm_costs.cpp, resource_estimate.cpp). One place decides them.
//
// A route runs between two *ends*. Ends [0, gpus) are the GPUs' NVLink ports: a transfer between
// two GPUs of one scale-up domain goes up the sender's port and down the receiver's. The other
// ends belong to NICs: one per tier of switch where the NIC can meet another, whose *climb* is
// the NIC's port and the uplinks on the way there. A transfer between GPUs of different domains
// runs between their NICs' ends at the tier of the NICs' lowest common switch: up the sender's
// climb, down the receiver's -- exactly the network's route (network.hpp), less the links that
// cannot bind:
// - a GPU's link to its NIC carries only traffic that the NIC's own port carries too;
// - an uplink whose capacity is at least the sum of the links below it (a full-bisection leaf,
//   or a pod at 1:1) can never fill before all of those do.
// Max-min sharing is the same without them, and flows that would meet only there stay
// independent (the engine folds flows on links nothing else uses, replay.cpp "Folding"). A NIC's
// ends whose climbs are then equal are one end: on a full-bisection fabric a NIC has one.
//
// On a torus (torus.hpp) every chip has a router of its own. A transfer between chips of one torus
// runs between their GPU ends, its route up the sender's port, along the torus hops between the
// two routers (torus_route: dimension-ordered) and down the receiver's port; chips of different
// tori meet through their NICs as other domains do.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "sim/topology/network.hpp"
#include "sim/topology/torus.hpp"

namespace sim {

struct ClusterSpec;

class Fabric {
 public:
  // The fabric of `cluster`, shared: built once per distinct network (what the fabric depends on)
  // in this process, so that planning many candidates on one cluster builds it once.
  static std::shared_ptr<const Fabric> of(const ClusterSpec& cluster);

  explicit Fabric(const ClusterSpec& cluster);

  const Network& network() const { return net_; }
  // Unique per fabric built in this process (an address may be reused once one is freed).
  uint64_t serial() const { return serial_; }
  int64_t gpus() const { return static_cast<int64_t>(net_.gpu.size()); }
  int64_t ends() const { return static_cast<int64_t>(climb_.size()); }
  // The network links from the end up, in order.
  const std::vector<int64_t>& climb(int64_t end) const { return climb_[static_cast<size_t>(end)]; }
  // The ends of a transfer from GPU a to GPU b (a != b).
  std::pair<int64_t, int64_t> ends(int64_t a, int64_t b) const;
  // NIC n's port (n: global index, node * nics_per_node + rail), the link a NIC fault acts on.
  int64_t nic_port(int64_t nic) const { return nic_port_[static_cast<size_t>(nic)]; }
  // What a link carries each way: its line rate times the device's achieved fraction on its
  // tier (scale_up_efficiency on NVLink, scale_out_efficiency on the network; busbw/line rate).
  double capacity(int64_t link) const { return capacity_[static_cast<size_t>(link)]; }

  // Directed link ids for pricing: a route's links are its source's climb going up and its
  // destination's coming down.
  static uint64_t up(int64_t link) { return static_cast<uint64_t>(link) * 2 + 1; }
  static uint64_t down(int64_t link) { return static_cast<uint64_t>(link) * 2; }
  template <class F>
  void for_each_link(int64_t a, int64_t b, F&& f) const {  // f(directed id, link) along a -> b
    const auto [ea, eb] = ends(a, b);
    for (int64_t l : climb(ea)) f(up(l), l);
    for (const TorusHop& h : end_hops(ea, eb)) f(h.a_to_b ? up(h.link) : down(h.link), h.link);
    for (auto it = climb(eb).rbegin(); it != climb(eb).rend(); ++it) f(down(*it), *it);
  }
  // The latency of a transfer from GPU a to GPU b (a != b): the sum of its route's link latencies,
  // which the engine's platform gives the same links (sim/engine/platform.cpp) and SimGrid charges
  // each flow once before it moves bytes.
  Seconds route_latency(int64_t a, int64_t b) const {
    Seconds t;
    for_each_link(a, b, [&](uint64_t, int64_t l) { t += net_.links()[static_cast<size_t>(l)].latency; });
    return t;
  }
  // The hops between the ends' climbs of a transfer from GPU a to GPU b: along the torus when both
  // sit in one, along the circuits when they sit in different nodes of a direct-connect network,
  // else none. Valid until the next call on this thread.
  const std::vector<TorusHop>& hops(int64_t a, int64_t b) const;
  // The same between two ends (what ends() gives for a transfer).
  const std::vector<TorusHop>& end_hops(int64_t ea, int64_t eb) const;
  // Whether circuits of a direct-connect network join nodes u and v (adjacent routers).
  bool joined(int64_t u, int64_t v) const;
  // The torus GPU g sits in (an index into network().tori), -1 for none.
  int64_t torus_of(int64_t g) const { return torus_[static_cast<size_t>(g)]; }

 private:
  Network net_;
  uint64_t serial_ = 0;
  std::vector<std::vector<int64_t>> climb_;
  std::vector<std::vector<int64_t>> nic_end_;  // per NIC, per tier of the meeting switch
  std::vector<std::vector<int64_t>> above_;    // per NIC, the switch above it at each tier (0: itself)
  std::vector<int64_t> nic_port_;
  std::vector<int64_t> domain_, gpu_nic_;  // per GPU: its scale-up switch, its NIC's index (-1: none)
  std::vector<int64_t> torus_;             // per GPU: its torus (-1: none)
  std::vector<int64_t> end_node_;          // per end: its node on a direct-connect network (-1: none)
  bool tree_ = true;                       // every NIC climbs a single chain (else ends() searches)
  std::vector<double> capacity_;
};

}  // namespace sim
