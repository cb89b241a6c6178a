#include "sim/topology/torus.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace sim {

bool twistable(const std::vector<int64_t>& dims) {
  if (dims.size() != 3) return false;
  const int64_t k = *std::min_element(dims.begin(), dims.end());
  int64_t longs = 0;
  for (int64_t d : dims) {
    if (d != k && d != 2 * k) return false;
    longs += d == 2 * k;
  }
  return longs == 1 || longs == 2;
}

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
  const int64_t k = *std::min_element(dims.begin(), dims.end());
  std::vector<int64_t> router(static_cast<size_t>(chips));
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
  // dimension of 2 is the same pair as its + link, so it is left out.
  for (int64_t c = 0; c < chips; ++c) {
    const std::vector<int64_t> at = torus_coords(dims, c);
    for (size_t i = 0; i < dims.size(); ++i) {
      const bool seam = shape.twisted && at[i] == dims[i] - 1 && dims[i] == k;  // the +k mod 2k seam
      if (dims[i] == 1 || (dims[i] == 2 && at[i] == 1 && !seam)) continue;
      std::vector<int64_t> next = at;
      next[i] = (at[i] + 1) % dims[i];
      if (seam)
        for (size_t j = 0; j < dims.size(); ++j)
          if (dims[j] == 2 * k) next[j] = (next[j] + k) % dims[j];
      net.add_link(router[static_cast<size_t>(c)], router[static_cast<size_t>(index(next))], shape.link_bandwidth,
                   shape.latency);
    }
  }
}

}  // namespace sim
