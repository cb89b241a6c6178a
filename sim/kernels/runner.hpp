// Runs the selected measurement groups on one GPU and writes the measurements file.
#pragma once

#include <string>

#include "sim/kernels/host/options.hpp"
#include "sim/kernels/host/shapes.hpp"

namespace sim::kernels {

// Throws CudaError, CheckFailure (nothing is written then) or std::runtime_error.
void run_suites(const Options& options, const ShapeList& shapes, const std::string& nccl_algo);

}  // namespace sim::kernels
