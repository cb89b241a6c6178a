#include "sim/topology/torus.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

namespace sim {

std::vector<int64_t> torus_coords(const std::vector<int64_t>& dims, int64_t chip) {
  std::vector<int64_t> at(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    at[i] = chip % dims[i];
    chip /= dims[i];
  }
  return at;
}

void build_torus(Network& net, const TorusShape& shape) {
  const auto& dims = shape.dims;
  if (dims.empty() || dims.size() > 3) throw std::invalid_argument("a torus has 1 to 3 dimensions");
  int64_t chips = 1;
  for (int64_t d : dims) {
    if (d < 1) throw std::invalid_argument("a torus dimension below 1");
    if (chips > std::numeric_limits<int64_t>::max() / d) throw std::invalid_argument("a torus too large");
    chips *= d;
  }
  if (shape.twisted && !twistable(dims)) throw std::invalid_argument("a twisted torus is k x k x 2k or k x 2k x 2k");
  if (shape.twisted && !shape.wrap) throw std::invalid_argument("a mesh has no wrap-around links to twist");
  const int64_t k = *std::min_element(dims.begin(), dims.end());
  TorusLayout layout;
  layout.shape = shape;
  if (!shape.cube.empty() && shape.cube.size() != dims.size())
    throw std::invalid_argument("a torus's cube has one extent per dimension");
  for (size_t i = 0; i < shape.cube.size(); ++i)
    if (shape.cube[i] < 1 || dims[i] % shape.cube[i] != 0)
      throw std::invalid_argument("a torus's cube extents divide its dimensions");
  if (shape.ocs && shape.cube.empty()) throw std::invalid_argument("an optical circuit switch joins cubes");
  layout.first_gpu = static_cast<int64_t>(net.gpu.size());
  layout.hop.assign(static_cast<size_t>(chips), {-1, -1, -1, -1, -1, -1});
  std::vector<int64_t>& router = layout.router;
  router.resize(static_cast<size_t>(chips));
  // The chip's link to its router carries all of its ICI ports at once: it never binds.
  const BytesPerSecond all_ports = shape.link_bandwidth * (2.0 * static_cast<double>(dims.size()));
  for (int64_t c = 0; c < chips; ++c) {
    const int64_t gpu = net.add_vertex(VertexKind::GPU, 0);
    router[static_cast<size_t>(c)] = net.add_vertex(VertexKind::SWITCH, 1);
    net.add_link(gpu, router[static_cast<size_t>(c)], all_ports, Seconds(0));
    net.gpu.push_back(gpu);
  }
  auto index = [&](const std::vector<int64_t>& at) {
    int64_t c = 0;
    for (size_t i = 0; i < dims.size(); ++i) c = c * dims[i] + at[i];
    return c;
  };
  // Each chip links to its + neighbour in every dimension; the plain wrap-around link of a
  // dimension of 2 is the same pair as its + link, so it is left out, and a mesh has none.
  for (int64_t c = 0; c < chips; ++c) {
    const std::vector<int64_t> at = torus_coords(dims, c);
    for (size_t i = 0; i < dims.size(); ++i) {
      const bool seam = shape.twisted && at[i] == dims[i] - 1 && dims[i] == k;  // the +k mod 2k seam
      if (dims[i] == 1 || (dims[i] == 2 && at[i] == 1 && !seam) || (!shape.wrap && at[i] == dims[i] - 1)) continue;
      std::vector<int64_t> next = at;
      next[i] = (at[i] + 1) % dims[i];
      if (seam)
        for (size_t j = 0; j < dims.size(); ++j)
          if (dims[j] == 2 * k) next[j] = (next[j] + k) % dims[j];
      const int64_t n = index(next);
      const int64_t l = net.add_link(router[static_cast<size_t>(c)], router[static_cast<size_t>(n)],
                                     shape.link_bandwidth, shape.latency);
      layout.hop[static_cast<size_t>(c)][2 * i] = l;
      layout.hop[static_cast<size_t>(n)][2 * i + 1] = l;
    }
  }
  // A plain ring of two: each chip's one link is both of its neighbours'.
  if (shape.wrap)
    for (auto& h : layout.hop)
      for (size_t i = 0; i < dims.size(); ++i) {
        if (h[2 * i] < 0) h[2 * i] = h[2 * i + 1];
        if (h[2 * i + 1] < 0) h[2 * i + 1] = h[2 * i];
      }
  net.tori.push_back(std::move(layout));
}

void torus_route(const Network& net, const TorusLayout& t, int64_t from, int64_t to, std::vector<TorusHop>& out) {
  out.clear();
  if (from == to) return;
  const auto& dims = t.shape.dims;
  const size_t n = dims.size();
  const int64_t k = *std::min_element(dims.begin(), dims.end());
  std::vector<int64_t> at = torus_coords(dims, from);
  const std::vector<int64_t> dest = torus_coords(dims, to);
  std::vector<size_t> shorts, longs;  // on a twisted torus the short dimensions cross the seam
  for (size_t i = 0; i < n; ++i) (t.shape.twisted && dims[i] == k ? shorts : longs).push_back(i);
  // The long dimensions' hops once the seam has shifted them by `shift`.
  const auto long_hops = [&](int64_t shift) {
    int64_t h = 0;
    for (size_t j : longs) {
      const int64_t d = ((dest[j] - at[j] - shift) % dims[j] + dims[j]) % dims[j];
      h += std::min(d, dims[j] - d);
    }
    return h;
  };
  // Each short dimension's walk: the + or - way, crossing its seam once or not at all (a whole
  // way round and more when that is what moves the long dimensions right); fewest hops overall,
  // the first such in the order (+, no crossing), (+, crossing), (-, none), (-, crossing).
  const auto walk_hops = [&](size_t i, int option) -> int64_t {  // -1: no such walk
    const int64_t a = at[i], b = dest[i];
    switch (option) {
      case 0: return b >= a ? b - a : -1;
      case 1: return b >= a ? b - a + k : k - a + b;
      case 2: return a >= b ? a - b : -1;
      default: return a >= b ? a - b + k : a + k - b;
    }
  };
  std::vector<int> best_walk(shorts.size(), 0), option(shorts.size(), 0);
  int64_t best = -1;
  for (size_t combo = 0; combo < (size_t{1} << (2 * shorts.size())); ++combo) {
    int64_t hops = 0, crossings = 0;
    bool valid = true;
    for (size_t s = 0; s < shorts.size(); ++s) {
      option[s] = static_cast<int>(combo >> (2 * s) & 3);
      const int64_t h = walk_hops(shorts[s], option[s]);
      valid = valid && h >= 0;
      hops += h;
      crossings += option[s] % 2;
    }
    if (!valid) continue;
    hops += long_hops(crossings % 2 * k);
    if (best < 0 || hops < best) best = hops, best_walk = option;
  }
  int64_t chip = from;
  const auto step = [&](size_t i, bool minus) {
    const int64_t l = t.hop[static_cast<size_t>(chip)][2 * i + (minus ? 1 : 0)];
    out.push_back({l, net.links()[static_cast<size_t>(l)].a == t.router[static_cast<size_t>(chip)]});
    const bool seam = minus ? at[i] == 0 : at[i] == dims[i] - 1;
    at[i] = (at[i] + (minus ? dims[i] - 1 : 1)) % dims[i];
    if (t.shape.twisted && seam && dims[i] == k)
      for (size_t j : longs) at[j] = (at[j] + k) % dims[j];
    chip = 0;
    for (size_t j = 0; j < n; ++j) chip = chip * dims[j] + at[j];
  };
  for (size_t s = 0; s < shorts.size(); ++s)
    for (int64_t h = 0, hops = walk_hops(shorts[s], best_walk[s]); h < hops; ++h) step(shorts[s], best_walk[s] >= 2);
  for (size_t j : longs) {
    const int64_t d = ((dest[j] - at[j]) % dims[j] + dims[j]) % dims[j];
    const bool minus = t.shape.wrap ? dims[j] - d < d : dest[j] < at[j];
    for (int64_t h = 0, hops = t.shape.wrap ? (minus ? dims[j] - d : d) : std::abs(dest[j] - at[j]); h < hops; ++h)
      step(j, minus);
  }
}

std::vector<int64_t> torus_group_dims(const TorusLayout& t, const std::vector<int64_t>& chips) {
  const int64_t members = static_cast<int64_t>(chips.size());
  const size_t n = t.shape.dims.size();
  std::vector<std::vector<int64_t>> values(n);  // per dimension, the members' coordinates, sorted
  for (int64_t c : chips) {
    const auto at = torus_coords(t.shape.dims, c);
    for (size_t i = 0; i < n; ++i) values[i].push_back(at[i]);
  }
  std::vector<int64_t> dims;
  int64_t product = 1;
  for (auto& v : values) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    dims.push_back(static_cast<int64_t>(v.size()));
    product *= dims.back();
  }
  if (product != members) return {members};
  for (int64_t m = 0; m < members; ++m) {
    const auto at = torus_coords(t.shape.dims, chips[static_cast<size_t>(m)]);
    int64_t index = 0;
    for (size_t i = 0; i < n; ++i)
      index = index * dims[i] + (std::lower_bound(values[i].begin(), values[i].end(), at[i]) - values[i].begin());
    if (index != m) return {members};
  }
  return dims;
}

}  // namespace sim
