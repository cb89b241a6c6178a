// The builders (sim/topology/nvswitch.hpp, fat_tree.hpp, builders.hpp) against their sketches:
// vertex and link counts, hop counts between GPUs, and bisection bandwidth from the link budget;
// the DGX H100 SuperPOD and GB200 NVL72 files and Llama 3's RoCE cluster (Llama 3, arXiv:2407.21783 §3.3.1).
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <numeric>
#include <set>

#include "sim/core/params.hpp"
#include "sim/scenario/cluster.hpp"
#include "sim/scenario/plan.hpp"
#include "sim/topology/builders.hpp"
#include "sim/topology/fabric.hpp"
#include "sim/topology/fat_tree.hpp"
#include "sim/topology/nvswitch.hpp"
#include "sim/topology/placement.hpp"

using namespace sim;

namespace {

std::vector<int64_t> gpus(const Network& n, int64_t first, int64_t count) {
  return {n.gpu.begin() + first, n.gpu.begin() + first + count};
}

// Nodes of 8 GPUs and 8 NICs (25 GB/s), leaves of 4 nodes per rail, pods of 8 nodes, 1:4 above.
FatTreeShape rails_shape(int64_t nodes) {
  FatTreeShape s;
  s.nodes = nodes;
  s.nic_bandwidth = BytesPerSecond(25e9);
  s.pod_nodes = 8;
  s.leaf_nodes = 4;
  s.oversubscription = 4;
  return s;
}

size_t hops(const Network& n, int64_t a, int64_t b) {
  return n.route(n.gpu[static_cast<size_t>(a)], n.gpu[static_cast<size_t>(b)]).size();
}

}  // namespace

TEST_CASE("nvswitch: a switch per domain, each GPU one NVLink port: NVL72 is one domain of 72", "[topology]") {
  Network n;
  build_nvswitch(n, {144, 72, BytesPerSecond(900e9), Seconds(1e-6)});  // two GB200 NVL72 racks
  CHECK(n.count(VertexKind::SWITCH, 1) == 2);
  CHECK(n.links_between(0, 1) == 144);
  CHECK(hops(n, 0, 71) == 2);    // GPU - NVSwitch - GPU
  CHECK_THROWS(hops(n, 0, 72));  // another rack: only the scale-out network joins them
  // Half a domain against the other half: 36 GPUs' ports.
  CHECK(n.max_flow(gpus(n, 0, 36), gpus(n, 36, 36)).value == Approx(36 * 900e9));
  Network bad;
  CHECK_THROWS_AS(build_nvswitch(bad, {10, 8, BytesPerSecond(1), Seconds(0)}), std::invalid_argument);
}

TEST_CASE("fat-tree, rail-optimised: counts, hops and bisection from the sketch", "[topology]") {
  const FatTreeShape s = rails_shape(16);
  Network n;
  build_nvswitch(n, {128, 8, BytesPerSecond(300e9), Seconds(0)});
  build_fat_tree(n, s);
  CHECK(n.count(VertexKind::NIC, 0) == 16 * 8);
  CHECK(n.count(VertexKind::SWITCH, 1) == 16 + 2 * 2 * 8);  // NVSwitches, then leaves: pods x groups x rails
  CHECK(n.count(VertexKind::SWITCH, 2) == 2);               // a spine per pod
  CHECK(n.count(VertexKind::SWITCH, 3) == 1);               // the core
  CHECK(n.links_between(0, 0) == 128);                      // GPU - NIC
  CHECK(n.links_between(2, 3) == 2);                        // pod uplinks
  // Hops: same node through NVSwitch; same rail and leaf; same rail, another leaf of the pod;
  // another rail (up to the spine); another pod.
  CHECK(hops(n, 0, 7) == 2);
  CHECK(hops(n, 0, 8) == 4);      // node 0 GPU 0 -> node 1 GPU 0
  CHECK(hops(n, 0, 4 * 8) == 6);  // node 4 (second leaf group)
  CHECK(hops(n, 0, 8 + 1) == 6);  // node 1 GPU 1: rail 1
  CHECK(hops(n, 0, 8 * 8) == 8);  // node 8: pod 1
  // Every GPU hangs off the NIC Placement assigns it.
  for (int64_t g = 0; g < 128; ++g) {
    const auto& links = n.links();
    const auto nic = n.nic_of_gpu[static_cast<size_t>(g)];
    CHECK(n.vertices()[static_cast<size_t>(nic)].kind == VertexKind::NIC);
    CHECK(std::any_of(links.begin(), links.end(),
                      [&](const Link& l) { return l.a == n.gpu[static_cast<size_t>(g)] && l.b == nic; }));
  }
  // Bisection: inside a pod, full (half the pod's NICs); between pods, the uplink at 1:4.
  CHECK(n.max_flow(gpus(n, 0, 32), gpus(n, 32, 32)).value == Approx(4 * 8 * 25e9));
  CHECK(n.max_flow(gpus(n, 0, 64), gpus(n, 64, 64)).value == Approx(8 * 8 * 25e9 / 4));
}

