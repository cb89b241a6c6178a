#include "sim/workload/memory_budget.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/scenario/scenario.hpp"

namespace sim {

namespace {

constexpr double MIB = 1024.0 * 1024.0;

// The CUDA context with lazy module loading (CUDA >= 11.7, PyTorch's default): "The first CUDA
// operation will create the CUDA context which uses around 400MB if CUDA >= 11.7 is used and lazy
// module loading enabled (default in PyTorch)" (ptrblck, NVIDIA, pytorch/pytorch#109888,
// 2023-09-23; ~300 MB in pytorch/pytorch#107667, over 1000 MB before lazy loading). nvidia-smi
// counts MiB.
constexpr double CUDA_CONTEXT_BYTES = 400.0 * MIB;

// NCCL's staging buffers per connection (memory_budget.hpp): NVIDIA/nccl @5067397 (2.30.7),
// src/init.cc DEFAULT_LL_BUFFSIZE (NCCL_LL_LINES_PER_THREAD 8 x NCCL_LL_MAX_NTHREADS 512 x
// NCCL_STEPS 8 x sizeof(ncclLLFifoLine) 16), DEFAULT_LL128_BUFFSIZE (NCCL_LL128_ELEMS_PER_THREAD
// 120 x NCCL_LL128_MAX_NTHREADS 640 x NCCL_STEPS 8 x 8) and DEFAULT_BUFFSIZE (1 << 22).
constexpr double NCCL_LL_BYTES = 8.0 * 512.0 * 8.0 * 16.0;
constexpr double NCCL_LL128_BYTES = 120.0 * 640.0 * 8.0 * 8.0;
constexpr double NCCL_SIMPLE_BYTES = 4.0 * MIB;
constexpr double NCCL_CONNECTION_BYTES = NCCL_LL_BYTES + NCCL_LL128_BYTES + NCCL_SIMPLE_BYTES;

// The channels NCCL runs a communicator on, in an 8-GPU Hopper node: "16 coll channels, 0 nvls
// channels, 16 p2p channels, 16 p2p channels per peer" (NCCL's init log on 8 H800s,
// NVIDIA/nccl#892). Nodes with more NVLinks and NICs open up to 32 (logs in NVIDIA/nccl issues
// show "32 coll channels"): 16 keeps the estimate a lower bound.
constexpr double NCCL_CHANNELS = 16.0;

// Measured by test/unit/plan_memory_budget.cpp over the published peaks of
// validation/published-h100.json (memory_budget.hpp, memory_model_error), rounded to 0.1%.
constexpr MemoryModelError MEASURED_ERROR{0.057, 0.112, 9};

}  // namespace

MemoryBudget memory_budget(const Scenario& s) {
  MemoryBudget b;
  b.capacity = s.cluster.device.hbm_capacity;
  if (!s.cluster.scale_up.xla_runtime()) {
    b.cuda_context = Bytes(CUDA_CONTEXT_BYTES);
    const auto& p = s.plan;
    int communicators = 0;
    for (int64_t size : {p.tp, p.cp, p.pp, p.dp, p.ep}) communicators += size > 1 ? 1 : 0;
    b.nccl_buffers = Bytes(communicators * NCCL_CHANNELS * NCCL_CONNECTION_BYTES);
  }
  b.usable = Bytes(std::max(0.0, b.capacity.value - b.cuda_context.value - b.nccl_buffers.value));
  return b;
}

MemoryModelError memory_model_error() { return MEASURED_ERROR; }

std::string memory_verdict_text(bool fits, Bytes over, const MemoryModelError& error) {
  if (fits) return "fits";
  return fmt::format("over by {} (model error \u00b1{:.1f}% mean, {:.1f}% worst)", format_bytes(over), 100 * error.mean,
                     100 * error.worst);
}

}  // namespace sim
