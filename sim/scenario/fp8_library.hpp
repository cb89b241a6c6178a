// Which library runs an FP8 run's linear layers -- scenario key `training.fp8_library`, printed by
// `trainsim list`. The libraries cast the same GEMM operands to FP8 and keep the same FP8 copies
// of the activations for the backward, but differ in what their sequence-parallel all-gathers
// carry and in the FP8 weights they keep; each entry states it, and the ops
// (sim/workload/ops.cpp) and the memory (sim/workload/memory.cpp) read the entry.
#pragma once

#include <vector>

namespace sim {

enum class Fp8Library { TRANSFORMER_ENGINE, TORCHAO };

struct Fp8LibraryEntry {
  Fp8Library kind;
  const char* name;
  const char* description;
  // Whether a row-parallel layer's output gradient is cast to FP8 before its sequence-parallel
  // all-gather (1 byte per element) or gathered in 16 bits and cast after (2). Every library
  // gathers a column-parallel layer's input in FP8.
  bool gathers_output_grad_in_fp8;
  // Whether it keeps each linear layer's FP8 weight and its transpose from the step's first
  // microbatch to its last (2 bytes per linear-layer parameter beside the 16-bit weights), rather
  // than casting the weight at each use; and whether it can hold the primary weights in FP8
  // instead (training.fp8_params).
  bool caches_fp8_weights;
  // Whether it makes an FP8 tensor's transposed copy only where the device's FP8 GEMM needs its
  // operands "TN" (DeviceSpec::fp8_gemm_any_layout), or on every device.
  bool transposes_only_for_tn_gemms;
};

const std::vector<Fp8LibraryEntry>& fp8_libraries();
const Fp8LibraryEntry& fp8_library(Fp8Library kind);

}  // namespace sim
