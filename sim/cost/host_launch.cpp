#include "sim/cost/host_launch.hpp"

namespace sim {
namespace {

// The driver's own cost of one launch: cuLaunchKernel of an empty Triton kernel, 3.0 us with no
// arguments and 3.3 us with 19, on a GB200 (meta-pytorch/tritonbench#1017, 2026-04-14,
// "nop_triton_direct_culaunch"); the 19-argument figure, as a layer's kernels take several tensors.
constexpr double CU_LAUNCH_KERNEL = 3.3e-6;
// A PyTorch op called from Python on a CUDA tensor whose kernel takes no time: "~7 us eager" for
// sigmoid, relu, abs, silu and gelu (flagos-ai/FlagGems#4812, 2026-07-14, eager wall clock
// of tiny tensors); torch.compile's per-kernel launch path is alike, 6.8-9.1 us (CachingAutotuner.run,
// tritonbench PR #1017). Both launch paths of a forward.
constexpr double PYTHON_OP = 7e-6;
// The autograd engine dispatches the backward's ops in C++: "the same operation called using c++
// API would take about a microsecond" (Natalia Gimelshein, pytorch/pytorch#41383) plus the
// launch itself.
constexpr double CPP_DISPATCH = 1e-6;

}  // namespace

Seconds host_launch_per_kernel(bool backward, bool graphed) {
  if (graphed) return Seconds(0);
  return Seconds(backward ? CPP_DISPATCH + CU_LAUNCH_KERNEL : PYTHON_OP);
}

// cudaGraphLaunch taken to cost what one kernel launch does (assumption: no published figure read).
Seconds cuda_graph_launch() { return Seconds(CU_LAUNCH_KERNEL); }

}  // namespace sim
