// Input data and read-back for correctness checks.
//
// Inputs are never zeros (a bf16 GEMM ran 13 % faster on zeros on an H200): every
// tensor is filled with uniform values from a counter-based hash of (seed, element index), so the
// same seed gives the same data on every GPU and every run.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sim::kernels {

enum class DType { BF16, FP8_E4M3, F32 };
size_t dtype_bytes(DType t);

// Uniform in [lo, hi), rounded to `t`.
void fill_uniform(void* data, size_t count, DType t, uint64_t seed, float lo, float hi, cudaStream_t stream);

// bf16 element i of rank r = (i + r) % 3: small integers, so sums over up to 128 ranks are exact
// in bf16 and an all-reduce result can be checked for equality.
void fill_rank_pattern(void* data, size_t count, int rank, cudaStream_t stream);
inline double rank_pattern(size_t i, int rank) { return static_cast<double>((i + static_cast<size_t>(rank)) % 3); }

// Copies `count` elements from the device (synchronously) and decodes them.
std::vector<double> download(const void* data, size_t count, DType t);

}  // namespace sim::kernels
