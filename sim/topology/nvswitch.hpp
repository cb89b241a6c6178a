// Scale-up builder: NVLink domains through NVSwitch. Every GPU of a domain links to the domain's
// switch at its NVLink bandwidth per direction; the switch is non-blocking (the NVSwitch chips of a
// DGX/HGX node, or the 18 switch trays of a GB200 NVL72 rack, drawn as one).
//
//     domain 0                      domain 1
//    [ NVSwitch ]                  [ NVSwitch ]           tier 1
//    /   |    \                    /   |    \          NVLink, bandwidth per GPU
//  GPU0 GPU1 … GPU(d-1)         GPUd  …   GPU(2d-1)       tier 0, d = domain_gpus
//
// DGX/HGX A100, H100, B200: d = 8 (one node). GB200 NVL72: d = 72 (18 nodes of 4 GPUs).
#pragma once

#include <cstdint>

#include "sim/core/units.hpp"
#include "sim/topology/network.hpp"

namespace sim {

struct NvSwitchShape {
  int64_t gpus = 8;
  int64_t domain_gpus = 8;   // GPUs per NVLink domain; must divide gpus
  BytesPerSecond bandwidth;  // per GPU per direction
  Seconds latency;
};

// Adds the GPUs (Network::gpu) and their domains' switches; std::invalid_argument on a shape that
// does not tile.
void build_nvswitch(Network& net, const NvSwitchShape& shape);

}  // namespace sim
