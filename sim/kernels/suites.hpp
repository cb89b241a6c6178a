// The measurement groups of trainsim-kernels (STYLE.md §15: one harness, small per-kernel
// descriptors). Each group checks its kernels against a reference (CheckFailure on a mismatch),
// times them with the Harness, and adds one record per measurement to the writer in the format of
// sim/calibrate/measurements.hpp. Progress and skip notes go to stderr.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/kernels/device_info.hpp"
#include "sim/kernels/harness.hpp"
#include "sim/kernels/host/json_writer.hpp"
#include "sim/kernels/host/shapes.hpp"

namespace sim::kernels {

// cuBLASLt GEMMs, bf16 and (sm_89+) fp8: the built-in square and K sweeps plus `extra`.
void run_gemm_suite(Harness& harness, const DeviceInfo& device, const std::vector<GemmShape>& extra, bool best_of_4,
                    MeasurementWriter& out);

// Norms, softmax, activations and residual add over tokens x `hidden_sizes`, then copies.
void run_memory_suite(Harness& harness, const DeviceInfo& device, const std::vector<int64_t>& hidden_sizes,
                      MeasurementWriter& out);
void run_copy_suite(Harness& harness, const DeviceInfo& device, MeasurementWriter& out);

// The tiled attention kernels: FlashAttention's benchmark setup plus `extra`.
void run_attention_suite(Harness& harness, const DeviceInfo& device, const std::vector<AttentionShape>& extra,
                         MeasurementWriter& out);

// h2d and d2h copies, pinned and pageable.
void run_host_copy_suite(Harness& harness, MeasurementWriter& out);

// NCCL collectives over all visible GPUs (and 2- and 4-GPU subsets); `algo` is recorded as given
// (NCCL_ALGO, or "default"). Without NCCL or with one GPU it only prints why it is skipped.
void run_collectives_suite(const std::string& algo, MeasurementWriter& out);
std::string nccl_version();  // "2.28.9", or "" when built without NCCL

// printf-style line on stderr, prefixed "trainsim-kernels: ".
void progress(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace sim::kernels
