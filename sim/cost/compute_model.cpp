#include "sim/cost/compute_model.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace sim {

ComputeModel::ComputeModel(const DeviceSpec& device, Precision precision) : device_(device) {
  auto it = device.dense_peak.find(precision);
  SIM_ASSERT(it != device.dense_peak.end(), "precision checked when the scenario was loaded");
  peak_ = it->second;
}

Seconds ComputeModel::memory_op(Bytes bytes) const {
  if (bytes.value <= 0) return Seconds(0);
  return bytes / (device_.hbm_bandwidth * device_.memory.at(bytes.value));
}

Seconds ComputeModel::gemm(Flops flops, Bytes bytes) const {
  Seconds t_mem = memory_op(bytes);
  if (flops.value <= 0) return t_mem;
  Seconds t_flop = flops / (peak_ * device_.gemm.at(flops.value));
  return std::max(t_flop, t_mem);
}

}  // namespace sim
