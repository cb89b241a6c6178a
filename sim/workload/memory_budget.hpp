// The memory verdict, one rule for every command: a plan fits when the peak its allocator reserves
// (MemoryEstimate::reserved, memory.hpp) is within the device memory left to that allocator,
//   usable = HBM capacity - CUDA context - NCCL's buffers,
// and the verdict says by how much it is over, beside the measured error of the memory model. A
// plan over it is still simulated and reported (`memory.fits: false`); only `--strict-memory`, and
// `search`'s ranking, refuse it (the planner, planner.hpp).
//
// CUDA context (memory_budget.cpp): what the driver takes when a process first touches the GPU,
// with the lazy module loading PyTorch uses (CUDA >= 11.7), a constant.
//
// NCCL's buffers: every connection NCCL opens holds one staging buffer per protocol, on one of the
// two GPUs it joins (the receiver's, or the sender's where the GPU reads from its peer), of
//   LL     8 lines x 512 threads x 8 steps x 16 B     =   524,288 B
//   LL128  120 elements x 640 threads x 8 steps x 8 B = 4,915,200 B
//   Simple NCCL_BUFFSIZE                              = 4,194,304 B
// (NVIDIA/nccl src/init.cc DEFAULT_*_BUFFSIZE and src/include/device.h @5067397, NCCL 2.30.7):
// 9,609,728 B per connection. A ring gives each GPU one incoming connection per channel, so
//   nccl = communicators x channels x 9,609,728 B
// with one communicator per parallel group of more than one GPU the plan has (tp, cp, pp, dp, ep)
// and NCCL's channel count (memory_budget.cpp). NCCL >= 2.22 connects only the algorithms a
// communicator runs (lazy connection establishment, NCCL_RUNTIME_CONNECT=1 by default), so a ring
// per communicator; trees, NVLink SHARP buffers, the world group and extra point-to-point channels
// are not counted: a lower bound.
//
// TPU (an XLA runtime, ClusterSpec::xla_runtime): no CUDA context and no NCCL; usable = HBM.
#pragma once

#include <string>

#include "sim/core/units.hpp"

namespace sim {

struct Scenario;

struct MemoryBudget {
  Bytes capacity;      // device HBM (DeviceSpec::hbm_capacity)
  Bytes cuda_context;  // the CUDA context's share
  Bytes nccl_buffers;  // NCCL's staging buffers
  Bytes usable;        // capacity - cuda_context - nccl_buffers, at least 0
};

MemoryBudget memory_budget(const Scenario& s);

// The memory model's measured error: the predicted reserved peak against every published peak of
// validation/published-h100.json (its rows' extra.published_peak_memory_gib, torchtitan's logged
// max-reserved memory), as relative errors |predicted / published - 1|. A test recomputes them
// from the table (test/unit/plan_memory_budget.cpp).
struct MemoryModelError {
  double mean = 0;   // mean of the absolute relative errors
  double worst = 0;  // the largest
  int rows = 0;      // published peaks compared
};
MemoryModelError memory_model_error();

// The verdict as the text summaries print it: "fits", or "over by 3.77 GiB (model error ±4.1%
// mean, 9.9% worst)".
std::string memory_verdict_text(bool fits, Bytes over, const MemoryModelError& error);

}  // namespace sim
