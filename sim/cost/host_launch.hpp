// What the host spends launching one kernel, which bounds a pass whose kernels are shorter: the
// host queues kernels ahead of the GPU, so a pass of n kernels takes at least n of these (the
// GPU then waits for the host between kernels: a CPU-bound step). Small models and small
// microbatches expose it; CUDA graphs remove it.
#pragma once

#include "sim/core/units.hpp"

namespace sim {

// Per kernel (or collective) a pass launches: from Python in the forward (and in a checkpointed
// layer's recompute), from the autograd engine's C++ in the backward; nothing per kernel when the
// pass is replayed from a CUDA graph (`graphed`), whose launch costs one kernel launch per pass.
Seconds host_launch_per_kernel(bool backward, bool graphed);
Seconds cuda_graph_launch();

}  // namespace sim
