// trainsim-kernels: measures the kernels trainsim models on the GPU it runs on and writes one
// measurements file (README.md). Exit status: 0 written; 1 CUDA, cuBLASLt or NCCL error; 2 bad
// option or shapes file, or no CUDA device; 3 a result failed its correctness check.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/kernels/cuda_check.hpp"
#include "sim/kernels/host/compare.hpp"
#include "sim/kernels/host/options.hpp"
#include "sim/kernels/host/shapes.hpp"
#include "sim/kernels/runner.hpp"

namespace {

using namespace sim::kernels;

int fail(int code, const char* kind, const char* message) {
  std::fprintf(stderr, "trainsim-kernels: %s: %s\n", kind, message);
  return code;
}

// The default shapes file is optional; one named with --shapes is not.
ShapeList read_shapes(const Options& o) {
  if (!o.shapes_given && !std::ifstream(o.shapes)) {
    std::fprintf(stderr, "trainsim-kernels: warning: %s not found; measuring the built-in sweeps only\n",
                 o.shapes.c_str());
    return {};
  }
  return load_shapes(o.shapes);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = parse_options(std::vector<std::string>(argv + 1, argv + argc));
    if (o.help) {
      std::fputs(usage().c_str(), stdout);
      return 0;
    }
    if (const char* commit = std::getenv("TRAINSIM_GIT_COMMIT"); o.git_commit.empty() && commit) o.git_commit = commit;
    const char* algo = std::getenv("NCCL_ALGO");  // recorded with the collectives, as nccl-tests users do
    const ShapeList shapes = read_shapes(o);
    // Before minutes of measuring: the output must be writable (sim/core/output_file.hpp).
    sim::check_outputs({{"--output", o.output}}, {});

    int count = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      std::string why = e != cudaSuccess ? cudaGetErrorString(e) : "none visible";
      if (e == cudaErrorInsufficientDriver) why += " (no NVIDIA driver, or one older than this CUDA runtime)";
      return fail(2, "error", ("no CUDA device: " + why).c_str());
    }
    if (o.device >= count)
      throw UsageError("--device " + std::to_string(o.device) + ": only " + std::to_string(count) + " visible");

    run_suites(o, shapes, algo && *algo ? algo : "default");
    return 0;
  } catch (const sim::InputError& e) {
    return fail(2, "error", e.what());
  } catch (const UsageError& e) {
    return fail(2, "error", e.what());
  } catch (const ShapesError& e) {
    return fail(2, "error", e.what());
  } catch (const CheckFailure& e) {
    return fail(3, "check failed (no file written)", e.what());
  } catch (const CudaError& e) {
    return fail(1, "error", e.what());
  } catch (const std::exception& e) {
    return fail(1, "error", e.what());
  }
}
