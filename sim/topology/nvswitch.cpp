#include "sim/topology/nvswitch.hpp"

#include <stdexcept>

namespace sim {

void build_nvswitch(Network& net, const NvSwitchShape& s) {
  if (s.gpus < 1 || s.domain_gpus < 1 || s.gpus % s.domain_gpus != 0)
    throw std::invalid_argument("build_nvswitch: the domains must tile the GPUs");
  net.gpu.clear();
  for (int64_t g = 0; g < s.gpus; ++g) net.gpu.push_back(net.add_vertex(VertexKind::GPU, 0));
  net.nic_of_gpu.assign(static_cast<size_t>(s.gpus), -1);
  for (int64_t d = 0; d < s.gpus / s.domain_gpus; ++d) {
    const int64_t sw = net.add_vertex(VertexKind::SWITCH, 1);
    for (int64_t g = d * s.domain_gpus; g < (d + 1) * s.domain_gpus; ++g)
      net.add_link(net.gpu[static_cast<size_t>(g)], sw, s.bandwidth, s.latency);
  }
}

}  // namespace sim
