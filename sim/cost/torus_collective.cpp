#include "sim/cost/torus_collective.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace sim {
namespace {

// The phase scattering (or gathering) along dimension d a share of `share` bytes per member.
TorusPhase ring_phase(const std::vector<int64_t>& dims, size_t d, Bytes share) {
  TorusPhase phase;
  phase.dim = static_cast<int64_t>(d);
  const int64_t k = dims[d];
  int64_t stride = 1, members = 1;  // members one apart in dimension d are `stride` apart in index
  for (size_t i = 0; i < dims.size(); ++i) {
    members *= dims[i];
    if (i > d) stride *= dims[i];
  }
  const Bytes each_way = share * (static_cast<double>(k - 1) / static_cast<double>(k) / 2.0);
  for (int64_t m = 0; m < members; ++m) {
    const int64_t at = m / stride % k, base = m - at * stride;
    const int64_t next = base + (at + 1) % k * stride, prev = base + (at + k - 1) % k * stride;
    if (next == prev) {  // a ring of two: both halves to the one neighbour
      phase.flows.push_back({m, next, each_way * 2.0});
    } else {
      phase.flows.push_back({m, next, each_way});
      phase.flows.push_back({m, prev, each_way});
    }
  }
  return phase;
}

// The phases with the dimensions taken in turn from `first` on.
std::vector<TorusPhase> phases(CollectiveKind kind, const std::vector<int64_t>& dims, Bytes buffer, size_t first) {
  if (dims.empty() || dims.size() > 3) throw std::invalid_argument("a torus group has 1 to 3 dimensions");
  if (std::any_of(dims.begin(), dims.end(), [](int64_t k) { return k < 1; }))
    throw std::invalid_argument("a torus dimension below 1");
  if (kind != CollectiveKind::ALL_REDUCE && kind != CollectiveKind::ALL_GATHER &&
      kind != CollectiveKind::REDUCE_SCATTER)
    throw std::invalid_argument(std::string("no torus algorithm for ") + to_string(kind));
  // The reduce-scatter's phases, each on what the ones before left.
  std::vector<TorusPhase> scatter;
  Bytes share = buffer;
  for (size_t i = 0; i < dims.size(); ++i) {
    const size_t d = (first + i) % dims.size();
    if (dims[d] == 1) continue;
    scatter.push_back(ring_phase(dims, d, share));
    share = share * (1.0 / static_cast<double>(dims[d]));
  }
  std::vector<TorusPhase> gather(scatter.rbegin(), scatter.rend());
  if (kind == CollectiveKind::REDUCE_SCATTER) return scatter;
  if (kind == CollectiveKind::ALL_GATHER) return gather;
  scatter.insert(scatter.end(), gather.begin(), gather.end());
  return scatter;
}

}  // namespace

std::vector<TorusPhase> torus_collective(CollectiveKind kind, const std::vector<int64_t>& dims, Bytes buffer) {
  return phases(kind, dims, buffer, 0);
}

std::vector<MemberFlow> torus_collective_flows(CollectiveKind kind, const std::vector<int64_t>& dims, Bytes buffer) {
  const auto parts = std::count_if(dims.begin(), dims.end(), [](int64_t k) { return k > 1; });
  std::vector<MemberFlow> all;
  for (size_t first = 0; first < dims.size(); ++first) {
    if (dims[first] == 1) continue;
    for (const TorusPhase& p : phases(kind, dims, buffer * (1.0 / static_cast<double>(parts)), first))
      all.insert(all.end(), p.flows.begin(), p.flows.end());
  }
  // One flow per (sender, receiver): what started together shares the same route anyway.
  std::sort(all.begin(), all.end(),
            [](const MemberFlow& x, const MemberFlow& y) { return std::tie(x.from, x.to) < std::tie(y.from, y.to); });
  std::vector<MemberFlow> out;
  for (const MemberFlow& f : all)
    if (!out.empty() && out.back().from == f.from && out.back().to == f.to)
      out.back().bytes += f.bytes;
    else
      out.push_back(f);
  return out;
}

int64_t torus_steps(CollectiveKind kind, const std::vector<int64_t>& dims) {
  int64_t steps = 0;
  for (int64_t k : dims) steps += k - 1;
  return kind == CollectiveKind::ALL_REDUCE ? 2 * steps : steps;
}

}  // namespace sim
