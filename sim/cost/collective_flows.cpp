#include "sim/cost/collective_flows.hpp"

#include <algorithm>
#include <numeric>

#include "sim/core/error.hpp"
#include "sim/cost/torus_collective.hpp"

namespace sim {

namespace {

// NVIDIA/nccl src/graph/trees.cc ncclGetBtree: the parent of `rank` in a binary tree rooted at 0
// that alternates leaves and interior nodes (0 -> 8 -> {4, 12} -> ... for 14 ranks).
int64_t btree_parent(int64_t n, int64_t rank) {
  if (rank == 0) return -1;
  int64_t bit = 1;
  for (; bit < n; bit <<= 1)
    if (bit & rank) break;
  int64_t up = (rank ^ bit) | (bit << 1);
  if (up >= n) up = rank ^ bit;
  return up;
}

size_t members_in(const std::vector<std::vector<int64_t>>& by_node) {
  size_t n = 0;
  for (const auto& nd : by_node) n += nd.size();
  return n;
}

// NCCL's ring channels (collective_flows.hpp, RING), over the strides' rings when given.
void ring_flows(const std::vector<std::vector<int64_t>>& by_node, Bytes per_rank, const std::vector<int64_t>& strides,
                std::vector<MemberFlow>& out) {
  const auto nodes = static_cast<int64_t>(by_node.size());
  int64_t channels = nodes > 1 ? nccl_channels(static_cast<int64_t>(by_node.front().size())) : 1;
  const auto k = static_cast<int64_t>(strides.size());
  const bool strided = nodes > 1 && k > 0;
  if (strided) {
    const int64_t both = std::lcm(channels, 2 * k);
    channels = both <= 64 ? both : 2 * k;
  }
  if (per_rank.value <= 0) return;
  const Bytes bytes(per_rank.value / double(channels));
  std::vector<int64_t> ring;
  for (int64_t ch = 0; ch < channels; ++ch) {
    ring.clear();
    for (int64_t j = 0; j < nodes; ++j) {
      int64_t at = j;
      if (strided) {
        const int64_t step = strides[static_cast<size_t>((ch / 2) % k)] * j % nodes;
        at = ch % 2 == 0 ? step : (nodes - step) % nodes;
      }
      const auto& nd = by_node[static_cast<size_t>(at)];
      for (size_t i = 0; i < nd.size(); ++i) ring.push_back(nd[(i + static_cast<size_t>(ch)) % nd.size()]);
    }
    for (size_t i = 0; i < ring.size(); ++i) out.push_back({ring[i], ring[(i + 1) % ring.size()], bytes});
  }
}

// A ring of flows inside every node, each carrying `bytes`: every GPU's NVLink port carries them
// once each way (NVLS, and the node phases of HIERARCHICAL).
void node_ring_flows(const std::vector<std::vector<int64_t>>& by_node, Bytes bytes, std::vector<MemberFlow>& out) {
  for (const auto& nd : by_node) {
    if (nd.size() < 2) continue;
    for (size_t i = 0; i < nd.size(); ++i) out.push_back({nd[i], nd[(i + 1) % nd.size()], bytes});
  }
}

// Channel c, tree t: reduce up (chain to the head, head to the parent's head), broadcast down.
void tree_flows(const std::vector<std::vector<int64_t>>& by_node, Bytes per_edge, bool chains,
                std::vector<MemberFlow>& out) {
  const auto nodes = static_cast<int64_t>(by_node.size());
  const size_t ppn = by_node.front().size();
  const auto channels = static_cast<size_t>(nccl_channels(static_cast<int64_t>(ppn)));
  std::vector<std::array<int64_t, 2>> parent;
  for (int64_t k = 0; k < nodes; ++k) parent.push_back(dtree_parents(nodes, k));
  for (size_t ch = 0; ch < channels; ++ch)
    for (size_t t = 0; t < 2; ++t)
      for (int64_t k = 0; k < nodes; ++k) {
        const auto& nd = by_node[static_cast<size_t>(k)];
        const auto chain = [&](size_t j) { return nd[(ch + j) % ppn]; };
        const auto pipe = static_cast<int32_t>(2 * ch + t);
        if (chains) {
          for (size_t j = ppn - 1; j >= 1; --j) out.push_back({chain(j), chain(j - 1), per_edge});
          for (size_t j = 0; j + 1 < ppn; ++j) out.push_back({chain(j), chain(j + 1), per_edge});
        }
        const int64_t p = parent[static_cast<size_t>(k)][t];
        if (p < 0) continue;
        const int64_t head = chain(0), parent_head = by_node[static_cast<size_t>(p)][ch];
        out.push_back({head, parent_head, per_edge, pipe});
        out.push_back({parent_head, head, per_edge, pipe});
      }
}

// Hierarchical algorithms' rails: a ring across the nodes for each local index, each hop `bytes`.
void rail_ring_flows(const std::vector<std::vector<int64_t>>& by_node, Bytes bytes, std::vector<MemberFlow>& out) {
  if (by_node.size() < 2 || bytes.value <= 0) return;
  for (size_t i = 0; i < by_node.front().size(); ++i)
    for (size_t k = 0; k < by_node.size(); ++k)
      out.push_back({by_node[k][i], by_node[(k + 1) % by_node.size()][i], bytes});
}

}  // namespace

int64_t nccl_channels(int64_t per_node) {
  constexpr int64_t kMaxChannels = 64;  // NCCL's MAXCHANNELS (collective_flows.hpp)
  return std::min(per_node, kMaxChannels);
}

std::array<int64_t, 2> dtree_parents(int64_t n, int64_t k) {
  const int64_t p0 = btree_parent(n, k);
  if (n % 2 == 1) {
    const int64_t u = btree_parent(n, (k - 1 + n) % n);
    return {p0, u < 0 ? -1 : (u + 1) % n};
  }
  const int64_t u = btree_parent(n, n - 1 - k);
  return {p0, u < 0 ? -1 : n - 1 - u};
}

int64_t dtree_max_edges(int64_t n) {
  std::vector<int64_t> edges(static_cast<size_t>(std::max<int64_t>(n, 0)), 0);
  for (int64_t k = 0; k < n; ++k)
    for (int64_t p : dtree_parents(n, k))
      if (p >= 0) {
        ++edges[static_cast<size_t>(k)];
        ++edges[static_cast<size_t>(p)];
      }
  return edges.empty() ? 0 : *std::max_element(edges.begin(), edges.end());
}

std::vector<MemberFlow> collective_flows(const CollectiveChoice& choice, CollectiveKind kind,
                                         const std::vector<std::vector<int64_t>>& by_node, Bytes buffer,
                                         const CollectiveConstants& c, const std::vector<int64_t>& torus_dims,
                                         const std::vector<int64_t>& ring_strides) {
  std::vector<MemberFlow> out;
  const auto n = static_cast<int64_t>(members_in(by_node));
  if (n < 2) return out;
  SIM_ASSERT(choice.bandwidth_factor > 0, "a collective choice needs a positive bandwidth factor");
  const double scale = 1.0 / choice.bandwidth_factor;
  if (choice.algo == CollectiveAlgo::DEEPEP) {  // to its rail on the other nodes, and on through NVLink
    const size_t ppn = by_node.front().size();
    for (const auto& nd : by_node) SIM_ASSERT(nd.size() == ppn, "deepep needs nodes of equal members");
    const Bytes rail = buffer * (choice.node_share * scale),
                local = buffer * (choice.gpu_share * choice.nvlink_factor * scale);
    for (size_t a = 0; a < by_node.size(); ++a)
      for (size_t l = 0; l < ppn; ++l) {
        for (size_t b = 0; b < by_node.size(); ++b)
          if (b != a) out.push_back({by_node[a][l], by_node[b][l], rail});
        for (size_t j = 0; j < ppn; ++j)
          if (j != l) out.push_back({by_node[a][l], by_node[a][j], local});
      }
    return out;
  }
  if (kind == CollectiveKind::ALL_TO_ALL) {  // every member sends each other its 1/n of the buffer
    std::vector<int64_t> members;
    for (const auto& nd : by_node) members.insert(members.end(), nd.begin(), nd.end());
    const Bytes each = buffer * (scale / double(n));
    for (int64_t a : members)
      for (int64_t b : members)
        if (a != b) out.push_back({a, b, each});
    return out;
  }
  if (choice.algo == CollectiveAlgo::RING) {
    ring_flows(by_node, ring_cost(kind, buffer, n).bytes_per_rank * scale, ring_strides, out);
    return out;
  }
  const size_t ppn = by_node.front().size();
  for (const auto& nd : by_node) SIM_ASSERT(nd.size() == ppn, "tree and NVLS collectives need equal nodes");
  const Bytes nvls = buffer * (c.scale_up_efficiency / c.nvls_efficiency * scale);
  const Bytes per_edge = buffer * (scale / (2.0 * double(nccl_channels(static_cast<int64_t>(ppn)))));
  switch (choice.algo) {
    case CollectiveAlgo::NVLS: node_ring_flows(by_node, nvls, out); break;
    case CollectiveAlgo::TREE: tree_flows(by_node, per_edge, true, out); break;
    case CollectiveAlgo::NVLS_TREE:
      node_ring_flows(by_node, nvls, out);
      tree_flows(by_node, per_edge, false, out);
      break;
    case CollectiveAlgo::HIERARCHICAL: {
      const auto nodes = static_cast<int64_t>(by_node.size());
      node_ring_flows(by_node, ring_cost(kind, buffer, static_cast<int64_t>(ppn)).bytes_per_rank * scale, out);
      rail_ring_flows(by_node, ring_cost(kind, buffer / double(ppn), nodes).bytes_per_rank * scale, out);
      break;
    }
    case CollectiveAlgo::DEEPEP: break;  // its all-to-all's flows above
    case CollectiveAlgo::TORUS: {
      const auto nodes = static_cast<int64_t>(by_node.size());
      const std::vector<MemberFlow> slice = torus_collective_flows(kind, torus_dims, buffer);
      for (const auto& nd : by_node)
        for (const MemberFlow& f : slice)
          out.push_back({nd[static_cast<size_t>(f.from)], nd[static_cast<size_t>(f.to)], f.bytes});
      rail_ring_flows(by_node, ring_cost(kind, buffer / double(ppn), nodes).bytes_per_rank, out);
      break;
    }
    case CollectiveAlgo::RING: break;
  }
  return out;
}

}  // namespace sim