TEST_CASE("Llama 3's RoCE cluster: racks of 16 GPUs, pods of 192 racks at full bisection, 1:7 above", "[topology]") {
  // Llama 3 §3.3.1 (arXiv:2407.21783): 24K GPUs; a Minipack2 ToR per rack of 2 servers (16 GPUs);
  // 192 racks = 3,072 GPUs per pod at full bisection; 8 pods at 1:7; 400 Gb/s per GPU.
  FatTreeShape s;
  s.nodes = 3072;
  s.nic_bandwidth = BytesPerSecond(50e9);
  s.pod_nodes = 384;
  s.rail_optimised = false;
  s.leaf_nodes = 2;
  s.oversubscription = 7;
  Network n;
  build_nvswitch(n, {24576, 8, BytesPerSecond(450e9), Seconds(0)});
  build_fat_tree(n, s);
  CHECK(n.count(VertexKind::SWITCH, 1) - 3072 == 8 * 192);  // ToRs (less the NVSwitches)
  CHECK(n.count(VertexKind::SWITCH, 2) == 8);
  CHECK(hops(n, 0, 8) == 4);     // the other server of the rack, through the ToR
  CHECK(hops(n, 0, 16) == 6);    // another rack of the pod
  CHECK(hops(n, 0, 3072) == 8);  // another pod
  // A pod's two halves exchange at full bisection: 1,536 GPUs x 50 GB/s; two pods at 1:7.
  CHECK(n.max_flow(gpus(n, 0, 1536), gpus(n, 1536, 1536)).value == Approx(1536 * 50e9));
  CHECK(n.max_flow(gpus(n, 0, 3072), gpus(n, 3072, 3072)).value == Approx(3072 * 50e9 / 7));
}

TEST_CASE("build_network: the DGX H100 SuperPOD file as scalable units of 32 nodes", "[topology]") {
  const auto c = ClusterSpec::parse(ParamReader::load_file(TRAINSIM_SOURCE_DIR "/topologies/dgx-h100-superpod.json"),
                                    TRAINSIM_SOURCE_DIR);
  const Network n = build_network(c);
  CHECK(n.count(VertexKind::GPU, 0) == 2048);
  CHECK(n.count(VertexKind::SWITCH, 1) == 256 + 8 * 8);  // NVSwitches + 8 SUs x 8 rail leaves (RA-11333)
  CHECK(n.count(VertexKind::SWITCH, 3) == 0);            // one pod: no core
  ParallelPlan plan;
  plan.tp = 8;
  plan.dp = 256;
  const Placement place(c, plan);
  std::vector<int64_t> nics;  // NIC vertices in creation order: node-major, rail-minor
  for (size_t v = 0; v < n.vertices().size(); ++v)
    if (n.vertices()[v].kind == VertexKind::NIC) nics.push_back(static_cast<int64_t>(v));
  for (int64_t g = 0; g < 2048; g += 37)
    CHECK(n.nic_of_gpu[static_cast<size_t>(g)] == nics[static_cast<size_t>(place.nic(g))]);
  CHECK(n.nic == nics);  // Network::nic lists them by global index
  CHECK(n.max_flow(gpus(n, 0, 1024), gpus(n, 1024, 1024)).value == Approx(1024 * 50e9));
}

