// Kernel measurements: what the CUDA kernel suite (sim/kernels) writes and
// `trainsim calibrate` reads, and what published figures are transcribed into
// (calibration/published/*.json).
//
// File format (JSON, schema 1). Quantities are strings with units as everywhere
// in trainsim; byte counts and shapes are plain whole numbers. Every record may
// carry "source" (where a published figure comes from), "p10"/"p90" (the spread
// of the timed repetitions, same unit as "time") and "reps" (how many were
// timed); the suite writes all three.
//
//   {
//     "kind": "measurements", "schema": 1,
//     "provenance": {                       // required; "gpu" and "source"
//     required, the rest free
//       "gpu": "NVIDIA H200", "source": "trainsim kernel suite
//       (scripts/run-kernels)", "profile": "h200-sxm",              //
//       optional: the default profile these refine "driver": "...", "cuda":
//       "...", "cublas": "...", "nccl": "...", "date": "...", ...
//       "timing": "burst" | "back-to-back"  // optional, "back-to-back" (the suite's) by default:
//       // "burst" when each kernel was timed alone, too briefly for the GPU's power management to
//       // lower its clock (DeviceSpec::sustained_compute)
//     },
//     "scale_up_bandwidth": "450 GB/s",     // optional: nominal per-GPU NVLink
//     line rate (needed
//                                           // to fit collective efficiencies)
//     "gemm": [ {"m": 8192, "n": 8192, "k": 8192, "batch": 1, "dtype": "bf16",
//                "time": "1.412 ms"  or  "rate": "783.3 TFLOP/s"} ],
//     "memory": [ {"kernel": "copy", "bytes": 8589934592,      // bytes read +
//     written
//                  "time": "2.0 ms"  or  "bandwidth": "4.3 TB/s"} ],
//     "attention": [ {"batch": 8, "heads": 16, "seq_len": 2048, "head_dim":
//     128, "causal": true,
//                     "pass": "fwd" | "bwd" | "fwd_bwd", "dtype": "bf16",
//                     "impl": "...", "time": ...  or  "rate": "187 TFLOP/s"} ],
//                     // FA FLOP convention
//     "host_copy": [ {"direction": "h2d" | "d2h", "pinned": true, "bytes":
//     67108864,
//                     "time": ...  or  "bandwidth": "25 GB/s"} ],
//     "collectives": [ {"op": "all_reduce", "ranks": 8, "bytes": 1048576,
//     "algo": "ring",
//                       "time": ...  or  "busbw": "229.3 GB/s"  or  "algbw":
//                       "..."} ]
//   }
//
// Conventions (nccl-tests' src/*.cu at NVIDIA/nccl-tests@a0b82b2; Megatron-LM's and FlashAttention's FLOP counts):
//   GEMM FLOPs = 2*m*n*k*batch; minimum bytes = elem*(m*k + k*n + m*n)*batch.
//   Attention FLOPs (FlashAttention benchmarks): fwd = 4*B*S^2*H*D, halved when
//   causal;
//     bwd = 2.5 x fwd; fwd_bwd = 3.5 x fwd.
//   Collective "bytes" is nccl-tests' size column: the per-rank buffer for
//   all-reduce,
//     the whole gathered/scattered buffer for all-gather and reduce-scatter,
//     the whole send buffer for all-to-all, the message for send_recv. algbw =
//     bytes/time; busbw = algbw * factor with factor 2(n-1)/n (all-reduce),
//     (n-1)/n (all-gather, reduce-scatter, all-to-all), 1 (send_recv).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/cost/collective.hpp"
#include "sim/cost/compute_model.hpp"

namespace sim {

class ParamReader;

// Where a record sits in the file, for messages ("FILE: /gemm/3").
struct RecordRef {
  std::string file;
  std::string path;
};

struct GemmMeasurement {
  RecordRef at;
  double m = 0, n = 0, k = 0, batch = 1;
  std::string dtype;  // bf16 | fp16 | fp8
  Seconds time;
  GemmShape shape() const { return {m, n, k, batch}; }
  Precision precision() const { return precision_from_string(dtype); }
  // Inputs read once (1 byte per element in fp8, 2 otherwise), the bf16/fp16
  // output written once.
  Bytes min_bytes() const;
};

struct MemoryMeasurement {
  RecordRef at;
  std::string kernel;  // copy, rmsnorm_fwd, softmax_bwd, ...
  Bytes bytes;
  Seconds time;
};

enum class AttentionPass { FWD, BWD, FWD_BWD };
const char* to_string(AttentionPass p);

struct AttentionMeasurement {
  RecordRef at;
  double batch = 0, heads = 0, seq_len = 0, head_dim = 0;
  bool causal = false;
  AttentionPass pass = AttentionPass::FWD_BWD;
  std::string dtype;
  std::string impl_name;  // "" when the file does not say
  Seconds time;
  Flops flops() const;  // FA convention, see above
  // What kernel `kind` executes: flops() at the head dimension it is compiled for
  // (kernel_head_dim), its padded columns computed too.
  Flops kernel_flops(Attention kind) const;
  Bytes min_bytes() const;  // Q, K, V, O (and their gradients for bwd) read or written once
};

struct HostCopyMeasurement {
  RecordRef at;
  std::string direction;  // h2d | d2h
  bool pinned = true;
  Bytes bytes;
  Seconds time;
};

struct CollectiveMeasurement {
  RecordRef at;
  CollectiveKind op = CollectiveKind::ALL_REDUCE;
  int64_t ranks = 2;
  Bytes bytes;
  std::string algo;
  Seconds time;
};

struct Measurements {
  std::string file;
  std::string gpu;
  std::string source;
  std::string profile;                // "" when the file names none
  std::string provenance_json;        // the provenance object, compact, for the fitted profile
  bool burst = false;                 // provenance.timing "burst": kernels timed alone, at their burst clock
  BytesPerSecond scale_up_bandwidth;  // 0 when absent
  std::vector<GemmMeasurement> gemm;
  std::vector<MemoryMeasurement> memory;
  std::vector<AttentionMeasurement> attention;
  std::vector<HostCopyMeasurement> host_copy;
  std::vector<CollectiveMeasurement> collectives;

  // Throws InputError (FILE: /json/path: what, expected ...) on anything
  // malformed.
  static Measurements load(const std::string& path);
  static Measurements parse(const ParamReader& r);
  size_t size() const { return gemm.size() + memory.size() + attention.size() + host_copy.size() + collectives.size(); }
};

}  // namespace sim
