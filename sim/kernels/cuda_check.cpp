#include "sim/kernels/cuda_check.hpp"

namespace sim::kernels {

void throw_library_error(const char* library, const char* message, const char* expr, const char* file, int line) {
  throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + library + " error: " + message + " in " +
                  expr);
}

}  // namespace sim::kernels
