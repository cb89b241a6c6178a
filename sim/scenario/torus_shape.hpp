// A torus's shape, as the torus builder lays it out (sim/topology/torus.hpp) and its layout keeps
// it (Network::tori), and which shapes may be twisted: what a cluster's `scale_up.twisted` is
// checked against (cluster.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"

namespace sim {

struct TorusShape {
  std::vector<int64_t> dims;  // chips along each dimension, 1 to 3 of them, each >= 1
  bool twisted = false;
  BytesPerSecond link_bandwidth;  // per ICI link per direction
  Seconds latency;                // per link
  // false: a mesh, no wrap-around links (a slice carved from a static torus with no optical
  // switch to close its rings: TPU v4's "3D mesh" slices; Jouppi et al., ISCA 2023 §2).
  bool wrap = true;
  // The electrical blocks it is built of (TPU v4: 4x4x4 cubes of chips on copper), per dimension
  // a divisor of dims; empty: one block. Links between blocks are optical, through an optical
  // circuit switch when `ocs` (TPU v4's 48 OCSes joining its 64 cubes' faces), else fibre.
  std::vector<int64_t> cube{};
  bool ocs = false;
};

// Whether `dims` is a shape TPU v4 twists: k x k x 2k or k x 2k x 2k in any order, k >= 2
// (libtpu's "TPU twisted torus only supports k*k*2k and k*2k*2k ... slice shapes"; Cloud TPU v4
// documentation, "3D mesh and 3D torus"): a dimension of one chip has no link, hence no seam to
// twist across.
bool twistable(const std::vector<int64_t>& dims);

}  // namespace sim
