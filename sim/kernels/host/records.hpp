// The records trainsim-kernels writes, one builder per section of the measurements file
// (sim/calibrate/measurements.hpp), so that the keys the suite emits are the ones the reader
// accepts and a unit test can check both ends. Every record carries "time" (the median), "p10",
// "p90" and "reps" from Stats.
#pragma once

#include <cstdint>
#include <string>

#include "sim/kernels/host/json_writer.hpp"
#include "sim/kernels/host/shapes.hpp"

namespace sim::kernels {

// dtype "bf16" | "fp8"; algo "heuristic" | "best_of_4"; layout "TN" (cuBLAS column-major terms).
Record gemm_record(const GemmShape& s, const std::string& dtype, const std::string& algo, const Stats& t);

// bytes = bytes read + written; tokens/hidden are left out when 0 (copies).
Record memory_record(const std::string& kernel, int64_t bytes, int64_t tokens, int64_t hidden, const Stats& t);

// pass "fwd" | "bwd" | "fwd_bwd"; impl names the kernels.
Record attention_record(const AttentionShape& s, const std::string& pass, const std::string& impl, const Stats& t);

// direction "h2d" | "d2h"; method says how it was timed.
Record host_copy_record(const std::string& direction, bool pinned, int64_t bytes, const std::string& method,
                        const Stats& t);

// op "all_reduce" | "all_gather" | "reduce_scatter" | "all_to_all" | "send_recv"; bytes in
// nccl-tests' convention.
Record collective_record(const std::string& op, int ranks, int64_t bytes, const std::string& algo, const Stats& t);

}  // namespace sim::kernels
