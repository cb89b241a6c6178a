// Scale-up builder: a torus of chips in 1 to 3 dimensions (TPU v4's inter-chip interconnect, ICI).
// Each chip is a GPU endpoint on its own router (the chip's ICI switch, tier 1, linked to it
// without limit: the chip's DMA engines reach every port); routers link to their neighbours in
// each dimension with wrap-around, one full-duplex link per neighbour pair at the ICI link
// bandwidth per direction (a dimension of 2 has one link, of 1 none).
//
//   regular 4 x 4 torus (one plane)        twisted k x k x 2k, TPU v4's "twisted 3D torus":
//    R - R - R - R -.                      the wrap-around link of a short (k) dimension also
//    |   |   |   |  |  (wrap-around)       moves k along every long (2k) dimension, the "+k mod 2k
//    R - R - R - R -'                      seam": chip (x = k-1, y, z) links to (0, y, z + k mod 2k)
//
// Twisted shapes are those TPU v4 admits: two distinct extents k and 2k, every dimension one of
// them, as k x k x 2k and k x 2k x 2k (libtpu's "TPU twisted torus only supports k*k*2k and
// k*2k*2k ... slice shapes"; Cloud TPU v4 documentation, "3D mesh and 3D torus": 4x4x8, 4x8x8,
// 12x12x24). The twist follows Camara et al., "Twisted Torus Topologies for Enhanced
// Interconnection Networks" (IEEE TPDS 2010), as TPU v4 uses it (Jouppi et al., ISCA 2023 §2).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/topology/network.hpp"

namespace sim {

struct TorusShape {
  std::vector<int64_t> dims;  // chips along each dimension, 1 to 3 of them, each >= 1
  bool twisted = false;
  BytesPerSecond link_bandwidth;  // per ICI link per direction
  Seconds latency;                // per link
};

// Whether `dims` is a shape TPU v4 twists: k x k x 2k or k x 2k x 2k in any order, k >= 1.
bool twistable(const std::vector<int64_t>& dims);

// Adds the chips (Network::gpu, in row-major order of their coordinates, the first dimension
// slowest) and their routers; std::invalid_argument on a shape with no dimension, more than three,
// one below 1, or a twist the shape does not admit.
void build_torus(Network& net, const TorusShape& shape);

// Chip c's coordinates in `dims` (row-major, the first dimension slowest).
std::vector<int64_t> torus_coords(const std::vector<int64_t>& dims, int64_t chip);

}  // namespace sim
