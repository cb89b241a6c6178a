// The flows a collective algorithm sends (sim/cost/nccl_tuning.hpp chooses the algorithm): the
// steady-state traffic of the whole collective aggregated into one flow per (sender, receiver,
// channel, phase), all started together. Their bytes are counted for links that run at the
// tier's Simple-protocol efficiency (NVLink at scale_up_efficiency, the network at
// scale_out_efficiency, as the engine's platform carries them) and divided by the choice's
// bandwidth_factor, so that pricing them on an idle network -- the most loaded GPU port,
// load / capacity -- gives the algorithm's bandwidth term. The latency (CollectiveChoice::latency)
// is added on top.
//
// `by_node` lists the group's member indices (into the caller's member list) grouped by node
// (NCCL's: an NVLink domain), in ring order, e.g. {{0,1,2,3},{4,5,6,7}}. Every algorithm but the
// ring needs nodes of equal size.
//
//   RING       channels = the first node's member count when the ring leaves its node, else 1, at
//              most NCCL's MAXCHANNELS (nccl_channels).
//              Channel ch takes each node's members rotated by ch (member[(i+ch) % size]) node
//              after node; every hop of it sends ring_cost(kind, buffer, n).bytes_per_rank /
//              channels. Channel by channel, hop by hop (the engine's ring_flows).
//              On a direct-connect network whose circuits join the group's nodes in rings of
//              strides s_1 .. s_k (`ring_strides`, over the nodes in by_node's order: node j to
//              node j + s mod nodes), the channels are a multiple of 2k (the least common one of
//              the members per node and 2k, else 2k) and channel c visits the nodes s_(c/2 mod k)
//              apart, forward for even c, backward for odd: TopoOpt's all-reduce split over all
//              of its rings, both ways round each.
//   NVLS       a ring of flows inside the node, each buffer * scale_up_efficiency / nvls_efficiency:
//              every GPU's NVLink port carries the buffer once up and once down.
//   TREE       NCCL's double binary tree over the nodes (src/graph/trees.cc ncclGetDtree: tree 1
//              mirrors tree 0, or shifts it by one when the count is odd, so a node is interior in
//              at most one), each tree carrying half the buffer, on C = nccl_channels(ppn)
//              channels: channel c carries 1/C of it and leaves each node through member c (a NIC
//              per GPU), which heads the node's chain c, c+1, ... Reduce flows up the chain and the
//              tree, the broadcast down, so every chain and tree edge carries buffer / (2 C) each
//              way per channel and tree. Each channel's tree edges are one pipeline (MemberFlow::pipe).
//                      node 0 ----- tree edge ----- node 1
//                     [c]->c+1->...               [c]->c+1->...   ([c]: member c, the head)
//   NVLS_TREE  NVLS inside each node (as NVLS) plus the TREE's inter-node flows between heads.
//   HIERARCHICAL  rail-aware, in three phases pipelined by chunks: reduce-scatter inside each node,
//              the collective on each rail (local index i of every node) across nodes over its
//              1/ppn share of the buffer, all-gather inside each node (for an all-gather: the
//              rails first, then the node; for a reduce-scatter: the node first, then the rails).
//              A ring of flows inside every node, each hop ring_cost(kind, buffer, ppn) (the two
//              intra-node phases of an all-reduce are that ring's reduce-scatter and all-gather),
//              and a ring per rail across the nodes, each hop ring_cost(kind, buffer/ppn, nodes).
//                 node 0: [g0 -> g1 -> g2 -> g3 -> g0]      NVLink ring
//                          |     |     |     |              rail rings, one per local index
//                 node 1: [g4 -> g5 -> g6 -> g7 -> g4]
//   TORUS      on each node (a torus slice) the torus algorithm over the group's shape in it,
//              `torus_dims` (torus_collective_flows), and across slices the rails of HIERARCHICAL:
//              TPU multislice's reduction, inside each slice over its ICI, across them over the
//              data-center network, pipelined.
//                 slice 0: [torus phases]   slice 1: [torus phases]
//                      member i  <-------- rail ring -------->  member i
//   ALL_TO_ALL (any algorithm: NCCL runs it as grouped sends and receives, nccl-tests'
//              alltoall.cu) every member sends buffer / n to each other member at once, one flow
//              per ordered pair: buffer (ppn - 1) / n over its NVLink port, buffer (n - ppn) / n
//              through its NIC.
//   DEEPEP     (an all-to-all under the deepep dispatcher, dispatcher.hpp) DeepEP's normal kernels:
//              a member sends each token once to each other node its experts lie on, to the GPU
//              of its own rail (local index) there, buffer x node_share per node, over RDMA; each
//              GPU forwards what reaches it, its own tokens included, over NVLink to the GPUs of
//              its node the tokens go to, buffer x gpu_share to each (counted x nvlink_factor).
//              The kernels pipeline the two hops by chunks: all flows start together.
//                 node 0: g0 g1 g2 g3       g1 -> g5 over RDMA (rail 1), then g5 -> g4, g6, g7
//                 node 1: g4 g5 g6 g7       over NVLink
//
// Fewer than two members: no flows.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/cost/nccl_tuning.hpp"

namespace sim {

struct MemberFlow {
  int64_t from = 0, to = 0;  // indices into the member list
  Bytes bytes;
  // Flows of one pipeline share a number (-1: none): the edges between the nodes of a TREE or
  // NVLS_TREE channel's tree, whose chunks NCCL passes edge to edge through a few slots per
  // connection (NCCL_STEPS), so that no edge runs ahead of the others -- they move at one rate,
  // the slowest one's. The fold simulates a pipeline as one flow (sim/comm/ring_channels.hpp,
  // dp_flow_set); the chains inside a node stay flows of their own.
  int32_t pipe = -1;
};

std::vector<MemberFlow> collective_flows(const CollectiveChoice& choice, CollectiveKind kind,
                                         const std::vector<std::vector<int64_t>>& by_node, Bytes buffer,
                                         const CollectiveConstants& c, const std::vector<int64_t>& torus_dims = {},
                                         const std::vector<int64_t>& ring_strides = {});

// NCCL's double binary tree over n nodes (src/graph/trees.cc ncclGetDtree): node k's parent in
// tree 0 and tree 1, -1 for a root.
std::array<int64_t, 2> dtree_parents(int64_t n, int64_t k);

// NCCL's channels for `per_node` members of a node (NVLink domain) that each lead one: at most
// MAXCHANNELS, 64 (NVIDIA/nccl src/include/device.h @5067397, NCCL 2.30.7) -- a GB200 NVL72
// domain's 72 members run 64.
int64_t nccl_channels(int64_t per_node);

// The most tree edges any node has, summed over both trees (each edge carries buffer / 2 per
// direction over all channels): 0 for one node.
int64_t dtree_max_edges(int64_t n);

}  // namespace sim
