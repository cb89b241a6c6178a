// `trainsim calibrate`: fits a device profile's cost-model parameters to kernel
// measurements (docs/calibration.md). Every fit is linear least squares on
// relative error (least_squares.hpp):
//
//   GEMM         t = F / (P * eta(F) * eta_wave)     eta(F) = eta_max * F / (F
//   + F_half)
//                => t * P * eta_wave = F / eta_max + F_half / eta_max
//                (bf16/fp16 into `gemm`; fp8 against the fp8 peak into `gemm_fp8`)
//   memory-bound t = B / (BW * eta_m(B))              => t * BW = B / eta_max +
//   B_half / eta_max attention    t = F / (P * eta_fa(S))  (FA FLOPs)  => t * P
//   * S / F = S / eta_max + S_half / eta_max collectives  t = base + steps *
//   step + bytes_per_rank / (L * eff)   (NCCL ring, cost/collective)
//
// P, BW and L are the profile's datasheet peak, HBM bandwidth and the file's
// scale_up_bandwidth; the fit never moves them. GEMMs the fitted curves call
// memory-bound are left out of the GEMM fit. Where a file has too few distinct
// sizes to pin a half point (or a latency), the base profile's value is kept
// and the fit says so. Collectives are also fitted alpha-beta per (op, ranks)
// and size regime -- the protocol switch (LL/LL128/Simple) bends the curve --
// for the report; the profile gets the constants fitted on the upper
// (bandwidth) regime of every group.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/calibrate/measurements.hpp"
#include "sim/scenario/device.hpp"

namespace sim {

struct ParameterFit {
  bool fitted = false;
  size_t points = 0;
  double rms = 0;    // root-mean-square relative error of the fitted form over its points
  std::string note;  // what was kept from the base profile and why, what was left out
};

struct RegimeFit {  // t = alpha + bytes / algbw over [from, to]
  CollectiveKind op;
  int64_t ranks = 0;
  std::string algo;
  Bytes from, to;
  Seconds alpha;
  BytesPerSecond busbw;  // algbw x nccl-tests' factor
  size_t points = 0;
  double rms = 0;
};

struct HostCopyFit {  // t = alpha + bytes / bandwidth
  std::string direction;
  bool pinned = true;
  Seconds alpha;
  BytesPerSecond bandwidth;
  size_t points = 0;
  double rms = 0;
};

struct Calibration {
  DeviceSpec device;  // the base profile with every fitted parameter replaced
  ParameterFit gemm, gemm_fp8, memory, collectives, nvls;
  // One fit per fused attention kernel of the registry (attention_kernels.hpp), from the records of
  // the implementations that measure it; every fused kernel has an entry, fitted or not.
  std::map<Attention, ParameterFit> attention;
  std::vector<RegimeFit> regimes;
  std::vector<HostCopyFit> host_copies;
  std::vector<std::string> excluded;  // FitOptions::exclude, recorded in the fitted profile
};

// The suite's own attention kernels (sim/kernels, impl "trainsim-tiled") check
// correctness at modest speed; they are none of the registry's kernels and never enter an
// attention fit (they are still checked, against the flash_attention curve).
inline constexpr const char* kSuiteAttentionImpl = "trainsim-tiled";

// An all-reduce measured with NVLink SHARP inside one node (algo "NVLS", not "NVLSTree"): what
// the profile's nvls_* constants describe and `calibrate` fits.
bool is_nvls_all_reduce(const CollectiveMeasurement& c);

struct FitOptions {
  // Memory-bound kernel names ("rmsnorm_bwd") or attention implementations
  // left out of the fits (still checked); each fit's note names them.
  std::vector<std::string> exclude;
  bool excludes(const std::string& name) const;
};

// Throws InputError naming the measurements file when the data contradict the
// base profile (e.g. GEMMs faster than its peak, a ring faster than the line
// rate).
Calibration calibrate(const Measurements& m, const DeviceSpec& base, const FitOptions& options = {});

}  // namespace sim
