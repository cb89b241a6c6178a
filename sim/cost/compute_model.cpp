#include "sim/cost/compute_model.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace sim {

ComputeModel::ComputeModel(const DeviceSpec& device, Precision precision, KernelTiming timing)
    : device_(device), precision_(precision) {
  peak_ = peak(precision);
  if (timing == KernelTiming::in_step) sustained_ = device.sustained_compute;
}

FlopsPerSecond ComputeModel::peak(Precision math) const {
  auto it = device_.dense_peak.find(math);
  SIM_ASSERT(it != device_.dense_peak.end(), "precision checked when the scenario was loaded");
  return it->second;
}

FlopsPerSecond ComputeModel::mfu_peak() const {
  auto it = device_.dense_peak.find(Precision::BF16);
  return it != device_.dense_peak.end() ? it->second : peak_;
}

Seconds ComputeModel::memory_op(Bytes bytes) const {
  if (bytes.value <= 0) return Seconds(0);
  return bytes / (device_.hbm_bandwidth * device_.memory.at(bytes.value));
}

Seconds ComputeModel::fused_attention(Attention kernel, Flops flops, Bytes bytes, double seq_len,
                                      double head_dim) const {
  return fused_attention(kernel, flops, bytes, seq_len, precision_, false, head_dim);
}

Seconds ComputeModel::fused_attention(Attention kernel, Flops flops, Bytes bytes, double seq_len, Precision math,
                                      bool backward, double head_dim) const {
  const SaturatingCurve* curve = device_.attention_curve(kernel);
  SIM_ASSERT(curve && curve->eta_max > 0, "the attention kernel is checked against the device when loading");
  const auto& derived = attention_kernel(kernel).derived;
  const double slower = derived ? (backward ? derived->backward : derived->forward) : 1.0;
  const double efficiency = curve->at(seq_len) * device_.attention_head_dim_factor(kernel, head_dim);
  return std::max(flops * slower / (peak(math) * efficiency * sustained_), memory_op(bytes));
}

double ComputeModel::wave_efficiency(const GemmShape& g) const {
  if (device_.gemm_tiles.empty() || g.m <= 0 || g.n <= 0) return 1.0;
  const double sms = static_cast<double>(device_.sms);
  double best = 0.0;
  for (const auto& [tm, tn] : device_.gemm_tiles) {
    double tiles = std::ceil(g.m / double(tm)) * std::ceil(g.n / double(tn)) * g.batch;
    double waves = std::ceil(tiles / sms);
    double useful = g.m * g.n * g.batch / (double(tm) * double(tn) * waves * sms);
    best = std::max(best, useful);
  }
  return best;
}

Seconds ComputeModel::gemm(const GemmShape& shape, Bytes bytes) const { return gemm(shape, bytes, precision_); }

Seconds ComputeModel::gemm(const GemmShape& shape, Bytes bytes, Precision math) const {
  Seconds t_mem = memory_op(bytes);
  const Flops flops = shape.flops();
  if (flops.value <= 0) return t_mem;
  Seconds t_flop =
      flops / (peak(math) * device_.gemm_curve(math).at(flops.value) * wave_efficiency(shape) * sustained_);
  return std::max(t_flop, t_mem);
}

}  // namespace sim
