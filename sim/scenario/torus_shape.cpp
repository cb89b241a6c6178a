#include "sim/scenario/torus_shape.hpp"

#include <algorithm>

namespace sim {

bool twistable(const std::vector<int64_t>& dims) {
  if (dims.size() != 3) return false;
  const int64_t k = *std::min_element(dims.begin(), dims.end());
  if (k < 2) return false;
  int64_t longs = 0;
  for (int64_t d : dims) {
    if (d != k && d != 2 * k) return false;
    longs += d == 2 * k;
  }
  return longs == 1 || longs == 2;
}

}  // namespace sim