TEST_CASE("routes climb to the lowest common switch: the same links as a breadth-first search", "[topology]") {
  // route() takes the tree's shortcut (up from each NIC to where they meet); search_route() is the
  // plain fewest-hop search. On every builder's fabric they must agree, link for link.
  const FatTreeShape rails = rails_shape(16);
  FatTreeShape tor = rails;
  tor.rail_optimised = false;
  tor.leaf_nodes = 2;
  tor.nics_per_node = 4;  // two GPUs per NIC
  for (const auto& shape : {rails, tor}) {
    Network n;
    build_nvswitch(n, {128, 8, BytesPerSecond(300e9), Seconds(0)});
    build_fat_tree(n, shape);
    for (int64_t a = 0; a < 128; a += 3)
      for (int64_t b = 0; b < 128; b += 5) {
        const int64_t va = n.gpu[static_cast<size_t>(a)], vb = n.gpu[static_cast<size_t>(b)];
        CHECK(n.route(va, vb) == n.search_route(va, vb));
      }
  }
}

TEST_CASE("fat-tree: a last, partial pod has the uplink of its own NICs", "[topology]") {
  // 12 nodes in pods of 8: pod 0 has 8 nodes, pod 1 the other 4 (a job on part of a cluster, as
  // Llama 3 405B's 16k GPUs on the 24k cluster's 3,072-GPU pods). At 1:4 each pod's uplink carries
  // its NICs' bandwidth / 4, so between the pods the smaller, 4 x 8 x 25 GB/s / 4, is the cut.
  FatTreeShape s = rails_shape(12);
  Network n;
  build_nvswitch(n, {96, 8, BytesPerSecond(300e9), Seconds(0)});
  build_fat_tree(n, s);
  CHECK(n.count(VertexKind::SWITCH, 2) == 2);
  CHECK(n.count(VertexKind::SWITCH, 1) - 12 == (2 + 1) * 8);  // leaf groups x rails
  CHECK(n.max_flow(gpus(n, 0, 64), gpus(n, 64, 32)).value == Approx(4 * 8 * 25e9 / 4));
  s.leaf_nodes = 3;  // divides neither pod
  Network bad;
  build_nvswitch(bad, {96, 8, BytesPerSecond(300e9), Seconds(0)});
  CHECK_THROWS_AS(build_fat_tree(bad, s), std::invalid_argument);
}

TEST_CASE("build_network: the DGX B200 SuperPOD file, 900 GB/s NVLink ports and 400 Gb/s rails", "[topology]") {
  // DGX B200 User Guide: NVSwitch 14.4 TB/s aggregate over 8 GPUs = 900 GB/s per GPU per direction;
  // 8 ConnectX-7 at 400 Gb/s = 50 GB/s each. Half a node against the other half: 4 NVLink ports,
  // plus 4 NICs through the rail leaves; half the cluster against the other: 1,024 NICs (full
  // bisection).
  const auto c = ClusterSpec::parse(ParamReader::load_file(TRAINSIM_SOURCE_DIR "/topologies/dgx-b200-superpod.json"),
                                    TRAINSIM_SOURCE_DIR);
  const Network n = build_network(c);
  CHECK(n.count(VertexKind::GPU, 0) == 2048);
  CHECK(n.count(VertexKind::NIC, 0) == 2048);
  CHECK(n.max_flow(gpus(n, 0, 4), gpus(n, 4, 4)).value == Approx(4 * 900e9 + 4 * 50e9));
  CHECK(n.max_flow(gpus(n, 0, 1024), gpus(n, 1024, 1024)).value == Approx(1024 * 50e9));
  CHECK(hops(n, 0, 7) == 2);
  CHECK(hops(n, 0, 8) == 4);  // the next node's GPU 0: same rail, same leaf
}

