#include "sim/topology/network.hpp"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <stdexcept>

namespace sim {

int64_t Network::add_vertex(VertexKind kind, int tier) {
  vertices_.push_back({kind, tier});
  adjacent_.emplace_back();
  up_.push_back(-1);
  return static_cast<int64_t>(vertices_.size()) - 1;
}

int64_t Network::add_link(int64_t a, int64_t b, BytesPerSecond bandwidth, Seconds latency) {
  const int64_t n = static_cast<int64_t>(vertices_.size());
  if (a < 0 || b < 0 || a >= n || b >= n || a == b) throw std::logic_error("Network::add_link: bad vertices");
  links_.push_back({a, b, bandwidth, latency});
  const int64_t id = static_cast<int64_t>(links_.size()) - 1;
  adjacent_[static_cast<size_t>(a)].emplace_back(b, id);
  adjacent_[static_cast<size_t>(b)].emplace_back(a, id);
  const Vertex &va = vertices_[static_cast<size_t>(a)], &vb = vertices_[static_cast<size_t>(b)];
  if (va.kind != VertexKind::GPU && vb.kind != VertexKind::GPU && va.tier != vb.tier) {
    int64_t& up = up_[static_cast<size_t>(va.tier < vb.tier ? a : b)];
    up = up == -1 ? id : -2;
  }
  return id;
}

int64_t Network::count(VertexKind kind, int tier) const {
  return std::count_if(vertices_.begin(), vertices_.end(),
                       [&](const Vertex& v) { return v.kind == kind && v.tier == tier; });
}

int64_t Network::links_between(int tier_a, int tier_b) const {
  return std::count_if(links_.begin(), links_.end(), [&](const Link& l) {
    const int ta = vertices_[static_cast<size_t>(l.a)].tier, tb = vertices_[static_cast<size_t>(l.b)].tier;
    return (ta == tier_a && tb == tier_b) || (ta == tier_b && tb == tier_a);
  });
}

std::vector<bool> Network::scale_up_links() const {
  std::vector<bool> router(vertices_.size(), false);
  for (const TorusLayout& t : tori)
    for (int64_t v : t.router) router[static_cast<size_t>(v)] = true;
  const auto gpu = [&](int64_t v) { return vertices_[static_cast<size_t>(v)].kind == VertexKind::GPU; };
  std::vector<bool> up;
  up.reserve(links_.size());
  for (const Link& l : links_)
    up.push_back(gpu(l.a) || gpu(l.b) || (router[static_cast<size_t>(l.a)] && router[static_cast<size_t>(l.b)]));
  return up;
}

std::vector<int64_t> Network::route(int64_t from, int64_t to) const {
  if (from == to) return {};
  std::vector<int64_t> path;
  if (tree_route(from, to, path)) return path;
  return search_route(from, to);
}

bool Network::tree_route(int64_t from, int64_t to, std::vector<int64_t>& path) const {
  const auto is_gpu = [&](int64_t v) { return vertices_[static_cast<size_t>(v)].kind == VertexKind::GPU; };
  if (!is_gpu(from) || !is_gpu(to)) return false;
  // Two hops through a switch or NIC both GPUs sit on; the lowest-indexed one, as the search.
  auto mine = adjacent_[static_cast<size_t>(from)];
  std::sort(mine.begin(), mine.end());
  for (const auto& [v, l] : mine) {
    if (is_gpu(v)) continue;
    for (const auto& [w, k] : adjacent_[static_cast<size_t>(to)])
      if (w == v) {
        path = {l, k};
        return true;
      }
  }
  // Otherwise out through each GPU's NIC, up to their lowest common switch and down.
  const auto nic_link = [&](int64_t g) {
    int64_t found = -1;
    for (const auto& [v, l] : adjacent_[static_cast<size_t>(g)])
      if (vertices_[static_cast<size_t>(v)].kind == VertexKind::NIC) {
        if (found >= 0) return int64_t(-1);
        found = l;
      }
    return found;
  };
  const int64_t la = nic_link(from), lb = nic_link(to);
  if (la < 0 || lb < 0) return false;
  std::vector<int64_t> up_a{la}, above;  // vertices above from's NIC, bottom up
  for (int64_t v = other_end(la, from);;) {
    above.push_back(v);
    const int64_t l = up_[static_cast<size_t>(v)];
    if (l == -2) return false;
    if (l == -1) break;
    up_a.push_back(l);
    v = other_end(l, v);
  }
  std::vector<int64_t> up_b{lb};
  for (int64_t v = other_end(lb, to);;) {
    const auto meet = std::find(above.begin(), above.end(), v);
    if (meet != above.end()) {
      path.assign(up_a.begin(), up_a.begin() + (meet - above.begin()) + 1);
      path.insert(path.end(), up_b.rbegin(), up_b.rend());
      return true;
    }
    const int64_t l = up_[static_cast<size_t>(v)];
    if (l < 0) return false;
    up_b.push_back(l);
    v = other_end(l, v);
  }
}

std::vector<int64_t> Network::search_route(int64_t from, int64_t to) const {
  if (from == to) return {};
  // Breadth-first from `from`, visiting neighbours in the order they were linked (builders link
  // lower-indexed vertices first), so the first path found is the deterministic one.
  std::vector<int64_t> via(vertices_.size(), -1);  // the link a vertex was reached by
  std::vector<char> seen(vertices_.size(), 0);
  std::deque<int64_t> queue{from};
  seen[static_cast<size_t>(from)] = 1;
  while (!queue.empty() && !seen[static_cast<size_t>(to)]) {
    const int64_t v = queue.front();
    queue.pop_front();
    if (v != from && vertices_[static_cast<size_t>(v)].kind == VertexKind::GPU) continue;  // GPUs do not route
    auto next = adjacent_[static_cast<size_t>(v)];
    std::sort(next.begin(), next.end());
    for (const auto& [w, link] : next) {
      if (seen[static_cast<size_t>(w)]) continue;
      seen[static_cast<size_t>(w)] = 1;
      via[static_cast<size_t>(w)] = link;
      queue.push_back(w);
    }
  }
  if (!seen[static_cast<size_t>(to)]) throw std::logic_error("Network::route: no route");
  std::vector<int64_t> path;
  for (int64_t v = to; v != from;) {
    const Link& l = links_[static_cast<size_t>(via[static_cast<size_t>(v)])];
    path.push_back(via[static_cast<size_t>(v)]);
    v = l.a == v ? l.b : l.a;
  }
  std::reverse(path.begin(), path.end());
  return path;
}

std::vector<std::array<double, 2>> Network::all_to_all_load(const std::vector<int64_t>& ends) const {
  std::vector<std::array<double, 2>> load(links_.size(), {0.0, 0.0});
  const size_t n = vertices_.size();
  std::vector<char> is_end(n, 0);
  for (int64_t e : ends) is_end[static_cast<size_t>(e)] = 1;
  std::vector<int64_t> dist(n);
  std::vector<double> paths(n), flow(n);
  std::vector<int64_t> order;
  for (int64_t s : ends) {
    // Breadth-first from s: each vertex's distance and number of fewest-hop routes.
    std::fill(dist.begin(), dist.end(), -1);
    std::fill(paths.begin(), paths.end(), 0.0);
    order.assign(1, s);
    dist[static_cast<size_t>(s)] = 0;
    paths[static_cast<size_t>(s)] = 1;
    for (size_t head = 0; head < order.size(); ++head) {
      const int64_t v = order[head];
      if (v != s && vertices_[static_cast<size_t>(v)].kind == VertexKind::GPU) continue;  // GPUs do not route
      for (const auto& [w, l] : adjacent_[static_cast<size_t>(v)]) {
        auto& d = dist[static_cast<size_t>(w)];
        if (d < 0) {
          d = dist[static_cast<size_t>(v)] + 1;
          order.push_back(w);
        }
        if (d == dist[static_cast<size_t>(v)] + 1) paths[static_cast<size_t>(w)] += paths[static_cast<size_t>(v)];
      }
    }
    // Back from the farthest: what reaches v (its own unit, if an end, and what it passes on) came
    // over its fewest-hop links in proportion to the routes through each.
    for (int64_t v : order) flow[static_cast<size_t>(v)] = v != s && is_end[static_cast<size_t>(v)] ? 1.0 : 0.0;
    for (size_t i = order.size(); i-- > 1;) {
      const int64_t v = order[i];
      if (flow[static_cast<size_t>(v)] == 0) continue;
      for (const auto& [u, l] : adjacent_[static_cast<size_t>(v)]) {
        if (dist[static_cast<size_t>(u)] != dist[static_cast<size_t>(v)] - 1) continue;
        if (u != s && vertices_[static_cast<size_t>(u)].kind == VertexKind::GPU) continue;
        const double f = flow[static_cast<size_t>(v)] * paths[static_cast<size_t>(u)] / paths[static_cast<size_t>(v)];
        load[static_cast<size_t>(l)][links_[static_cast<size_t>(l)].a == u ? 0 : 1] += f;
        flow[static_cast<size_t>(u)] += f;
      }
    }
  }
  return load;
}

BytesPerSecond Network::max_flow(const std::vector<int64_t>& from, const std::vector<int64_t>& to) const {
  // Dinic's algorithm on the links (an arc each way at the link's bandwidth) plus a source feeding
  // `from` and a sink fed by `to` without limit.
  struct Arc {
    size_t to;
    double capacity;
  };
  const size_t n = vertices_.size(), source = n, sink = n + 1;
  std::vector<Arc> arcs;
  std::vector<std::vector<size_t>> out(n + 2);
  const auto arc = [&](size_t a, size_t b, double c) {  // a -> b, and its residual twin (index ^ 1)
    out[a].push_back(arcs.size());
    arcs.push_back({b, c});
    out[b].push_back(arcs.size());
    arcs.push_back({a, 0});
  };
  for (const Link& l : links_) {
    arc(static_cast<size_t>(l.a), static_cast<size_t>(l.b), l.bandwidth.value);
    arc(static_cast<size_t>(l.b), static_cast<size_t>(l.a), l.bandwidth.value);
  }
  const double unlimited = std::numeric_limits<double>::infinity();
  for (int64_t v : from) arc(source, static_cast<size_t>(v), unlimited);
  for (int64_t v : to) arc(static_cast<size_t>(v), sink, unlimited);
  std::vector<int> level(n + 2);
  std::vector<size_t> next(n + 2);
  const auto bfs = [&] {
    std::fill(level.begin(), level.end(), -1);
    std::deque<size_t> queue{source};
    level[source] = 0;
    while (!queue.empty()) {
      const size_t v = queue.front();
      queue.pop_front();
      for (size_t i : out[v])
        if (arcs[i].capacity > 0 && level[arcs[i].to] < 0) {
          level[arcs[i].to] = level[v] + 1;
          queue.push_back(arcs[i].to);
        }
    }
    return level[sink] >= 0;
  };
  std::function<double(size_t, double)> push = [&](size_t v, double f) -> double {
    if (v == sink) return f;
    for (size_t& k = next[v]; k < out[v].size(); ++k) {
      Arc& a = arcs[out[v][k]];
      if (a.capacity <= 0 || level[a.to] != level[v] + 1) continue;
      const double got = push(a.to, std::min(f, a.capacity));
      if (got > 0) {
        a.capacity -= got;
        arcs[out[v][k] ^ 1].capacity += got;
        return got;
      }
    }
    return 0;
  };
  double total = 0;
  while (bfs()) {
    std::fill(next.begin(), next.end(), 0);
    for (double f; (f = push(source, unlimited)) > 0;) total += f;
  }
  return BytesPerSecond(total);
}

}  // namespace sim
