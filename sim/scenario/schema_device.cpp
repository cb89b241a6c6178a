// The schema of a device profile (topologies/devices/*.json, or the file cluster.gpu names;
// device.cpp reads it): a GPU's peaks, memory, and the calibrated efficiency curves of its kernels
// and collectives. A file of its own: its paths start at "@device", the file's root. The ranges'
// reasons are the windows' in core/quantity_range.hpp and below.
#include "sim/scenario/attention_kernels.hpp"
#include "sim/scenario/device.hpp"
#include "sim/scenario/schema_sections.hpp"

namespace sim {

namespace {

// A fraction of a rated speed: EFFICIENCY (core/quantity_range.hpp), whose text and reason these are.
const char* const FRACTION = "a fraction of the rated speed from 0.01 to 1";
const char* const FRACTION_WHY =
    "below 1% a device is broken rather than slow (the lowest shipped figure is 0.17, flash attention on the A100)";

KeySpec efficiency(const std::string& path, const std::string& meaning) {
  return {path, "number", "", "", "required", "", meaning, 0, 0, FRACTION, FRACTION_WHY};
}

}  // namespace

std::vector<KeySpec> schema_device_keys() {
  // A dense tensor-core peak: from 1 TFLOP/s, under any accelerator LLMs are trained on (V100: 125
  // TFLOP/s FP16), to 1 EFLOP/s, over 200x the fastest dense peak shipped (B200: 4.5 PFLOP/s FP8).
  const std::string tile_range = "ROWSxCOLS, each 1.." + std::to_string(MAX_GEMM_TILE);
  const std::string peak = "a dense peak from 1 TFLOP/s to 1 EFLOP/s";
  const std::string peak_why = "V100's 125 TFLOP/s FP16 lies above; 1 EFLOP/s is over 200x B200's 4.5 PFLOP/s FP8";
  // NCCL's latencies: from 1 ns, under one NVLink hop, to 1 s, over 10^4 times any measured (the
  // shipped profiles' are 1 to 49 us).
  const std::string latency = "a latency from 1 ns to 1 s";
  const std::string latency_why = "1 ns is under one NVLink hop; 1 s is over 10^4 x any measured (shipped: 1-49 us)";
  // A curve's half-efficiency size (SaturatingCurve::x_half). GEMMs: from 1 MFLOP, where a GEMM is
  // saturated from its first tile, to 1 PFLOP, a GEMM of 80,000^3 (the shipped ones are 1.4 to 18
  // GFLOP). Memory-bound kernels: from 1 kB to 1 TB, more than any GPU's HBM (shipped: 2 to 33 MB).
  const std::string half_flops = "a size from 1 MFLOP to 1 PFLOP";
  const std::string half_flops_why =
      "1 MFLOP: saturated from the first tile; 1 PFLOP: a GEMM of 80,000^3 (shipped: 1.4-18 GFLOP)";
  std::vector<KeySpec> keys = {
      {"@device", "object", "", "", "", "", "the device profile file", 0, 0},
      {"@device/kind", "choice", "", "", "optional", "device", "what the file is", 0, 0},
      {"@device/from", "string", "", "", "optional", "a device profile in topologies/devices/, or a path",
       "a base profile whose keys this file's replace (topologies/devices/h800-sxm.json: the h100-sxm one)", 0, 0},
      {"@device/name", "string", "", "", "required", "", "the device's name in reports", 0, 0},
      {"@device/description", "string", "", "", "documentation only", "", "free text", 0, 0},
      {"@device/source", "string", "", "", "documentation only", "", "where the figures come from", 0, 0},
      {"@device/calibration", "object", "", "", "documentation only", "",
       "the record of the calibration run that fitted the profile (trainsim calibrate)", 0, 0},
      {"@device/peak", "object", "", "", "required", "at least one precision",
       "dense tensor-core peak per precision (datasheet, without sparsity)", 0, 0},
      {"@device/peak/bf16", "quantity", "FLOP/s", "", "", "", "BF16 dense peak (the MFU denominator)", 0, 0, peak,
       peak_why},
      {"@device/peak/fp16", "quantity", "FLOP/s", "", "", "", "FP16 dense peak", 0, 0, peak, peak_why},
      {"@device/peak/fp8", "quantity", "FLOP/s", "", "", "", "FP8 dense peak", 0, 0, peak, peak_why},
      {"@device/hbm", "object", "", "", "required", "", "device memory", 0, 0},
      {"@device/hbm/capacity", "quantity", "B", "", "required", "", "HBM capacity", 0, 0,
       "a capacity from 1 GiB to 1 PiB", "V100's 16 GiB lies above; 1 PiB is over 3,000x B300's 288 GB"},
      {"@device/hbm/bandwidth", "quantity", "B/s", "", "required", "", "HBM bandwidth", 0, 0,
       "a bandwidth from 1 Mb/s to 1 PB/s", "BANDWIDTH (core/quantity_range.hpp): 1 PB/s is over 100x any GPU's"},
      {"@device/sms", "count", "", "", "none (no wave quantization)", "", "streaming multiprocessors", 1, 100000, "",
       "an input bound far above any GPU's (H100 SXM: 132)"},
      {"@device/gemm", "object", "", "", "required", "", "dense GEMM efficiency curve (BF16/FP16)", 0, 0},
      efficiency("@device/gemm/efficiency_max", "efficiency of a large GEMM against the peak"),
      {"@device/gemm/half_flops", "quantity", "FLOP", "", "required", "",
       "GEMM size at which half of efficiency_max is reached", 0, 0, half_flops, half_flops_why},
      {"@device/gemm/tiles", "array", "", "", "none (no wave quantization; needs sms)", tile_range,
       "the GEMM kernels' output tiles, e.g. \"256x128\"", 0, 0},
      {"@device/gemm/tiles/*", "string", "", "", "", tile_range, "one tile", 0, 0},
      {"@device/gemm_fp8", "object", "", "", "= gemm", "", "FP8 GEMM efficiency curve (needs peak.fp8)", 0, 0},
      efficiency("@device/gemm_fp8/efficiency_max", "efficiency of a large FP8 GEMM against the FP8 peak"),
      {"@device/gemm_fp8/half_flops", "quantity", "FLOP", "", "required", "",
       "FP8 GEMM size at which half of efficiency_max is reached", 0, 0, half_flops, half_flops_why},
      {"@device/gemm_fp8/layouts", "choice", "", "", "tn", "tn, any",
       "operand layouts FP8 GEMMs take (tn: Hopper's FP8 tensor cores; transposes priced)", 0, 0},
      {"@device/compute_capability", "string", "", "", "none (attention defaults to \"flash\")", "MAJOR.MINOR",
       "CUDA compute capability, e.g. \"9.0\" (cudaDeviceProp major.minor); decides the default attention kernel", 0,
       0},
      {"@device/sustained_compute", "number", "", "", "1 (no power throttling)", "",
       "share of the boost clock kept at the power limit", 0, 0, FRACTION, FRACTION_WHY},
      {"@device/memory_ops", "object", "", "", "required", "", "memory-bound kernel efficiency curve", 0, 0},
      efficiency("@device/memory_ops/efficiency_max", "achieved share of HBM bandwidth for large kernels"),
      {"@device/memory_ops/half_bytes", "quantity", "B", "", "required", "",
       "bytes moved at which half of efficiency_max is reached", 0, 0, "a size from 1 kB to 1 TB",
       "1 TB is more than any GPU's HBM (shipped: 2-33 MB)"},
      {"@device/collectives", "object", "", "", "required", "", "NCCL collective latencies and efficiencies", 0, 0},
      {"@device/collectives/base_latency", "quantity", "s", "", "required", "", "fixed cost of one collective", 0, 0,
       latency, latency_why},
      {"@device/collectives/scale_up_step_latency", "quantity", "s", "", "required", "",
       "per algorithm step inside an NVLink domain", 0, 0, latency, latency_why},
      {"@device/collectives/scale_out_step_latency", "quantity", "s", "", "required", "",
       "per algorithm step across nodes", 0, 0, latency, latency_why},
      efficiency("@device/collectives/scale_up_efficiency", "achieved share of scale-up bus bandwidth"),
      efficiency("@device/collectives/scale_out_efficiency", "achieved share of scale-out bus bandwidth"),
      {"@device/collectives/nvls_efficiency", "number", "", "", "none (no NVLink SHARP)", "",
       "achieved share of NVLink SHARP's bandwidth (with nvls_latency)", 0, 0, FRACTION, FRACTION_WHY},
      {"@device/collectives/nvls_latency", "quantity", "s", "", "required with nvls_efficiency", "",
       "NVLink SHARP collective latency", 0, 0, latency, latency_why},
  };
  // One curve per attention kernel the profile measures (attention_kernels.cpp).
  for (const auto& k : attention_kernels()) {
    if (!k.profile_key) continue;
    const std::string p = std::string("@device/") + k.profile_key;
    keys.push_back({p, "object", "", "", "none (priced another way)", "",
                    std::string("efficiency curve of the ") + k.name + " attention kernel", 0, 0});
    keys.push_back(efficiency(p + "/efficiency_max", "efficiency at long sequences"));
    keys.push_back({p + "/half_seq_len", "count", "tokens", "", "required", "",
                    "sequence length at which half of efficiency_max is reached", 1, 1 << 24, "",
                    "as training.seq_len"});
    keys.push_back({p + "/head_dims", "object", "", "", "none (1 at every head dimension)",
                    "head dimensions 8..1024 other than 128", "the curve's factor at other head dimensions", 0, 0});
    keys.push_back({p + "/head_dims/*", "number", "", "", "", "", "factor at one head dimension", 0, 0,
                    "a factor from 0.01 to 2", "EFFICIENCY's floor to 2"});
  }
  return keys;
}

}  // namespace sim
