// How long one kernel takes on a device: a roofline whose two ceilings are scaled by the device
// profile's efficiency curves (Williams et al., "Roofline", CACM 2009; docs/calibration.md):
//
//   t = max( F / (eta_c(F) * P),  B / (eta_m(B) * BW) )
//
// P is the dense tensor-core peak for the run's precision, BW the HBM bandwidth,
// eta_c(F) = eta_max * F / (F + F_half) the GEMM efficiency against the GEMM's FLOPs (the
// profile's FP8 curve for FP8 GEMMs where it has one: DeviceSpec::gemm_curve), and
// eta_m(B) the same saturating curve against the bytes a memory-bound kernel moves. A GEMM is
// charged the larger of its compute and its memory time; an elementwise/norm/softmax kernel only
// its memory time. Zero FLOPs and zero bytes take zero time.
//
// Wave quantization (NVIDIA "Matrix Multiplication Background" §3.2): where the device lists CTA
// tiles, an m x n output in tiles of tm x tn makes T = ceil(m/tm)*ceil(n/tn)*batch tiles, run in
// W = ceil(T/SMs) waves, so the compute rate is further scaled by T/(W*SMs) (tile padding
// included) for the best of the listed tiles.
#pragma once

#include "sim/core/units.hpp"
#include "sim/scenario/device.hpp"

namespace sim {

struct GemmShape {
  double m = 0, n = 0, k = 0, batch = 1;  // C[m x n] = A[m x k] B[k x n], `batch` times
  Flops flops() const { return Flops(2.0 * m * n * k * batch); }
};

// When a kernel runs: in a training step, back to back with the others for seconds (its
// tensor-core rate the device's `sustained_compute` of its curve's), or as its measurement timed
// it (the curve's own rate: `trainsim calibrate` comparing the curves with the measurements).
enum class KernelTiming { in_step, as_measured };

class ComputeModel {
 public:
  ComputeModel(const DeviceSpec& device, Precision precision, KernelTiming timing = KernelTiming::in_step);

  // In the run's precision, or in `math` (an FP8 run's bf16 kernels: workload/ops.hpp).
  Seconds gemm(const GemmShape& shape, Bytes bytes) const;
  Seconds gemm(const GemmShape& shape, Bytes bytes, Precision math) const;
  double wave_efficiency(const GemmShape& shape) const;
  Seconds memory_op(Bytes bytes) const;
  // Fused attention kernel `kernel` executing `flops` (FA convention, at the kernel's head
  // dimension `head_dim`: kernel_head_dim) over keys of length `seq_len`, in the run's precision or
  // in `math`; its efficiency the profile's curve at `seq_len` times its factor at `head_dim`.
  Seconds fused_attention(Attention kernel, Flops flops, Bytes bytes, double seq_len,
                          double head_dim = kReferenceHeadDim) const;
  // `backward`: the backward kernel (a derived kernel's slowdown differs by direction).
  Seconds fused_attention(Attention kernel, Flops flops, Bytes bytes, double seq_len, Precision math, bool backward,
                          double head_dim) const;
  // The datasheet's dense peak in the run's precision, not the rate kernels reach.
  FlopsPerSecond peak() const { return peak_; }
  // What MFU is divided by: the dense BF16 peak whatever the run computes in, the published
  // convention (Megatron-Core's and torchtitan's MFU, NeMo's performance tables: an FP8 run's MFU
  // against the BF16 peak), so a faster FP8 step reads as a higher MFU. A device with no BF16 peak
  // (none shipped) falls back to the run's own.
  FlopsPerSecond mfu_peak() const;
  FlopsPerSecond peak(Precision math) const;
  const DeviceSpec& device() const { return device_; }

 private:
  const DeviceSpec& device_;
  Precision precision_;
  FlopsPerSecond peak_;
  double sustained_ = 1.0;  // the fraction of a curve's tensor-core rate kernels run at
};

}  // namespace sim
