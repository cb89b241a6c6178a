#include "sim/scenario/circuits.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace sim {

std::vector<Circuit> ring_circuits(const std::vector<int64_t>& nodes, const std::vector<int64_t>& strides) {
  std::vector<Circuit> out;
  const auto m = static_cast<int64_t>(nodes.size());
  if (m < 2) return out;
  for (int64_t s : strides)
    for (int64_t k = 0; k < m; ++k)
      out.push_back({nodes[static_cast<size_t>(k)], nodes[static_cast<size_t>((k + s) % m)]});
  return out;
}

std::vector<Circuit> stride_circuits(int64_t n, const std::vector<int64_t>& strides) {
  std::vector<int64_t> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  return ring_circuits(all, strides);
}

std::vector<int64_t> totient_strides(int64_t m, int64_t k) {
  std::vector<int64_t> candidates, out;
  for (int64_t s = 1; s <= m / 2; ++s)
    if (std::gcd(s, m) == 1) candidates.push_back(s);
  if (candidates.empty() || k < 1) return out;
  std::vector<char> taken(candidates.size(), 0);
  const auto distinct = std::min<int64_t>(k, static_cast<int64_t>(candidates.size()));
  for (int64_t j = 0; j < distinct; ++j) {
    const double target = std::pow(double(m), double(j) / double(k));
    size_t best = candidates.size();
    for (size_t i = 0; i < candidates.size(); ++i)
      if (!taken[i] && (best == candidates.size() ||
                        std::abs(double(candidates[i]) - target) < std::abs(double(candidates[best]) - target)))
        best = i;
    taken[best] = 1;
    out.push_back(candidates[best]);
  }
  std::sort(out.begin(), out.end());
  for (size_t i = 0; static_cast<int64_t>(out.size()) < k; ++i) out.push_back(out[i]);
  return out;
}

std::vector<int64_t> ports_used(int64_t n, const std::vector<Circuit>& circuits) {
  std::vector<int64_t> used(static_cast<size_t>(n), 0);
  for (const Circuit& c : circuits)
    for (int64_t v : c) ++used[static_cast<size_t>(v)];
  return used;
}

}  // namespace sim