TEST_CASE("build_network: the GB200 NVL72 file, racks of 72 GPUs on NVLink across trays of 4", "[topology]") {
  // GB200 NVL72 datasheet: 72 GPUs per rack in 18 compute trays of 4, one NVLink domain at 1.8 TB/s
  // per GPU bidirectional (900 GB/s per direction; 72 x 1.8 TB/s = 129.6 ~ 130 TB/s per rack);
  // 4 ConnectX-7 at 400 Gb/s (50 GB/s) per tray, one per GPU; 8 racks at full bisection.
  const auto c = ClusterSpec::parse(ParamReader::load_file(TRAINSIM_SOURCE_DIR "/topologies/gb200-nvl72.json"),
                                    TRAINSIM_SOURCE_DIR);
  constexpr int64_t RACKS = 8, RACK = 72, TRAY = 4;
  constexpr double PORT = 900e9, NIC = 400e9 / 8;
  CHECK(c.gpus_per_node == TRAY);
  CHECK(c.domain_gpus() == RACK);
  CHECK(2 * RACK * c.scale_up.bandwidth.value == Approx(130e12).epsilon(0.01));
  const Network n = build_network(c);
  const auto kind = [&](int64_t v) { return n.vertices()[static_cast<size_t>(v)].kind; };
  CHECK(n.count(VertexKind::GPU, 0) == RACKS * RACK);
  CHECK(n.count(VertexKind::NIC, 0) == RACKS * RACK / TRAY * 4);  // 4 NICs per tray
  // One NVSwitch per rack, each with the rack's 72 GPUs' ports and nothing else.
  std::map<int64_t, int64_t> ports;  // switch -> GPU links
  for (const Link& l : n.links()) {
    if (kind(l.a) == VertexKind::GPU && kind(l.b) == VertexKind::SWITCH) ++ports[l.b];
    if (kind(l.b) == VertexKind::GPU && kind(l.a) == VertexKind::SWITCH) ++ports[l.a];
  }
  CHECK(ports.size() == size_t(RACKS));
  for (const auto& [sw, count] : ports) CHECK(count == RACK);
  // Each tray's 4 GPUs send through 4 distinct NICs.
  for (int64_t tray = 0; tray < RACKS * RACK / TRAY; tray += 7) {
    std::set<int64_t> nics;
    for (int64_t g = tray * TRAY; g < (tray + 1) * TRAY; ++g) nics.insert(n.nic_of_gpu[static_cast<size_t>(g)]);
    CHECK(nics.size() == size_t(TRAY));
  }
  const auto touches_nic = [&](int64_t a, int64_t b) {
    const auto r = n.route(n.gpu[static_cast<size_t>(a)], n.gpu[static_cast<size_t>(b)]);
    return std::any_of(r.begin(), r.end(), [&](int64_t l) {
      const Link& k = n.links()[static_cast<size_t>(l)];
      return kind(k.a) == VertexKind::NIC || kind(k.b) == VertexKind::NIC;
    });
  };
  // Two trays of one rack: GPU - NVSwitch - GPU, no NIC; another rack: through the NICs.
  CHECK(hops(n, 0, TRAY) == 2);
  CHECK(hops(n, 0, RACK - 1) == 2);
  CHECK_FALSE(touches_nic(0, TRAY));
  CHECK_FALSE(touches_nic(5, RACK - 1));
  CHECK(touches_nic(0, RACK));
  CHECK(touches_nic(RACK - 1, 3 * RACK + 5));
  const auto fabric = Fabric::of(c);
  CHECK(fabric->ends(0, RACK - 1).first < fabric->gpus());  // the NVLink port
  CHECK(fabric->ends(0, RACK).first >= fabric->gpus());     // a NIC
  // Half a rack against the other half: 36 NVLink ports plus their 36 NICs; half the cluster
  // against the other: its 288 NICs (full bisection).
  CHECK(n.max_flow(gpus(n, 0, RACK / 2), gpus(n, RACK / 2, RACK / 2)).value == Approx(RACK / 2 * (PORT + NIC)));
  const int64_t half = RACKS * RACK / 2;
  CHECK(n.max_flow(gpus(n, 0, half), gpus(n, half, half)).value == Approx(half * NIC));
}
