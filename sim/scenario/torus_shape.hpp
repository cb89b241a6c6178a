// Which torus shapes may be twisted: what a cluster's `scale_up.twisted` is checked against
// (cluster.cpp) and what the torus builder lays out (sim/topology/torus.hpp).
#pragma once

#include <cstdint>
#include <vector>

namespace sim {

// Whether `dims` is a shape TPU v4 twists: k x k x 2k or k x 2k x 2k in any order, k >= 1
// (libtpu's "TPU twisted torus only supports k*k*2k and k*2k*2k ... slice shapes"; Cloud TPU v4
// documentation, "3D mesh and 3D torus").
bool twistable(const std::vector<int64_t>& dims);

}  // namespace sim
