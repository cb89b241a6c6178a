// Which library runs an FP8 run's linear layers -- scenario key `training.fp8_library`, printed by
// `trainsim list`. The libraries cast the same GEMM operands to FP8 and keep the same FP8 copies
// for the backward, but differ in what their sequence-parallel all-gathers carry; each entry
// states it, and the ops (sim/workload/ops.cpp) read the entry.
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
};

const std::vector<Fp8LibraryEntry>& fp8_libraries();
const Fp8LibraryEntry& fp8_library(Fp8Library kind);

}  // namespace sim
