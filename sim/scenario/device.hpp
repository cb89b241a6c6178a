// A GPU device profile (topologies/devices/<name>.json): peaks, HBM, efficiency curves and the
// collective-library constants, every number with its source in the file. A profile written by
// `trainsim calibrate` also has a "calibration" section (the measurements' provenance and the
// alpha-beta fits); it is provenance for readers and not read here.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/scenario/attention_kernels.hpp"

namespace sim {

class ParamReader;

// The largest side of a GEMM tile a profile may name: an input bound far above any library's
// (CUTLASS's and cuBLAS's CTA tiles are at most 256 on a side).
inline constexpr int64_t MAX_GEMM_TILE = 4096;

enum class Precision { BF16, FP16, FP8 };
const char* to_string(Precision p);
// "bf16" | "fp16" | "fp8" (callers have checked it is one of them).
Precision precision_from_string(const std::string& s);

// eta(x) = eta_max * x / (x + x_half): efficiency rises with the op's size and saturates.
struct SaturatingCurve {
  double eta_max = 1.0;
  double x_half = 0.0;
  double at(double x) const { return x <= 0 ? 0.0 : eta_max * x / (x + x_half); }
};

// NCCL's alpha-beta constants (NVIDIA/nccl src/graph/tuning.cc) and the achieved fraction of
// line rate on each tier (busbw / nominal).
struct CollectiveConstants {
  Seconds base_latency;            // per collective
  Seconds scale_up_step_latency;   // per algorithm step over NVLink
  Seconds scale_out_step_latency;  // per algorithm step over the network
  double scale_up_efficiency = 1.0;
  double scale_out_efficiency = 1.0;
  // NVLink SHARP (NVLS): the NVSwitch reduces an all-reduce in the network, so each GPU sends
  // and receives the buffer once (not 2(n-1)/n of it). 0 when the GPU/NVSwitch generation has
  // none (A100). Achieved fraction of the scale-up line rate, and the fixed latency.
  double nvls_efficiency = 0.0;
  Seconds nvls_latency;
};

struct DeviceSpec {
  std::string name;
  std::map<Precision, FlopsPerSecond> dense_peak;  // tensor-core dense peak per precision
  Bytes hbm_capacity;
  BytesPerSecond hbm_bandwidth;
  SaturatingCurve gemm;  // x = FLOPs of one GEMM (bf16/fp16, against their peak)
  // FP8 GEMMs (e4m3 operands) against the fp8 peak, where measured: Hopper's FP8 GEMMs reach a
  // lower fraction of their peak than bf16 ones do of theirs, and need more FLOPs to saturate.
  // eta_max == 0 when the profile has none: FP8 GEMMs then take `gemm`.
  SaturatingCurve gemm_fp8{0.0, 0.0};
  // Whether the FP8 GEMM takes its operands in any layout (Blackwell's tensor cores), or only as
  // "TN" -- both operands K-major, as Hopper's FP8 GEMMs need them, so that a weight gradient or an
  // input gradient reads a transposed FP8 copy its library made (gemm_fp8.layouts: "any" | "tn").
  bool fp8_gemm_any_layout = false;
  SaturatingCurve memory;  // x = bytes moved by one memory-bound kernel
  CollectiveConstants collectives;
  // Each fused attention kernel's forward+backward efficiency against the sequence length (FA
  // FLOP convention: causal counts half), under its registry key (attention_kernels.hpp); a kernel
  // the profile has no figure for is absent.
  std::map<Attention, SaturatingCurve> attention;
  // Each curve's factor at head dimensions other than the one it is fitted at
  // (kReferenceHeadDim), where measured: "<kernel>.head_dims" in the profile.
  std::map<Attention, std::map<int, double>> attention_head_dims;
  int64_t sms = 0;
  // CUDA compute capability, major * 10 + minor (90 for "9.0"): which kernels the GPU's libraries
  // pick for it (defaults.hpp, default_attention). 0 when the profile states none (a TPU).
  int compute_capability = 0;
  // CTA tiles (rows x cols of the output) the GEMM library picks from; empty when its kernels do
  // not quantize into waves (persistent / stream-K kernels on Hopper and later).
  std::vector<std::pair<int64_t, int64_t>> gemm_tiles;
  // The fraction of its curves' tensor-core rate the GPU keeps through a training step, where the
  // curves come from burst timings (a kernel timed alone, for less time than the GPU's power
  // management takes to lower its clock) and a step runs such kernels back to back for seconds at
  // the power limit ("sustained_compute" in the profile). 1 where the curves were timed back to
  // back already, as the kernel suite times them (sim/kernels/harness.hpp). GEMMs and fused
  // attention only: HBM's clock is not lowered, so memory-bound kernels keep their rate.
  double sustained_compute = 1.0;

  // The curve of GEMMs whose math runs in `p`.
  const SaturatingCurve& gemm_curve(Precision p) const {
    return p == Precision::FP8 && gemm_fp8.eta_max > 0 ? gemm_fp8 : gemm;
  }

  // The curve that prices fused attention kernel `a` (its base's for a derived kernel), or nullptr
  // when the profile has none.
  const SaturatingCurve* attention_curve(Attention a) const {
    auto it = attention.find(curve_kernel(a));
    return it == attention.end() ? nullptr : &it->second;
  }

  // The factor on kernel `a`'s curve at head dimension `d` (the kernel's, padded): 1 at the
  // reference, the profile's at each measured head dimension, linear in log2(d) between two of
  // them and the nearest's beyond them; 1 where none is measured.
  double attention_head_dim_factor(Attention a, double d) const;

  static DeviceSpec parse(const ParamReader& r);
};

// The profile file of a device: topologies/devices/NAME.json under `data_dir`, or `name` itself
// when it is a path to a JSON file (a relative one tried under `base_dir`, then `data_dir`); ""
// when none exists (core/data_files.hpp).
std::string device_file(const std::string& name, const std::string& data_dir, const std::string& base_dir = "");
// The profile in file `path`, over the profile it names in "from" (a device that differs from
// another in a few fields: H800 from H100; bases of bases followed), its own keys replacing the
// base's; a name in "from" is found as device_file finds one.
ParamReader device_profile(const std::string& path, const std::string& data_dir);
// The message for a device that does not exist, {what, expected}: "unknown device 'x' (did you
// mean 'y'?)" for a name, where it was looked for for a path (core/data_files.hpp).
std::pair<std::string, std::string> unknown_device(const std::string& name, const std::string& data_dir,
                                                   const std::string& base_dir = "");

}  // namespace sim
